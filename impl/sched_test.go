package impl

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func newTestSched(t testing.TB, cfg Config) *Sched {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

// parkSlot is where a test's G parks itself and publishes its Task, so that
// another G, or the test from outside, can ready it.
type parkSlot struct {
	mu sync.Mutex
	g  Task
}

// park publishes tk and parks it (reason names the wait).
func (ps *parkSlot) park(tk Task, reason string) {
	ps.mu.Lock()
	ps.g = tk
	tk.ParkUnlock(reason, &ps.mu)
}

// get returns the G that parked, or nil if none has yet.
func (ps *parkSlot) get() Task {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.g
}

// await yields tk until a G has parked in the slot, and returns that G.
func (ps *parkSlot) await(tk Task) Task {
	for {
		if g := ps.get(); g != nil {
			return g
		}
		tk.Gosched()
	}
}

func TestSchedSpawnTree(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, procs := range []int{1, 2, 4, 8} {
		s, err := New(Config{Procs: procs, QueueCapacity: 4})
		if err != nil {
			t.Fatal(err)
		}
		var ran atomic.Int64
		const fan, depth = 4, 5
		var spawn func(d int) func(Task)
		spawn = func(d int) func(Task) {
			return func(tk Task) {
				ran.Add(1)
				if d == depth {
					return
				}
				for range fan {
					if err := tk.Go(spawn(d + 1)); err != nil {
						t.Error(err)
					}
				}
			}
		}
		if err := s.Go(spawn(0)); err != nil {
			t.Fatal(err)
		}
		if err := s.Wait(); err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		for i, n := 0, int64(1); i <= depth; i, n = i+1, n*fan {
			want += n
		}
		if ran.Load() != want {
			t.Fatalf("procs=%d: ran %d Gs, want %d", procs, ran.Load(), want)
		}
		s.Shutdown()
	}
}

func TestSchedParkReadyChain(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	s := newTestSched(t, Config{Procs: 2})
	var slot parkSlot
	done := make(chan int, 1)
	s.Go(func(tk Task) {
		slot.park(tk, "test")
		done <- 1
	})
	s.Go(func(tk Task) {
		if err := tk.Ready(slot.await(tk)); err != nil {
			t.Error(err)
		}
	})
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	<-done
}

func TestSchedDeadlock(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := New(Config{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var slot parkSlot
	s.Go(func(tk Task) { slot.park(tk, "forever") })
	err = s.Wait()
	if !errors.Is(err, ErrDeadlock) {
		t.Fatalf("Wait = %v, want %v", err, ErrDeadlock)
	}
	if err.Error() != "all goroutines are asleep - deadlock!" {
		t.Fatalf("message %q", err)
	}
	// An outside Ready revives it.
	p := slot.get()
	if err := s.Ready(p); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(p); err == nil {
		t.Fatal("Ready of an exited G succeeded")
	}
	s.Shutdown()
	if err := s.Go(func(Task) {}); !errors.Is(err, ErrShutdown) {
		t.Fatalf("Go after Shutdown = %v", err)
	}
}

// waitWithin is s.Wait bounded by d: whether it returned in time, and its
// error.
func waitWithin(s Scheduler, d time.Duration) (bool, error) {
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err := <-done:
		return true, err
	case <-time.After(d):
		return false, nil
	}
}
