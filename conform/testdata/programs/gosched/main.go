// Program gosched: goroutines that yield in a loop (Gosched puts the G on
// the global queue and wakes a P). Run with GMPCHECK_TRACE=FILE for its
// runtime/trace.
package main

import (
	"os"
	"runtime"
	"runtime/trace"
	"sync"
)

func main() {
	stop := start()
	defer stop()
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 400 {
				runtime.Gosched()
			}
		}()
	}
	wg.Wait()
}

func start() func() {
	f, err := os.Create(os.Getenv("GMPCHECK_TRACE"))
	if err != nil {
		panic(err)
	}
	if err := trace.Start(f); err != nil {
		panic(err)
	}
	return func() { trace.Stop(); f.Close() }
}
