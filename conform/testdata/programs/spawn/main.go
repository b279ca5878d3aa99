// Program spawn: a fan-out of short goroutines (newproc, runnext, wakep,
// stealing by idle Ps). Run with GMPCHECK_TRACE=FILE for its runtime/trace.
package main

import (
	"os"
	"runtime/trace"
	"sync"
)

func main() {
	stop := start()
	defer stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	sum := 0
	for i := range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for j := range 2000 {
				x += i ^ j
			}
			mu.Lock()
			sum += x
			mu.Unlock()
		}()
	}
	wg.Wait()
	_ = sum
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
