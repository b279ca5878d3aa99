package impl

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
	"go.uber.org/goleak"
)

// cycle is one deterministic round of the scheduler's hot paths on one P:
// main spawns a G (runnext), yields (global queue), the M runs the new G
// (RunqGet), which exits, and then main again (from the global queue).
func cycle(s *Sched) {
	m := s.allm[0]
	s.newproc(m, nil)
	s.goschedImpl(m, false)
	for m.pc != spec.MRun {
		s.schedStep(m)
	}
	s.goexit0(m)
	for m.pc != spec.MRun {
		s.schedStep(m)
	}
}

// TestTraceOffNoAllocs: with Trace nil, the scheduler's hot paths allocate
// nothing (events are not built; dead Gs are reused).
func TestTraceOffNoAllocs(t *testing.T) {
	s, _, err := newDetSched(Config{Procs: 1})
	if err != nil {
		t.Fatal(err)
	}
	cycle(s)
	if n := testing.AllocsPerRun(1000, func() { cycle(s) }); n != 0 {
		t.Fatalf("%v allocations per cycle with tracing off", n)
	}
	var count int
	s.trace = func(Event) { count++ }
	if n := testing.AllocsPerRun(1000, func() { cycle(s) }); n != 0 {
		t.Fatalf("%v allocations per cycle with tracing on", n)
	}
	if count == 0 {
		t.Fatal("no events with tracing on")
	}
}

// BenchmarkTrace measures one cycle (5 scheduler actions) with the event
// stream off and on (a counting consumer).
func BenchmarkTrace(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			s, _, err := newDetSched(Config{Procs: 1})
			if err != nil {
				b.Fatal(err)
			}
			var n int
			if on {
				s.trace = func(Event) { n++ }
			}
			b.ReportAllocs()
			for b.Loop() {
				cycle(s)
			}
		})
	}
}

// TestEventStream checks the stream of a concurrent run: every G's status
// changes follow the legal transitions, and NewProc/GoExit/InjectGList
// counts add up.
func TestEventStream(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	var mu sync.Mutex
	var evs []Event
	s := newTestSched(t, Config{Procs: 2, Trace: func(e Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	}})
	var wmu sync.Mutex
	var waiter Task
	for range 20 {
		s.Go(func(tk Task) {
			for range 5 {
				tk.Go(func(tk Task) { tk.Gosched() })
			}
			wmu.Lock()
			if waiter == nil {
				waiter = tk
				tk.ParkUnlock("ev", &wmu)
				return
			}
			w := waiter
			waiter = nil
			wmu.Unlock()
			tk.Ready(w)
		})
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	legal := map[[2]Gstatus]bool{
		{Gidle, Grunnable}: true, {Gdead, Grunnable}: true, {Grunnable, Grunning}: true,
		{Grunning, Grunnable}: true, {Grunning, Gwaiting}: true, {Gwaiting, Grunnable}: true,
		{Grunning, Gdead}: true, {Grunning, Gsyscall}: true, {Gsyscall, Grunning}: true, {Gsyscall, Grunnable}: true,
	}
	last := map[uint64]Gstatus{}
	acts := map[spec.ActionKind]int{}
	for _, e := range evs {
		if err := e.Check(); err != nil {
			t.Fatal(err)
		}
		switch e.Kind {
		case EvGStatus:
			if !legal[[2]Gstatus{e.From, e.To}] {
				t.Fatalf("illegal transition %v", e)
			}
			if prev, ok := last[e.G]; ok && prev != e.From {
				t.Fatalf("g%d: %v after status %v", e.G, e, prev)
			}
			last[e.G] = e.To
		case EvAction:
			acts[e.Action]++
		}
	}
	for g, st := range last {
		if st != Gdead {
			t.Fatalf("g%d ends %v", g, st)
		}
	}
	if acts[spec.ActNewProc] != 100 || acts[spec.ActInjectGList] != 20 || acts[spec.ActGoExit] != 120 || acts[spec.ActGosched] != 100 {
		t.Fatalf("action counts %v", acts)
	}
}

var schedtraceRE = regexp.MustCompile(`^SCHED (\d+)ms: gomaxprocs=3 idleprocs=\d+ threads=\d+ spinningthreads=\d+ needspinning=[01] idlethreads=\d+ runqueue=\d+ \[ \d+ \d+ \d+ \] schedticks=\[ \d+ \d+ \d+ \]$`)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuf) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func TestSchedtrace(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	var out syncBuf
	s := newTestSched(t, Config{Procs: 3, SchedTrace: time.Millisecond, SchedTraceOut: &out})
	var stop atomic.Bool
	for range 3 {
		s.Go(func(tk Task) {
			for !stop.Load() {
				tk.Go(func(Task) {})
				tk.Gosched()
			}
		})
	}
	for {
		out.mu.Lock()
		n := bytes.Count(out.b.Bytes(), []byte("\n"))
		out.mu.Unlock()
		if n >= 3 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	out.mu.Lock()
	lines := bytes.Split(bytes.TrimSpace(out.b.Bytes()), []byte("\n"))
	out.mu.Unlock()
	// sysmon prints a line once SchedTrace has passed since the last:
	// consecutive lines' times (whole ms, so a 1 ms period) differ by at
	// least that.
	last := -1
	for _, l := range lines {
		m := schedtraceRE.FindSubmatch(l)
		if m == nil {
			t.Fatalf("bad schedtrace line %q", l)
		}
		ms, _ := strconv.Atoi(string(m[1]))
		if last >= 0 && ms-last < 1 {
			t.Errorf("schedtrace lines at %d ms and %d ms: closer than the 1 ms period", last, ms)
		}
		last = ms
	}
	if l := s.SchedTrace(); !schedtraceRE.MatchString(l[:len(l)-1]) {
		t.Fatalf("bad SchedTrace() %q", l)
	}
}

// schedtrace shows sched.needspinning's real value: with one P held by the
// running G, Gosched's wakep finds no idle P, and pidlegetSpinning sets the
// flag; the go1.19 variant has no such flag.
func TestSchedtraceNeedSpinning(t *testing.T) {
	for _, c := range []struct {
		gov  spec.GoVersion
		want string
	}{{spec.Go126, " needspinning=1 "}, {spec.Go119, " needspinning=0 "}} {
		d, err := NewDriver(Config{Procs: 1, Go: c.gov})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.NewProc(0); err != nil {
			t.Fatal(err)
		}
		if l := d.Sched().SchedTrace(); !strings.Contains(l, c.want) {
			t.Errorf("%v: %q lacks %q", c.gov, l, c.want)
		}
	}
}

// TestStartMEmittedUnderLock: startm emits EvStartM while it holds
// sched.lock, before the started M can run, so that in a recorded stream
// the event precedes the M's own events and any later startm of the same
// P (trace validation pairs them: conform's renameStartM). The Trace
// callback finds sched.lock held at every EvStartM; emitted after the
// unlock (as it was), handoffp's startm would find it free.
func TestStartMEmittedUnderLock(t *testing.T) {
	emittedUnderLock(t, "EvStartM", func(e Event) bool { return e.Kind == EvStartM })
}

// TestHandoffIdleEmittedUnderLock: handoffp emits the EvHandoff of a P it
// puts on the idle list while it holds sched.lock, so that the event
// precedes any later handoff of the P (trace validation pairs a
// RetakeHandoff with the first EvHandoff of its P). Emitted after the
// unlock, as it was, a descheduled sysmon's event came after another M's
// handoff of the same P, and a correct run was rejected (Procs 4, 4 runs
// in 2,400 under load).
func TestHandoffIdleEmittedUnderLock(t *testing.T) {
	emittedUnderLock(t, "idle EvHandoff", func(e Event) bool { return e.Kind == EvHandoff && !e.On })
}

// emittedUnderLock runs a workload of blocking syscalls (each a handoffp,
// to an M while there is work and to the idle list after)
// and fails t unless sched.lock is held at every event pick selects, and
// at least one is.
func emittedUnderLock(t *testing.T, what string, pick func(Event) bool) {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) })
	var s *Sched
	var mu sync.Mutex
	n, free := 0, 0
	s = newTestSched(t, Config{Procs: 2, Trace: func(e Event) {
		if !pick(e) {
			return
		}
		held := !s.glob.mu.TryLock()
		if !held {
			s.glob.mu.Unlock()
		}
		mu.Lock()
		n++
		if !held {
			free++
		}
		mu.Unlock()
	}})
	for range 20 {
		if err := s.Go(func(tk Task) {
			for range 3 {
				tk.Go(func(tk Task) { tk.Gosched() })
				tk.(ThreadTask).SyscallBlock(func() { time.Sleep(20 * time.Microsecond) })
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	// A lone G's syscalls once the others are done: with nothing to run,
	// handoffp puts its P on the idle list.
	if err := s.Go(func(tk Task) {
		for range 20 {
			tk.(ThreadTask).SyscallBlock(func() { time.Sleep(200 * time.Microsecond) })
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	mu.Lock()
	defer mu.Unlock()
	if n == 0 {
		t.Fatalf("no %s: the workload made none", what)
	}
	if free != 0 {
		t.Errorf("%d of %d %s emitted without sched.lock held", free, n, what)
	}
}

// TestEventCheck is the event contract's table: a Victim only where the
// event looks at a P, -1 elsewhere; no M on the kinds that name none.
func TestEventCheck(t *testing.T) {
	for _, c := range []struct {
		e  Event
		ok bool
	}{
		{Event{Kind: EvSteal, M: 0, P: 1, Victim: 0, G: 3, N: 1}, true},
		{Event{Kind: EvSteal, M: 0, P: 1, Victim: -1, G: 3, N: 1}, false},
		{Event{Kind: EvAction, Action: spec.ActRecheckMiss, M: 2, P: -1, Victim: 1}, true},
		{Event{Kind: EvAction, Action: spec.ActRecheckMiss, M: 2, P: -1, Victim: -1}, false},
		{Event{Kind: EvAction, Action: spec.ActCheckTimers, M: 0, P: 0, Victim: 0}, true},
		{Event{Kind: EvProcResize, M: -1, P: -1, Victim: 2, N: 3}, true},
		{Event{Kind: EvAction, Action: spec.ActPark, M: 0, P: 0, Victim: -1, G: 2}, true},
		{Event{Kind: EvAction, Action: spec.ActPark, M: 0, P: 0, Victim: 0, G: 2}, false},
		{Event{Kind: EvGCStopP, M: -1, P: 1, Victim: -1}, true},
		{Event{Kind: EvGCStopP, M: -1, P: 1, Victim: 1}, false},
		{Event{Kind: EvHandoff, M: -1, P: 1, Victim: -1, On: true}, true},
		{Event{Kind: EvHandoff, M: 0, P: 1, Victim: -1, On: true}, false},
		{Event{Kind: EvGStatus, M: 1, P: -1, Victim: -1, G: 1}, false},
		{Event{Kind: EvRunqPut, M: -2, P: 0, Victim: -1, G: 1}, false},
		{Event{Kind: numEventKinds, M: -1, P: -1, Victim: -1}, false},
	} {
		if err := c.e.Check(); (err == nil) != c.ok {
			t.Errorf("%v: Check = %v, want ok %v", c.e, err, c.ok)
		}
	}
	// What the scheduler emits reaches the user normalized: an event
	// with no victim carries -1 whatever its site left there, and so
	// does the M of a kind that names none.
	var got []Event
	tr := normalizedTrace(func(e Event) { got = append(got, e) })
	tr(Event{Kind: EvGCStopP, M: -1, P: 0})
	tr(Event{Kind: EvSteal, M: 0, P: 1, Victim: 0, G: 2, N: 1})
	tr(Event{Kind: EvHandoff, P: 1, On: true})
	if got[0].Victim != -1 || got[1].Victim != 0 || got[2].M != -1 || got[2].Victim != -1 {
		t.Fatalf("normalized: %+v", got)
	}
	if normalizedTrace(nil) != nil {
		t.Fatal("no trace function must stay none: the events are not built at all")
	}
}
