package impl

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

// schedulers builds each implementation of Scheduler for one Procs.
func schedulers(t testing.TB, procs int) map[string]Scheduler {
	s, err := New(Config{Procs: procs})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Config{Procs: procs, HandoffShell: true})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Config{Procs: procs, PinThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	gm, err := NewGM(procs)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Scheduler{"gmp": s, "gmp-handoff": h, "gmp-locked": l, "gm": gm}
}

// TestBothSchedulers runs the same park/ready/spawn/syscall workload on
// both schedulers.
func TestBothSchedulers(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, procs := range []int{1, 2, 4} {
		for name, s := range schedulers(t, procs) {
			t.Run(fmt.Sprintf("%s/procs=%d", name, procs), func(t *testing.T) {
				defer s.Shutdown()
				var sum atomic.Int64
				var mu sync.Mutex
				var waiters []Task
				for i := range 50 {
					s.Go(func(tk Task) {
						for j := range 20 {
							tk.Go(func(Task) { sum.Add(1) })
							switch j % 4 {
							case 0:
								tk.Gosched()
							case 1:
								tk.Syscall(func() {})
							case 2:
								mu.Lock()
								if len(waiters) > 0 {
									w := waiters[0]
									waiters = waiters[1:]
									mu.Unlock()
									if err := tk.Ready(w); err != nil {
										panic(err)
									}
								} else if i%2 == 0 {
									waiters = append(waiters, tk)
									tk.ParkUnlock("w", &mu)
								} else {
									mu.Unlock()
								}
							}
						}
					})
				}
				for {
					err := s.Wait()
					if err == nil {
						break
					}
					if !errors.Is(err, ErrDeadlock) {
						t.Fatal(err)
					}
					mu.Lock()
					ws := waiters
					waiters = nil
					mu.Unlock()
					for _, w := range ws {
						if err := s.Ready(w); err != nil {
							t.Fatal(err)
						}
					}
				}
				if sum.Load() != 50*20 {
					t.Fatalf("sum %d", sum.Load())
				}
			})
		}
	}
}
