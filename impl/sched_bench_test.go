package impl

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// The scheduler benchmarks run each workload on native goroutines, on the
// G/M/P scheduler and on the GM baseline, in the same run:
//
//	go test -run '^$' -bench 'Sched' -count 6 ./impl | benchstat -col /impl -
//
// ns/op is per G (spawn), per hand-off (ping-pong, park/ready).

type benchImpl struct {
	name string
	new  func(procs int) (Scheduler, error)
}

var benchImpls = []benchImpl{
	{"gmp", func(p int) (Scheduler, error) { return New(Config{Procs: p}) }},
	{"gmp-handoff", func(p int) (Scheduler, error) { return New(Config{Procs: p, HandoffShell: true}) }},
	{"gm", func(p int) (Scheduler, error) { return NewGM(p) }},
}

func runOn(b *testing.B, procs int, root func(n int) func(Task)) {
	for _, im := range benchImpls {
		b.Run("impl="+im.name, func(b *testing.B) {
			s, err := im.new(procs)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown()
			b.ResetTimer()
			s.Go(root(b.N))
			if err := s.Wait(); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func trivial(Task) {}

// BenchmarkSchedSpawnExit: one G creates b.N trivial Gs; each runs and
// exits. Native: b.N go statements and a WaitGroup.
func BenchmarkSchedSpawnExit(b *testing.B) {
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			b.Run("impl=native", func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				var wg sync.WaitGroup
				wg.Add(b.N)
				done := wg.Done
				for range b.N {
					go done()
				}
				wg.Wait()
			})
			runOn(b, procs, func(n int) func(Task) {
				return func(tk Task) {
					for range n {
						tk.Go(trivial)
					}
				}
			})
		})
	}
}

// BenchmarkSchedSpawnHeavy is the spawn-heavy load of the GMP-vs-GM target:
// Procs*4 Gs each spawn b.N/(Procs*4) Gs that each spawn one more. With P,
// spawns go to the spawner's own local queue; in GM every spawn and every
// dispatch takes the one global lock.
func BenchmarkSchedSpawnHeavy(b *testing.B) {
	const procs = 2
	const roots = 4 * procs
	b.Run("impl=native", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var wg sync.WaitGroup
		per := b.N/roots + 1
		wg.Add(roots * per * 2)
		for range roots {
			go func() {
				for range per {
					go func() {
						go wg.Done()
						wg.Done()
					}()
				}
			}()
		}
		wg.Wait()
	})
	runOn(b, procs, func(n int) func(Task) {
		return func(tk Task) {
			per := n/roots + 1
			for range roots {
				tk.Go(func(tk Task) {
					for range per {
						tk.Go(func(tk Task) { tk.Go(trivial) })
					}
				})
			}
		}
	})
}

// BenchmarkSchedGoschedPingPong: two Gs on one P alternate with Gosched.
// Native: two goroutines calling runtime.Gosched on GOMAXPROCS=1.
func BenchmarkSchedGoschedPingPong(b *testing.B) {
	b.Run("impl=native", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		var wg sync.WaitGroup
		wg.Add(2)
		for range 2 {
			go func() {
				defer wg.Done()
				for range b.N / 2 {
					runtime.Gosched()
				}
			}()
		}
		wg.Wait()
	})
	runOn(b, 1, func(n int) func(Task) {
		return func(tk Task) {
			for range 2 {
				tk.Go(func(tk Task) {
					for range n / 2 {
						tk.Gosched()
					}
				})
			}
		}
	})
}

// BenchmarkSchedParkReady: two Gs hand a token back and forth with
// Park/Ready (through runnext in G/M/P). Native: an unbuffered channel.
func BenchmarkSchedParkReady(b *testing.B) {
	b.Run("impl=native", func(b *testing.B) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		c1, c2 := make(chan struct{}), make(chan struct{})
		go func() {
			for range b.N / 2 {
				<-c1
				c2 <- struct{}{}
			}
		}()
		for range b.N / 2 {
			c1 <- struct{}{}
			<-c2
		}
	})
	runOn(b, 1, func(n int) func(Task) {
		return func(tk Task) {
			pp := &pingPong{}
			tk.Go(pp.bounded(0, int64(n)))
			tk.Go(pp.bounded(1, int64(n)))
		}
	})
}

// bounded is player i of a ping-pong that stops after n turns in all.
func (pp *pingPong) bounded(i int, n int64) func(Task) {
	return func(tk Task) {
		over := func() bool { return pp.count.Load() >= n }
		for {
			pp.waitTurn(tk, i, over)
			c := pp.count.Add(1)
			pp.passTurn(tk, i)
			if c >= n {
				return
			}
		}
	}
}
