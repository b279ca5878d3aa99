// Program preempt: tight loops without function calls, longer than
// sysmon's 10 ms time slice, so that the runtime preempts them
// (asynchronously, by signal). Run with GMPCHECK_TRACE=FILE for its
// runtime/trace.
package main

import (
	"os"
	"runtime/trace"
	"sync"
	"time"
)

var sink [8]uint64

func main() {
	stop := start()
	defer stop()
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			end := time.Now().Add(60 * time.Millisecond)
			for time.Now().Before(end) {
				x := sink[i]
				for j := 0; j < 1<<22; j++ {
					x = x*6364136223846793005 + 1442695040888963407
				}
				sink[i] = x
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
