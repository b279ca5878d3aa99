// Program netio: a TCP echo over the loopback interface (goroutines
// parked on the netpoller, readied by netpoll in findRunnable or sysmon).
// Run with GMPCHECK_TRACE=FILE for its runtime/trace.
package main

import (
	"io"
	"net"
	"os"
	"runtime/trace"
	"sync"
)

func main() {
	stop := start()
	defer stop()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				panic(err)
			}
			defer c.Close()
			buf := make([]byte, 64)
			for range 100 {
				if _, err := c.Write(buf); err != nil {
					panic(err)
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					panic(err)
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
