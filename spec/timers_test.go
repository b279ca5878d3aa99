package spec

import (
	"context"
	"slices"
	"testing"
)

// Go 1.26 with timers passes every check, (e) included, for sleeps of one
// and two ticks; the two-tick graph and a random walk on larger bounds
// take every timer step, the poller's break and its timeout between
// them.
func TestTimersPass(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	var b Bounds
	for d := 1; d <= 2; d++ {
		b = Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: d}
		mustPassLive(t, b)
	}
	// The walk seldom meets the poller's break (a timer earlier than a
	// sleeping poller's, after the M's own poll lost the swap), and two
	// Ms never reach the no-P netpoll: each is in one or the other.
	wb := Bounds{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 2}
	taken := walkKinds(t, wb, 300000)
	md, _ := NewModel(b)
	g, _ := bfs(context.Background(), md, Options{})
	for i := 0; i < g.len(); i++ {
		for _, a := range md.Enabled(g.state(uint32(i))) {
			taken[a.Kind]++
		}
	}
	for _, k := range PollActionKinds() {
		if taken[k] == 0 {
			t.Errorf("%v: neither the walk on %v nor a state of %v enables it", k, wb, b)
		}
	}
}

// Liveness (e) assumes that the network eventually goes quiet. Without
// that, Go 1.26 fails it, and the lasso is the runtime's: an M whose G
// parks and is readied at once by findRunnable's netpoll(0), forever,
// never looks past its own P, and a due timer on an idle P waits (nothing
// on that path wakes a spinning M). The assumption is what the property
// needs, not a way around a model artefact.
func TestTimerLivenessNeedsAQuietNetwork(t *testing.T) {
	sequentialUnderRace(t)
	defer func(q bool) { timersQuietNet = q }(timersQuietNet)
	timersQuietNet = false
	b := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Violation
	if v == nil || v.Kind != KindTimerStuck || v.Trace.Loop < 0 {
		t.Fatalf("%v\n%v", r, v)
	}
	net := false
	for _, st := range v.Trace.Steps[v.Trace.Loop:] {
		net = net || st.Action.Kind.netReady()
	}
	if !net {
		t.Fatalf("the cycle has no network readiness:\n%v", v)
	}
	checkTraceReplays(t, b, v.Trace)
}

// findRunnable's top runs its own P's due timers before anything else,
// and a timer added earlier than the poller's wake-up breaks its sleep;
// with nobody polling, the sleeper's M calls wakep.
func TestTimerSteps(t *testing.T) {
	md, _ := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 2})
	s := md.Init()
	s.G[2], s.TimerP[2], s.TimerWhen[2] = GWaiting, 1, 0 // g2's timer on p0, due
	s.M[0] = MState{PC: MSched, P: 0}
	s.G[1] = GDead
	if err := md.Check(s); err != nil {
		t.Fatal(err)
	}
	acts := md.Enabled(s)
	if len(acts) == 0 || acts[0].Kind != ActCheckTimers || (len(acts) > 1 && acts[1].M == 0) {
		t.Fatalf("want CheckTimers alone for m0: %v", acts)
	}
	ns, err := md.Step(s, acts[0])
	if err != nil || ns.G[2] != GRunnable || ns.P[0].RunNext != 2 || ns.TimerP[2] != 0 || ns.M[0].Wake != WakePending || !ns.M[0].Checked {
		t.Fatalf("CheckTimers: %v\n%v", err, ns)
	}

	// g1 runs on p0 and sleeps 1 tick; m1 blocks in netpoll until +2.
	s = md.Init()
	s.M[1] = MState{PC: MNetpoll, P: NoP}
	s.LastPoll, s.PollUntil = false, 3
	if err := md.Check(s); err != nil {
		t.Fatal(err)
	}
	ns, err = md.Step(s, Action{Kind: ActTimerSleep, M: 0, P: 1})
	if err != nil || ns.M[1].PC != MNetpollRet || ns.M[0].Wake != WakeNone {
		t.Fatalf("a timer earlier than the poller's: want its sleep broken: %v\n%v", err, ns)
	}
	ns, err = md.Step(s, Action{Kind: ActTimerSleep, M: 0, P: 2})
	if err != nil || ns.M[1].PC != MNetpoll {
		t.Fatalf("a timer as late as the poller's: want no break: %v\n%v", err, ns)
	}
	// The clock's tick reaches the poller's deadline: it returns.
	ns, _ = md.Step(ns, Action{Kind: ActTimerTick, M: NoP, P: NoP})
	if ns.M[1].PC != MNetpoll || ns.TimerWhen[1] != 1 || ns.PollUntil != 2 {
		t.Fatalf("tick: %v", ns)
	}
	ns, _ = md.Step(ns, Action{Kind: ActTimerTick, M: NoP, P: NoP})
	if ns.M[1].PC != MNetpollRet || ns.TimerWhen[1] != 0 || ns.PollUntil != 1 {
		t.Fatalf("tick: %v", ns)
	}
	// Nobody polls: wakep.
	s = md.Init()
	ns, err = md.Step(s, Action{Kind: ActTimerSleep, M: 0, P: 1})
	if err != nil || ns.M[0].Wake != WakePending || ns.M[0].PC != MSched {
		t.Fatalf("nobody polls: want wakep: %v\n%v", err, ns)
	}
}

func TestPollBoundsValidate(t *testing.T) {
	for _, b := range []Bounds{
		{Ps: 2, Gs: 2, Cap: 2, PollBlock: true},
		{Ps: 2, Gs: 2, Cap: 2, Netpoll: true, Timers: 1},
		{Ps: 2, Gs: 2, Cap: 2, Netpoll: true, PollBlock: true, Timers: MaxTimerDelay + 1},
		{Ps: 5, Gs: 2, Cap: 2, Netpoll: true, PollBlock: true, Timers: 1},
		{Ps: 2, Gs: 2, Cap: 2, Netpoll: true, Bug: BugHandoffIgnoresPoller},
		{Ps: 2, Gs: 2, Cap: 2, Netpoll: true, PollBlock: true, Bug: BugTimersNotStolen},
	} {
		if err := b.Validate(); err == nil {
			t.Errorf("%v accepted", b)
		}
	}
	for _, b := range []Bounds{
		{Ps: 4, Gs: 8, Cap: 8, Netpoll: true, PollBlock: true, Timers: MaxTimerDelay},
		{Ps: 2, Gs: 2, Cap: 2, Netpoll: true, PollBlock: true, Timers: 1, STW: true, ProcResize: true},
	} {
		if err := b.Validate(); err != nil {
			t.Error(err)
		}
	}
}

// Every mechanism at once: random walks keep every invariant and every
// key decodes to its state. Each mechanism's own tests turn on a few of
// them; this one is where their fields share the key's spare bits (a
// goyield-next M running its G beside the poller's pollUntil once decoded
// as pollUntil 8).
func TestEveryMechanismWalk(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 3, Ms: 4, Gs: 4, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true, InjectList: true,
		SyscallBlock: true, LockOSThread: true, Goyield: true, STW: true, ProcResize: true, PollBlock: true, Timers: 2}
	kinds := walkKinds(t, b, 200000)
	for _, k := range []ActionKind{ActReadyHandoff, ActNetpollBlock, ActStopLockedM, ActInjectGList} {
		if kinds[k] == 0 {
			t.Errorf("%v never taken", k)
		}
	}
}

// TestMaxBoundsWalk: random walks at the largest bounds Validate takes,
// every mechanism on (timers allow at most 4 Ps, so a second model has 8
// Ps without them). The state's arrays are sized by those maxima, so a
// loop over the Ms, Gs or Ps that runs one turn too far reads past them
// only here: spec/timers.go:72:16 (seed 1138), tickEnabled's loop over
// the Ms made '<=', was caught only by a driver test with 12 Ms, after
// five minutes.
func TestMaxBoundsWalk(t *testing.T) {
	sequentialUnderRace(t)
	for _, b := range []Bounds{
		{Ps: 4, Ms: MaxMs, Gs: MaxGs, Cap: MaxCap, Spawn: MaxGs - 1, SchedTick: 2, Syscalls: true, Netpoll: true, InjectList: true,
			SyscallBlock: true, LockOSThread: true, Goyield: true, STW: true, ProcResize: true, PollBlock: true, Timers: MaxTimerDelay},
		{Ps: MaxPs, Ms: MaxMs, Gs: MaxGs, Cap: MaxCap, Spawn: MaxGs - 1, SchedTick: 2, Syscalls: true, Netpoll: true, InjectList: true,
			SyscallBlock: true, LockOSThread: true, Goyield: true, STW: true, ProcResize: true},
	} {
		kinds := walkKinds(t, b, 20000)
		if kinds[ActNewProc] == 0 || kinds[ActSteal] == 0 {
			t.Errorf("%+v: the walk never spawned or stole: %v", b, kinds)
		}
	}
}

// Go 1.26 strands a due timer when the M that watched it leaves: m0,
// which put g1's timer on p0, spins, releases p0 and, past its recheck,
// sees the timer on the idle p0 (CheckTimersNoP) and sleeps in netpoll
// until it; the network readies g2 first, so m0 takes the P idled last,
// p1, and runs g2, which locks its thread and parks. m1, which released p1
// without spinning (so without checkTimersNoP), blocks in netpoll with no
// timeout, and then m0's stoplockedm hands p1 off: handoffp sees someone
// in netpoll (sched.lastpoll is 0) and only p1's own timers, so p1 goes
// idle and nobody ever runs p0's timer. The same bounds without
// LockOSThread pass: there m0 goes on to findRunnable, spins, and steals
// the timer.
func TestLockedHandoffStrandsADueTimer(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1, LockOSThread: true}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Violation
	if v == nil || v.Kind != KindTimerStuck || !v.Trace.Stutter || len(v.Trace.Steps) != 35 {
		t.Fatalf("want a 35-step stutter of liveness (e): %v\n%v", r, v)
	}
	checkTraceReplays(t, b, v.Trace)
	var last []ActionKind
	for _, st := range v.Trace.Steps[len(v.Trace.Steps)-3:] {
		last = append(last, st.Action.Kind)
	}
	if !slices.Equal(last, []ActionKind{ActNetpollBlock, ActStopLockedM, ActTimerTick}) {
		t.Fatalf("the trace ends with %v, want NetpollBlock, StopLockedM, TimerTick:\n%v", last, v)
	}
	s := v.Trace.Steps[len(v.Trace.Steps)-1].State
	if s.LastPoll || s.PollUntil != 0 || int(s.NPIdle) != s.procs() {
		t.Fatalf("want every P idle and an M in netpoll with no timeout:\n%v", s)
	}

	b.LockOSThread = false
	mustPassLive(t, b)
}
