module github.com/gmpcheck/gmpcheck

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	go.uber.org/goleak v1.3.0
	pgregory.net/rapid v1.3.0
)
