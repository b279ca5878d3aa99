// Program lockosthread: a goroutine wired to its thread (LockOSThread)
// exchanging values with ordinary goroutines: when it blocks its M blocks
// with it, and when it is readied its P is handed to that M (startlockedm).
// Run with GMPCHECK_TRACE=FILE for its runtime/trace.
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
	in, out := make(chan int), make(chan int)
	wg.Add(2)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for v := range in {
			out <- v + 1
		}
		close(out)
	}()
	go func() {
		defer wg.Done()
		for i := range 500 {
			in <- i
			<-out
		}
		close(in)
	}()
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
