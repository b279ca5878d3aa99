package impl

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The runtime-style test of GOMAXPROCS changes at run time, in the spirit
// of the runtime's TestStopTheWorldDeadlock's GOMAXPROCS loop: SetProcs
// grows and shrinks the Ps while Gs spawn, yield and sleep, and no G may
// be lost.

// setProcsUnderLoad is the body: a spawn tree (fan 3, depth 6: 1,093 Gs)
// whose Gs Gosched, Sleep and spawn into their P's runnext, while SetProcs
// walks through sizes; afterwards every G must have run to its end (within
// limit), the last size must hold, and the scheduler must be quiescent.
func setProcsUnderLoad(cfg Config, sizes []int, limit time.Duration) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	defer s.Shutdown()
	const fan, depth = 3, 6
	var done, spawned atomic.Int64
	var spawn func(d int) func(Task)
	spawn = func(d int) func(Task) {
		return func(tk Task) {
			defer done.Add(1)
			if d%2 == 0 {
				tk.Gosched()
			} else {
				tk.(TimerTask).Sleep(time.Duration(d) * 10 * time.Microsecond)
			}
			if d == depth {
				spin(tk, 100)
				return
			}
			for range fan {
				spawned.Add(1)
				if err := tk.Go(spawn(d + 1)); err != nil {
					panic(err)
				}
			}
			spin(tk, 100)
		}
	}
	spawned.Add(1)
	if err := s.Go(spawn(0)); err != nil {
		return err
	}
	want := int64(0)
	for i, n := 0, int64(1); i <= depth; i, n = i+1, n*fan {
		want += n
	}
	for round := 0; done.Load() < want && round < 400; round++ {
		n := sizes[round%len(sizes)]
		if _, err := s.SetProcs(n); err != nil {
			return fmt.Errorf("SetProcs(%d): %w", n, err)
		}
		if got := s.Procs(); got != n {
			return fmt.Errorf("SetProcs(%d): Procs() = %d", n, got)
		}
		time.Sleep(20 * time.Microsecond)
	}
	ok, err := waitWithin(s, limit)
	if !ok || err != nil {
		return fmt.Errorf("%d of %d Gs completed (%d spawned); Wait returned %v, err %v: %s", done.Load(), want, spawned.Load(), ok, err, s.SchedTrace())
	}
	if done.Load() != want || spawned.Load() != want {
		return fmt.Errorf("%d of %d Gs completed, %d spawned", done.Load(), want, spawned.Load())
	}
	return nil
}

// TestSetProcsUnderLoad: GOMAXPROCS grows and shrinks (1 to 8 Ps) while a
// spawn tree runs; every G completes, in each shell.
func TestSetProcsUnderLoad(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells {
		t.Run(sh.name, func(t *testing.T) {
			cfg := sh.cfg
			cfg.Procs = 2
			cfg.QueueCapacity = 8
			cfg.ForcePreempt = 200 * time.Microsecond
			if err := setProcsUnderLoad(cfg, []int{4, 1, 8, 3, 1, 2, 5}, stwLimit); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSetProcsQuiescent: after a shrink and a grow the scheduler is the
// one a fresh one of that size would be once its Gs exit: every P idle
// and empty, the Gs of destroyed Ps on the free lists, and the new Ps
// used.
func TestSetProcsQuiescent(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	s := newTestSched(t, Config{Procs: 4, QueueCapacity: 4})
	run := func(n int) {
		t.Helper()
		var ran atomic.Int64
		for range n {
			if err := s.Go(func(tk Task) { spin(tk, 50); ran.Add(1) }); err != nil {
				t.Fatal(err)
			}
		}
		if ok, err := waitWithin(s, stwLimit); !ok || err != nil || ran.Load() != int64(n) {
			t.Fatalf("returned %v, err %v, %d of %d ran", ok, err, ran.Load(), n)
		}
	}
	run(40)
	for _, n := range []int{1, 6, 2} {
		old, err := s.SetProcs(n)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.ps().allp) != n || s.ps().n != int32(n) {
			t.Fatalf("SetProcs(%d) from %d: allp has %d Ps", n, old, len(s.ps().allp))
		}
		run(40)
	}
	quiesce(t, s)
	if old, err := s.SetProcs(2); err != nil || old != 2 {
		t.Fatalf("SetProcs to the same size = %d, %v", old, err)
	}
}
