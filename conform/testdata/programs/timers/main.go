// Program timers: goroutines sleeping on timers and waiting on time.After
// (timers ready Gs from findRunnable or sysmon, not from a running G). Run
// with GMPCHECK_TRACE=FILE for its runtime/trace.
package main

import (
	"os"
	"runtime/trace"
	"sync"
	"time"
)

func main() {
	stop := start()
	defer stop()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 10 {
				if j%2 == 0 {
					time.Sleep(time.Duration(100+i*37) * time.Microsecond)
				} else {
					<-time.After(time.Duration(50+j*13) * time.Microsecond)
				}
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
