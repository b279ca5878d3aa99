package impl

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var stressLifecycles = flag.Int("impl.stress", 0, "G lifecycles for TestStress over all Procs (default 10^6, with or without -race; 2*10^4 with -short)")

// stressWorkload runs total G lifecycles on s: every G does a random mix of
// spawn, park, ready, gosched, syscall and exit. It returns the per-lifecycle
// finish counts.
type stressWorkload struct {
	s       *Sched
	total   int64
	created atomic.Int64
	live    atomic.Int64
	done    []atomic.Int32
	rescued atomic.Int64
	local   bool // mixedStep's local mix: no Gosched, so idle Ps must steal

	waitList
}

func (w *stressWorkload) spawn(parent Task, seed uint64) bool {
	if parent != nil && w.live.Load() > int64(64*w.s.Procs()) {
		// Keep the population small so that dead Gs are reused.
		return w.created.Load() < w.total
	}
	w.live.Add(1)
	idx := w.created.Add(1) - 1
	if idx >= w.total {
		w.live.Add(-1)
		return false
	}
	body := func(tk Task) { w.body(tk, idx, seed) }
	var err error
	if parent == nil {
		err = w.s.Go(body)
	} else {
		err = parent.Go(body)
	}
	if err != nil {
		panic(err)
	}
	return true
}

func (w *stressWorkload) body(tk Task, idx int64, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(idx)))
	for step := 0; ; step++ {
		switch w.mixedStep(tk, r, step, "stress", w.local) {
		case opSpawn:
			if !w.spawn(tk, r.Uint64()) && step > 8 {
				w.finish(tk, idx)
				return
			}
		case opExit:
			if step > 2 {
				w.finish(tk, idx)
				return
			}
		}
	}
}

// finish readies one waiter (so that parked Gs keep being woken) and
// records the lifecycle's end.
func (w *stressWorkload) finish(tk Task, idx int64) {
	w.readyOne(tk)
	w.done[idx].Add(1)
	w.live.Add(-1)
}

// run spawns the roots and waits; a deadlock (every live G parked) is
// resolved by readying the waiters from outside, which also exercises
// checkdead and injectglist.
func (w *stressWorkload) run() error {
	for range 4 * w.s.Procs() {
		w.spawn(nil, rand.Uint64())
	}
	for {
		err := w.s.Wait()
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrDeadlock) {
			return err
		}
		n, rerr := w.readyAll(w.s)
		if rerr != nil {
			return rerr
		}
		if n == 0 {
			return fmt.Errorf("deadlock with no waiters: %w", err)
		}
		w.rescued.Add(int64(n))
	}
}

// quiesce waits until every M is idle, then checks conservation: no G left
// anywhere but the free lists, every P idle with an empty queue, counters
// back to zero.
func quiesce(t testing.TB, s *Sched) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.glob.Lock()
		idle := int(s.nmidle) == len(s.allm)
		s.glob.Unlock()
		if idle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Ms not idle after 10s: %s", s.SchedTrace())
		}
		runtime.Gosched()
	}
	sn := s.Snapshot()
	if sn.NPIdle != int32(s.Procs()) || sn.NMSpinning != 0 || len(sn.Runq) != 0 {
		t.Fatalf("not quiescent: npidle=%d nmspinning=%d runq=%d", sn.NPIdle, sn.NMSpinning, len(sn.Runq))
	}
	free := s.gfree.q.Len()
	for i, p := range sn.Ps {
		if p.Status != 0 || p.RunNext != nil || len(p.Ring) != 0 {
			t.Fatalf("p%d not idle and empty: %+v", i, p)
		}
		free += s.allp[i].gFree.Len()
	}
	for _, g := range sn.Gs {
		if g.Status() != Gdead {
			t.Fatalf("%v is %v at quiescence", g, g.Status())
		}
	}
	if free != len(sn.Gs) {
		t.Fatalf("free lists hold %d Gs, %d exist", free, len(sn.Gs))
	}
	st := s.Stats()
	if st.Spawned != st.Exited || s.Live() != 0 {
		t.Fatalf("spawned %d exited %d live %d", st.Spawned, st.Exited, s.Live())
	}
}

func TestStress(t *testing.T) {
	defer goleak.VerifyNone(t)
	total := 1_000_000
	switch {
	case *stressLifecycles > 0:
		total = *stressLifecycles
	case testing.Short():
		total = 20_000
	}
	procsList := []int{1, 2, 4, 8}
	// carrier is the 10^6 lifecycles; local is the mix without Gosched, in
	// which work spreads by stealing rather than through the global queue
	// (250,000 at each Procs but 1); handoff is a tenth as many, a smoke
	// test of the other shell (the same scheduler code).
	for _, variant := range []string{"carrier", "local", "handoff"} {
		for _, procs := range procsList {
			if variant == "local" && procs == 1 {
				continue // nobody to steal from
			}
			t.Run(fmt.Sprintf("%s/procs=%d", variant, procs), func(t *testing.T) {
				// A ring of 8 overflows to the global queue often, which
				// the carrier mix wants; the local mix gets the runtime's
				// 256 so that its work stays in the rings.
				capacity := 8
				if variant == "local" {
					capacity = DefaultQueueCapacity
				}
				s, err := New(Config{Procs: procs, QueueCapacity: capacity, HandoffShell: variant == "handoff"})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Shutdown()
				n := total / len(procsList)
				if variant == "handoff" {
					n /= 10
				}
				w := &stressWorkload{s: s, total: int64(n), local: variant == "local"}
				w.done = make([]atomic.Int32, w.total)
				start := time.Now()
				if err := w.run(); err != nil {
					t.Fatal(err)
				}
				for i := range w.done {
					if n := w.done[i].Load(); n != 1 {
						t.Fatalf("lifecycle %d finished %d times", i, n)
					}
				}
				quiesce(t, s)
				st := s.Stats()
				if w.local && st.Steals == 0 {
					t.Fatalf("the local mix never stole: the steal path went unexercised")
				}
				t.Logf("%d lifecycles in %v: steals=%d preempts=%d retakes=%d handoffs=%d Ms=%d outside-readies=%d Gs=%d",
					w.total, time.Since(start).Round(time.Millisecond), st.Steals, st.Preempts, st.Retakes, st.Handoffs, st.Ms, w.rescued.Load(), len(s.Snapshot().Gs))
			})
		}
	}
}
