module github.com/gmpcheck/gmpcheck

go 1.26.0

require (
	github.com/anishathalye/porcupine v1.3.1
	go.uber.org/goleak v1.3.0
	golang.org/x/exp v0.0.0-20261014143641-f0251eb4aa3e
	pgregory.net/rapid v1.3.0
)
