// Program gc: goroutines that allocate enough to run several garbage
// collections, plus explicit runtime.GC calls: GC mark workers, assists,
// the sweeper and stop-the-world pauses share the Ps with user goroutines.
// Run with GMPCHECK_TRACE=FILE for its runtime/trace.
package main

import (
	"os"
	"runtime"
	"runtime/trace"
	"sync"
)

var sink [][]byte

func main() {
	stop := start()
	defer stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var keep [][]byte
			for i := range 20000 {
				keep = append(keep, make([]byte, 256))
				if len(keep) > 2000 {
					keep = keep[:0]
				}
				if i%5000 == 0 {
					mu.Lock()
					sink = append(sink[:0], keep...)
					mu.Unlock()
				}
			}
		}()
	}
	runtime.GC()
	wg.Wait()
	runtime.GC()
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
