package impl

import (
	"fmt"
	"testing"
	"time"
)

// Benchmarks of the mechanisms whose tests only check completion: how long
// a stop-the-world takes with every P busy, a GOMAXPROCS change, and a
// Sleep's round trip through a timer (the time beyond the sleep itself).
//
//	go test -run '^$' -bench 'StopTheWorld|SetProcs|Sleep' ./impl

// BenchmarkStopTheWorld: a stop and a restart while 2·Procs CPU-bound Gs
// (Checkpoints every 16 iterations) keep every P busy; ns/op is one cycle.
func BenchmarkStopTheWorld(b *testing.B) {
	for _, procs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			s, err := New(Config{Procs: procs})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown()
			l, err := startLoad(s, 2*procs, 0, 0, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer l.stop.Store(true)
			b.ResetTimer()
			for range b.N {
				if err := s.StopTheWorld(); err != nil {
					b.Fatal(err)
				}
				if err := s.StartTheWorld(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSetProcs: GOMAXPROCS alternating between 2 and 4 under the same
// load; ns/op is one change.
func BenchmarkSetProcs(b *testing.B) {
	s, err := New(Config{Procs: 2})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown()
	l, err := startLoad(s, 4, 0, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer l.stop.Store(true)
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.SetProcs(2 + 2*(i%2)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSleep: one G sleeps 50µs b.N times, on an otherwise idle
// scheduler (its M sleeps in the poller until the timer) and next to
// CPU-bound Gs (the timer runs at a schedule point or is stolen); ns/op is
// one sleep, 50µs of it asked for.
func BenchmarkSleep(b *testing.B) {
	for _, busy := range []int{0, 4} {
		b.Run(fmt.Sprintf("busy=%d", busy), func(b *testing.B) {
			s, err := New(Config{Procs: 2, ForcePreempt: time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown()
			l, err := startLoad(s, busy, 0, 0, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer l.stop.Store(true)
			done := make(chan struct{})
			b.ResetTimer()
			if err := s.Go(func(tk Task) {
				for range b.N {
					tk.(TimerTask).Sleep(50 * time.Microsecond)
				}
				close(done)
			}); err != nil {
				b.Fatal(err)
			}
			<-done
		})
	}
}
