// Program pingpong: two pairs of goroutines hand a token back and forth
// through unbuffered channels (gopark, goready into runnext). Run with
// GMPCHECK_TRACE=FILE for its runtime/trace.
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
	for range 2 {
		ping, pong := make(chan int), make(chan int)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 1500 {
				ping <- i
				<-pong
			}
			close(ping)
		}()
		go func() {
			defer wg.Done()
			for v := range ping {
				pong <- v
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
