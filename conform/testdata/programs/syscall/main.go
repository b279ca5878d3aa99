// Program syscall: goroutines in blocking system calls (nanosleep, read of
// a pipe in blocking mode): entersyscall, sysmon's retake and handoffp,
// exitsyscall with or without a P. Run with GMPCHECK_TRACE=FILE for its
// runtime/trace.
package main

import (
	"os"
	"runtime/trace"
	"sync"
	"syscall"
)

func main() {
	stop := start()
	defer stop()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				ts := syscall.Timespec{Nsec: 2_000_000}
				syscall.Nanosleep(&ts, nil)
			}
		}()
	}
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		panic(err)
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		buf := make([]byte, 1)
		for range 20 {
			syscall.Read(p[0], buf)
		}
	}()
	go func() {
		defer wg.Done()
		for range 20 {
			ts := syscall.Timespec{Nsec: 1_000_000}
			syscall.Nanosleep(&ts, nil)
			syscall.Write(p[1], []byte{1})
		}
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
