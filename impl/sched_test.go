package impl

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

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
	defer goleak.VerifyNone(t)
	s, err := New(Config{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	var mu sync.Mutex
	var waiter Task
	done := make(chan int, 1)
	s.Go(func(tk Task) {
		mu.Lock()
		waiter = tk
		tk.ParkUnlock("test", &mu)
		done <- 1
	})
	s.Go(func(tk Task) {
		for {
			mu.Lock()
			w := waiter
			mu.Unlock()
			if w != nil {
				if err := tk.Ready(w); err != nil {
					t.Error(err)
				}
				return
			}
			tk.Gosched()
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
	var parked Task
	var mu sync.Mutex
	s.Go(func(tk Task) {
		mu.Lock()
		parked = tk
		tk.ParkUnlock("forever", &mu)
	})
	err = s.Wait()
	if !errors.Is(err, ErrDeadlock) {
		t.Fatalf("Wait = %v, want %v", err, ErrDeadlock)
	}
	if err.Error() != "all goroutines are asleep - deadlock!" {
		t.Fatalf("message %q", err)
	}
	// An outside Ready revives it.
	mu.Lock()
	p := parked
	mu.Unlock()
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
