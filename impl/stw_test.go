package impl

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
	"go.uber.org/goleak"
)

// The runtime-style tests of stop-the-world, in the spirit of the runtime's
// TestStopTheWorldDeadlock and TestGCFairness: on the real concurrent
// scheduler, in each shell. Each body returns an error instead of failing
// a *testing.T, so that TestHooksImplBugsCaught (instrumented build) can run it
// against a seeded bug and require the error. Time limits are generous
// backstops that turn a hang into an error; no test measures a duration.

// worldLoad is a set of Gs that run until stop, each counting its rounds:
// CPU-bound ones (a loop with Checkpoints, which sysmon or a stop preempts),
// ones that Gosched, ones that Sleep and ones that make syscalls.
type worldLoad struct {
	stop   atomic.Bool
	rounds []atomic.Int64
	kinds  []string
	done   atomic.Int32
}

func startLoad(s *Sched, cpu, gosched, sleepers, syscalls int) (*worldLoad, error) {
	n := cpu + gosched + sleepers + syscalls
	l := &worldLoad{rounds: make([]atomic.Int64, n)}
	for i := range n {
		kind := "cpu"
		switch {
		case i >= cpu+gosched+sleepers:
			kind = "syscall"
		case i >= cpu+gosched:
			kind = "sleep"
		case i >= cpu:
			kind = "gosched"
		}
		l.kinds = append(l.kinds, kind)
		if err := s.Go(l.body(i, kind)); err != nil {
			return nil, err
		}
	}
	return l, nil
}

func (l *worldLoad) body(i int, kind string) func(Task) {
	return func(tk Task) {
		defer l.done.Add(1)
		for !l.stop.Load() {
			switch kind {
			case "cpu":
				spin(tk, 200)
			case "gosched":
				tk.Gosched()
			case "sleep":
				tk.(TimerTask).Sleep(20 * time.Microsecond)
			case "syscall":
				tk.Syscall(func() { time.Sleep(10 * time.Microsecond) })
			}
			l.rounds[i].Add(1)
		}
	}
}

// spin is CPU work with a Checkpoint every few iterations.
func spin(tk Task, n int) {
	x := uint64(1)
	for j := range n {
		x = x*6364136223846793005 + uint64(j)
		if j%16 == 0 {
			tk.Checkpoint()
		}
	}
	if x == 42 {
		fmt.Print("")
	}
}

// snapshot is every G's round count.
func (l *worldLoad) snapshot() []int64 {
	out := make([]int64, len(l.rounds))
	for i := range l.rounds {
		out[i] = l.rounds[i].Load()
	}
	return out
}

// checkStopped checks the stopped world: every P stopped, no M holding a
// P, no M spinning.
func checkStopped(s *Sched) error {
	s.glob.Lock()
	defer s.glob.Unlock()
	for _, pp := range s.ps().allp {
		if st := pp.status.Load(); st != pGCStop {
			return fmt.Errorf("world stopped but p%d has status %#x", pp.id, st)
		}
	}
	for _, m := range s.allm {
		if pp := m.p.Load(); pp != nil {
			return fmt.Errorf("world stopped but m%d holds p%d", m.id, pp.id)
		}
	}
	if n := s.nmspinning.Load(); n != 0 {
		return fmt.Errorf("world stopped with nmspinning %d", n)
	}
	return nil
}

// stwLimit bounds one stop in the tests: far above what a stop takes (a
// few preemption rounds), so that reaching it means the stop hangs.
const stwLimit = 20 * time.Second

// stopStartCycles is TestStopTheWorldDeadlock's body: the world is stopped
// and restarted cycles times while Gs run CPU loops, Gosched, Sleep and
// make syscalls; every stop must complete (within limit) with the world
// really stopped, and the Gs must all finish afterwards.
func stopStartCycles(cfg Config, cycles int, limit time.Duration) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	defer s.Shutdown()
	l, err := startLoad(s, 3, 2, 2, 1)
	if err != nil {
		return err
	}
	defer l.stop.Store(true) // before Shutdown, which waits for the Gs to yield
	for c := range cycles {
		if err := s.stopTheWorld(limit); err != nil {
			return fmt.Errorf("cycle %d: %w", c, err)
		}
		err := checkStopped(s)
		if serr := s.StartTheWorld(); serr != nil && err == nil {
			err = serr
		}
		if err != nil {
			return fmt.Errorf("cycle %d: %w", c, err)
		}
		if c%8 == 0 {
			time.Sleep(50 * time.Microsecond)
		}
	}
	l.stop.Store(true)
	if ok, err := waitWithin(s, limit); !ok || err != nil {
		return fmt.Errorf("after %d stops the Gs did not finish (returned %v, err %v): %s", cycles, ok, err, s.SchedTrace())
	}
	return nil
}

// TestStopTheWorldDeadlock: many stop/start cycles while Gs Gosched, Sleep,
// spin and make syscalls; no stop hangs, every stop leaves every P stopped
// and no M with a P, and the Gs finish afterwards.
func TestStopTheWorldDeadlock(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells {
		for _, procs := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/procs=%d", sh.name, procs), func(t *testing.T) {
				cfg := sh.cfg
				cfg.Procs = procs
				cfg.ForcePreempt = 200 * time.Microsecond
				if err := stopStartCycles(cfg, 60, stwLimit); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// gcFairness is TestGCFairness's body: CPU-bound Gs (more than Ps) run
// while the world is stopped and restarted over and over; every one of
// them must keep making progress, i.e. each must complete rounds after the
// stops began, while the stops go on (within limit).
func gcFairness(cfg Config, limit time.Duration) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	defer s.Shutdown()
	l, err := startLoad(s, 2*cfg.Procs+1, 0, 0, 0)
	if err != nil {
		return err
	}
	defer l.stop.Store(true) // before Shutdown, which waits for the Gs to yield
	start := l.snapshot()
	deadline := time.Now().Add(limit)
	for c := 0; ; c++ {
		if err := s.stopTheWorld(limit); err != nil {
			return fmt.Errorf("stop %d: %w", c, err)
		}
		if err := s.StartTheWorld(); err != nil {
			return err
		}
		if c >= 20 {
			lagging := -1
			for i, r := range l.snapshot() {
				if r <= start[i]+2 {
					lagging = i
					break
				}
			}
			if lagging < 0 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("after %d stops G %d made no progress (rounds %v, at the first stop %v)", c, lagging, l.snapshot(), start)
			}
		}
		time.Sleep(100 * time.Microsecond)
	}
	l.stop.Store(true)
	if ok, err := waitWithin(s, limit); !ok || err != nil {
		return fmt.Errorf("the Gs did not finish (returned %v, err %v)", ok, err)
	}
	return nil
}

// TestGCFairness: while the world stops and restarts every 100µs, every
// one of more CPU-bound Gs than Ps keeps making progress: a G preempted
// for a stop keeps its runnext but not a fresh time slice, so sysmon's
// preemption still rotates them.
//
// It needs two host threads. On one (GOMAXPROCS=1) the host switches
// goroutines only at its own preemption points, so sysmon's request and
// the next stop always reach a G in the same gap: the G sees the request
// with gcwaiting set and keeps its runnext (goschedImpl, as the runtime),
// and no G ever rotates. That is the host's schedule, not the scheduler's.
func TestGCFairness(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS >= 2: on one host thread every preemption lands during a stop")
	}
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells[:2] {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/procs=%d", sh.name, procs), func(t *testing.T) {
				cfg := sh.cfg
				cfg.Procs = procs
				cfg.ForcePreempt = 200 * time.Microsecond
				if err := gcFairness(cfg, stwLimit); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestStopTheWorldIdle: a stop with every P idle (no M ever started, and
// after every G exited) returns at once, and the scheduler runs Gs after
// the restart.
func TestStopTheWorldIdle(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newTestSched(t, Config{Procs: 3})
	for range 2 {
		if err := s.stopTheWorld(stwLimit); err != nil {
			t.Fatal(err)
		}
		if err := checkStopped(s); err != nil {
			t.Fatal(err)
		}
		// Work that arrives while the world is stopped waits for it.
		var ran atomic.Bool
		if err := s.Go(func(Task) { ran.Store(true) }); err != nil {
			t.Fatal(err)
		}
		if err := s.StartTheWorld(); err != nil {
			t.Fatal(err)
		}
		if ok, err := waitWithin(s, stwLimit); !ok || err != nil || !ran.Load() {
			t.Fatalf("after the restart: returned %v, err %v, ran %v", ok, err, ran.Load())
		}
	}
	s.Shutdown()
}

// TestStopTheWorldMisuse: the errors of the API.
func TestStopTheWorldMisuse(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newTestSched(t, Config{Procs: 2})
	if err := s.StartTheWorld(); !errors.Is(err, ErrWorldNotStopped) {
		t.Fatalf("StartTheWorld without a stop = %v, want %v", err, ErrWorldNotStopped)
	}
	if _, err := s.SetProcs(0); err == nil {
		t.Fatal("SetProcs(0) succeeded")
	}
	d, err := NewDriver(Config{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Sched().StopTheWorld(); err == nil {
		t.Fatal("StopTheWorld on the Driver succeeded")
	}
	s.Shutdown()
	if err := s.StopTheWorld(); !errors.Is(err, ErrShutdown) {
		t.Fatalf("StopTheWorld after Shutdown = %v, want %v", err, ErrShutdown)
	}
	if _, err := s.SetProcs(3); !errors.Is(err, ErrShutdown) {
		t.Fatalf("SetProcs after Shutdown = %v, want %v", err, ErrShutdown)
	}
}

// TestDriverStopTheWorld walks a stop-the-world and a procresize on the
// Driver, step by step: a spinning M stops spinning and then its P at
// findRunnable's top, the M running a G stops its P after the G is
// preempted (the G keeps runnext), the restart with three Ps starts an M for the P with
// work and leaves the new one idle; a second stop and a shrink to one P
// moves the destroyed Ps' queues to the global queue.
func TestDriverStopTheWorld(t *testing.T) {
	log := newEventLog(EvAction, EvProcResize)
	d, err := NewDriver(Config{Procs: 2, QueueCapacity: 4, Trace: log.trace})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Sched()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	status := func(p int) uint32 { return s.ps().allp[p].status.Load() }
	g2, err := d.NewProc(0)
	must(err)
	if err := d.StartTheWorld(0); err == nil {
		t.Fatal("StartTheWorld without a stop succeeded")
	}
	must(d.StopTheWorld())
	if err := d.StopTheWorld(); err == nil {
		t.Fatal("a second StopTheWorld succeeded")
	}
	// newproc's wakep started m1, spinning, on p1: both Ps run.
	if status(1) != uint32(spec.PRunning) || !s.allm[1].spinning || s.world.stopwait != 2 {
		t.Fatalf("after the stop's lock section: p1 %#x m1 spinning %v stopwait %d", status(1), s.allm[1].spinning, s.world.stopwait)
	}
	must(d.Step(1)) // gcstopm's first step: m1 stops spinning
	if s.allm[1].spinning || s.nmspinning.Load() != 0 || status(1) != uint32(spec.PRunning) {
		t.Fatalf("after gcstopm's first step: m1 spinning %v nmspinning %d p1 %#x", s.allm[1].spinning, s.nmspinning.Load(), status(1))
	}
	must(d.Step(1)) // gcstopm: p1 stopped
	must(d.Step(1)) // stopm
	if status(1) != pGCStop || s.world.stopwait != 1 || s.allm[1].pc != spec.MIdle {
		t.Fatalf("after m1's gcstopm: p1 %#x stopwait %d m1 %v", status(1), s.world.stopwait, s.allm[1].pc)
	}
	if err := d.StartTheWorld(0); err == nil {
		t.Fatal("StartTheWorld before every P stopped succeeded")
	}
	must(d.Preempt(0)) // g1 keeps runnext, g2 goes to the ring
	if next, ring := s.ps().allp[0].runq.Contents(); next != d.Main() || len(ring) != 1 || ring[0] != g2 {
		t.Fatalf("p0's queue after a preemption for the stop: runnext %v ring %v", next, ring)
	}
	must(d.Step(0)) // gcstopm
	if status(0) != pGCStop || s.world.stopwait != 0 || s.allm[0].pc != spec.MStop {
		t.Fatalf("after gcstopm: p0 %#x stopwait %d m0 %v", status(0), s.world.stopwait, s.allm[0].pc)
	}
	must(d.Step(0)) // stopm
	must(d.StartTheWorld(3))
	if s.Procs() != 3 || status(0) != uint32(spec.PRunning) || status(1) != uint32(spec.PIdle) || status(2) != uint32(spec.PIdle) {
		t.Fatalf("after the restart: procs %d p0 %#x p1 %#x p2 %#x", s.Procs(), status(0), status(1), status(2))
	}
	must(d.StartTheWorldWakep())
	// p0 (work) got an M; the stopper's wakep put a spinning M on the
	// top of sched.pidle, p2, the highest P put there; p1 stays idle.
	if status(2) != uint32(spec.PRunning) || status(1) != uint32(spec.PIdle) || s.nmspinning.Load() != 1 {
		t.Fatalf("after the restart: procs %d p0 %#x p1 %#x p2 %#x nmspinning %d", s.Procs(), status(0), status(1), status(2), s.nmspinning.Load())
	}
	if s.allm[0].p.Load() != s.ps().allp[0] {
		t.Fatal("m0 did not get p0 back")
	}
	// Shrink to one P with work on p0's queue: the queue stays, and the
	// global queue gets what the destroyed Ps held (nothing here).
	must(d.StopTheWorld())
	for _, i := range []int{0, 0, 1, 1, 1} { // m0: gcstopm, stopm; m1: stop spinning, gcstopm, stopm
		must(d.Step(i))
	}
	must(d.StartTheWorld(1))
	must(d.StartTheWorldWakep())
	if s.Procs() != 1 || len(s.ps().allp) != 1 {
		t.Fatalf("after the shrink: procs %d", s.Procs())
	}
	if log.count(EvProcResize, nil) != 2 {
		t.Errorf("%d ProcResize events, want 2", log.count(EvProcResize, nil))
	}
	// Each names the Ps before and after and no M or P: procresize runs
	// in the stopper, not in an M's step (2 -> 3, then 3 -> 1).
	var resizes [][2]int32
	log.mu.Lock()
	for _, e := range log.evs {
		if e.Kind == EvProcResize {
			if e.M != -1 || e.P != -1 {
				t.Errorf("%v: a ProcResize event with M %d P %d, want -1 -1", e, e.M, e.P)
			}
			resizes = append(resizes, [2]int32{e.Victim, e.N})
		}
	}
	log.mu.Unlock()
	if len(resizes) == 2 && (resizes[0] != [2]int32{2, 3} || resizes[1] != [2]int32{3, 1}) {
		t.Errorf("ProcResize events %v, want 2 -> 3 then 3 -> 1", resizes)
	}
	acts := map[spec.ActionKind]int{}
	log.mu.Lock()
	for _, e := range log.evs {
		if e.Kind == EvAction {
			acts[e.Action]++
		}
	}
	log.mu.Unlock()
	for k, n := range map[spec.ActionKind]int{spec.ActStopTheWorld: 2, spec.ActGCStopM: 6, spec.ActStartTheWorld: 2, spec.ActStartTheWorldWakep: 2} {
		if acts[k] != n {
			t.Errorf("%d %v actions, want %d", acts[k], k, n)
		}
	}
}

// TestNotStopped: the check after a stop-the-world reports a stopwait
// left above zero, and a P not in _Pgcstop even when stopwait says every P
// stopped (a miscount the other way).
func TestNotStopped(t *testing.T) {
	ps := func(status ...uint32) []*P {
		var out []*P
		for i, st := range status {
			pp := &P{id: int32(i)}
			pp.status.Store(st)
			out = append(out, pp)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		stopwait int32
		allp     []*P
		want     string // a substring of the report; "" for none
	}{
		{"stopped", 0, ps(pGCStop, pGCStop), ""},
		{"stopwait left", 1, ps(pGCStop, pGCStop), "stopwait 1"},
		{"a P still running", 0, ps(pGCStop, uint32(spec.PRunning)), "p1 status"},
		{"a P idle", 0, ps(uint32(spec.PIdle), pGCStop), "p0 status"},
	} {
		got := notStopped(tc.stopwait, tc.allp)
		if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: notStopped = %q, want a report with %q", tc.name, got, tc.want)
		}
	}
}
