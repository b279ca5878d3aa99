package impl

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var watchdogTimeout = 60 * time.Second

// watchdog fails the test if done is not closed in time: the properties
// below are liveness properties, and a violation shows up as a hang. The
// bound is generous (no timing is asserted, only eventual progress).
func watchdog(t *testing.T, s *Sched, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(watchdogTimeout):
		// Not t.Fatal: Shutdown (in Cleanup) would wait forever for the
		// stuck Gs to yield.
		panic(fmt.Sprintf("%s: no progress after %v\n%s", what, watchdogTimeout, s.SchedTrace()))
	}
}

// TestParallelism: with Procs Ps, Procs Gs that each wait for all the
// others to be running at the same time must all get there, so every P runs
// a G at once. A second phase checks the safety side: with many more Gs
// than Ps, never more than Procs of them run at once.
func TestParallelism(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, procs := range []int{2, 4, 8} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			s := newTestSched(t, Config{Procs: procs})
			var running, maxRunning atomic.Int32
			enter := func() {
				n := running.Add(1)
				for {
					m := maxRunning.Load()
					if n <= m || maxRunning.CompareAndSwap(m, n) {
						break
					}
				}
			}
			done := make(chan struct{})
			var arrived, all atomic.Int32
			for range procs {
				s.Go(func(tk Task) {
					arrived.Add(1)
					for arrived.Load() < int32(procs) {
						// Spin without yielding to this scheduler: only
						// a G on another P can let us out.
					}
					if all.Add(1) == int32(procs) {
						close(done)
					}
				})
			}
			watchdog(t, s, done, "all Ps running")
			if err := s.Wait(); err != nil {
				t.Fatal(err)
			}
			// Safety: 4*procs Gs, each yielding at Checkpoints.
			maxRunning.Store(0)
			for range 4 * procs {
				s.Go(func(tk Task) {
					for range 200 {
						enter()
						for range 100 {
						}
						running.Add(-1)
						tk.Gosched()
					}
				})
			}
			if err := s.Wait(); err != nil {
				t.Fatal(err)
			}
			if m := maxRunning.Load(); m > int32(procs) {
				t.Fatalf("%d Gs ran at once on %d Ps", m, procs)
			}
		})
	}
}

// pingPong is a ping-pong pair that counts its turns.
type pingPong struct {
	pingPair
	count atomic.Int64
}

func (pp *pingPong) player(i int, stop *atomic.Bool, wg *sync.WaitGroup) func(Task) {
	return func(tk Task) {
		defer wg.Done()
		for {
			pp.waitTurn(tk, i, stop.Load)
			pp.count.Add(1)
			pp.passTurn(tk, i)
			if stop.Load() {
				// Hand over once more: the partner may have parked
				// after our last turn and cannot see stop.
				pp.mu.Lock()
				pp.passTurn(tk, i)
				return
			}
			for range 200 { // a little work per turn
			}
			tk.Checkpoint()
		}
	}
}

// TestPingPongNoStarvation: on one P, a ping-pong pair hands its time slice
// back and forth through runnext forever; another pair must still progress
// (sysmon's time slice preemption and the global queue see to it), within a
// factor of 20.
func TestPingPongNoStarvation(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	s := newTestSched(t, Config{Procs: 1})
	var stop atomic.Bool
	var wg sync.WaitGroup
	pairs := []*pingPong{{}, {}}
	for _, p := range pairs {
		wg.Add(2)
		s.Go(p.player(0, &stop, &wg))
		s.Go(p.player(1, &stop, &wg))
	}
	// Run long enough for many 10 ms slices.
	time.Sleep(400 * time.Millisecond)
	stop.Store(true)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	watchdog(t, s, done, "ping-pong pairs stop")
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	a, b := pairs[0].count.Load(), pairs[1].count.Load()
	t.Logf("pair progress %d and %d, preemptions %d", a, b, s.Stats().Preempts)
	if a == 0 || b == 0 || a > 20*b || b > 20*a {
		t.Fatalf("unfair: pair progress %d vs %d", a, b)
	}
}

// TestYieldProgress: a G that loops on Gosched waiting for a flag must let
// the G that sets the flag run, on a single P.
func TestYieldProgress(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	s := newTestSched(t, Config{Procs: 1, NoSysmon: true})
	var flag atomic.Bool
	done := make(chan struct{})
	s.Go(func(tk Task) {
		tk.Go(func(Task) { flag.Store(true) })
		for !flag.Load() {
			tk.Gosched()
		}
		close(done)
	})
	watchdog(t, s, done, "yield progress")
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
}

// TestTightLoopPreempted: a G spinning with only Checkpoints must be
// preempted by sysmon so that another G on the same single P can run.
func TestTightLoopPreempted(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	checkSpinnerPreempted(t, "tight loop preemption", func(Task) {})
}

// TestPreemptAfterSyscall: a G that returns from a syscall and then spins
// is preempted like any other (its P's time slice keeps being measured
// across the syscall).
func TestPreemptAfterSyscall(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	checkSpinnerPreempted(t, "preemption after syscall", func(tk Task) {
		tk.Syscall(func() { time.Sleep(2 * time.Millisecond) })
	})
}

// checkSpinnerPreempted runs, on a single P, a G that does before and then
// spins on Checkpoint until a second G stops it: the second G runs only if
// sysmon preempts the spinner.
func checkSpinnerPreempted(t *testing.T, what string, before func(Task)) {
	t.Helper()
	s := newTestSched(t, Config{Procs: 1})
	var stop atomic.Bool
	spinning := make(chan struct{})
	done := make(chan struct{})
	s.Go(func(tk Task) {
		before(tk)
		close(spinning)
		for !stop.Load() {
			tk.Checkpoint()
		}
		close(done)
	})
	<-spinning
	s.Go(func(Task) { stop.Store(true) })
	watchdog(t, s, done, what)
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if s.Stats().Preempts == 0 {
		t.Fatal("no preemption recorded")
	}
}

// TestSyscallRetake: while a G blocks in a long syscall on the only P, the
// P is retaken and handed off so that other Gs run.
func TestSyscallRetake(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	s := newTestSched(t, Config{Procs: 1})
	release := make(chan struct{})
	ran := make(chan struct{})
	s.Go(func(tk Task) {
		tk.Go(func(Task) { close(ran) })
		tk.Syscall(func() { <-release })
	})
	watchdog(t, s, ran, "retake from syscall")
	close(release)
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if s.Stats().Retakes == 0 {
		t.Fatal("no retake recorded")
	}
}
