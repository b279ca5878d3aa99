package spec

import (
	"context"
	"math/rand"
	"strings"
	"testing"
)

// With Bounds.PollBlock and Bounds.Timers off the model is the one it was
// before they existed: the same state counts, transitions and depths (the
// figures below were measured on the code without them, and re-measured
// when the model gained what the bounds do not touch: sysmon's handoffp
// as its own step, RetakeHandoff; runqgrab's runnext, StealEmptyRing then
// StealRunnext; exitsyscall's old P, ExitSyscallOldP; the no-P recheck's
// allp snapshot, MState.SnapPs; and when the first row's figure of 60193
// states turned out to merge a locked M's OldP into its NextP, the key's
// fault: TLC counts 61517 on GMP.tla at these bounds; and when
// sched.pidle became the runtime's LIFO list, State.IdlePs; and when the
// no-P recheck's becomeSpinning became a step of its own, MRecheckSpin),
// no new
// action and no new PC ever, and keys no longer than before but for the
// idle list.
func TestPollBoundsOffChangeNothing(t *testing.T) {
	sequentialUnderRace(t)
	for _, c := range []struct {
		b                   Bounds
		states, trans, dpth int
	}{
		{Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true, Netpoll: true, LockOSThread: true, SyscallBlock: true}, 68036, 186346, 44},
		{Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, STW: true, ProcResize: true}, 140658, 378408, 49},
	} {
		r, err := Explore(context.Background(), c.b, Options{Liveness: true, ThreadLimit: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict() != "pass" || r.Distinct != c.states || r.Transitions != int64(c.trans) || r.Depth != c.dpth {
			t.Fatalf("%v: %v, want %d states, %d transitions, depth %d", c.b, r, c.states, c.trans, c.dpth)
		}
	}
	// A random walk never meets the poller's or the timers' actions,
	// PCs or fields.
	md, _ := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 3, SchedTick: 2, Syscalls: true, Netpoll: true, InjectList: true})
	rng := rand.New(rand.NewSource(1))
	s := md.Init()
	keyLen := len(s.Key())
	for i := 0; i < 20000; i++ {
		acts := md.Enabled(s)
		if len(acts) == 0 {
			s = md.Init()
			continue
		}
		a := acts[rng.Intn(len(acts))]
		if a.Kind >= numBaseActionKinds {
			t.Fatalf("bounds off, yet %v is enabled", a)
		}
		var err error
		if s, err = md.Step(s, a); err != nil {
			s = md.Init()
			continue
		}
		for m := 0; m < s.NumMs(); m++ {
			ms := s.M[m]
			if ms.PC >= MTimersNoP || ms.WasSpinning || ms.PollUntil != 0 || ms.Checked || ms.Inherit {
				t.Fatalf("bounds off, yet m%d has poller state: %+v", m, ms)
			}
		}
		if s.LastPoll || s.PollUntil != 0 || s.TimerP != ([MaxGs + 1]uint8{}) {
			t.Fatalf("bounds off, yet the state has poller fields:\n%v", s)
		}
		if n := len(s.Key()); n > keyLen+s.NumPs()*MaxCap+MaxGs {
			t.Fatalf("key of %d bytes", n)
		}
	}
}

// Go 1.26 with the blocking poller passes every check, including (f),
// and the poller is used: an M blocks in netpoll, is woken by the
// network, and handoffp's last-P clause starts an M.
func TestPollBlockPasses(t *testing.T) {
	sequentialUnderRace(t)
	for _, b := range []Bounds{
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, LockOSThread: true},
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, SyscallBlock: true, Syscalls: true},
	} {
		mustPassLive(t, b)
	}
	kinds := walkKinds(t, Bounds{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 1, Netpoll: true, PollBlock: true, LockOSThread: true}, 200000)
	for _, k := range []ActionKind{ActNetpollBlock, ActNetpollReady, ActNetpollPidleget, ActNetpollNoP, ActStopLockedM} {
		if kinds[k] == 0 {
			t.Errorf("%v never taken", k)
		}
	}
}

// walkKinds counts the action kinds of random walks over b's model,
// checking every state's invariants and key on the way.
func walkKinds(t *testing.T, b Bounds, steps int) map[ActionKind]int {
	t.Helper()
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	seen := map[ActionKind]int{}
	s := md.Init()
	for i := 0; i < steps; i++ {
		acts := md.Enabled(s)
		if len(acts) == 0 || i%300 == 0 {
			s = md.Init()
			continue
		}
		a := acts[rng.Intn(len(acts))]
		ns, err := md.Step(s, a)
		if err == ErrNoIdleM {
			s = md.Init()
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v in\n%v", a, err, s)
		}
		if err := md.Check(ns); err != nil {
			t.Fatalf("%v after %v from\n%v\nto\n%v", err, a, s, ns)
		}
		if d := decodeKey(&ns, []byte(ns.Key())); d.Key() != ns.Key() || d != ns {
			t.Fatalf("key round trip: %v\nvs\n%v", ns, d)
		}
		seen[a.Kind]++
		s = ns
	}
	return seen
}

// Invariant 10 bites: each clause rejects a state broken for it.
func TestPollInvariantBites(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 2})
	if err != nil {
		t.Fatal(err)
	}
	base := md.Init()
	if err := md.Check(base); err != nil {
		t.Fatal(err)
	}
	// m1 blocked in netpoll, as NetpollBlock leaves it.
	polling := base
	polling.M[1] = MState{PC: MNetpoll, P: NoP}
	polling.LastPoll = false
	if err := md.Check(polling); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]func(s *State){
		"two pollers":            func(s *State) { s.M[2] = MState{PC: MNetpoll, P: NoP} },
		"lastpoll set":           func(s *State) { s.LastPoll = true },
		"pollUntil, no poller":   func(s *State) { s.M[1] = MState{PC: MIdle, P: NoP}; s.PollUntil = 2 },
		"past its timeout":       func(s *State) { s.PollUntil = 1 },
		"timer on a running G":   func(s *State) { s.TimerP[1] = 1 },
		"when without timer":     func(s *State) { s.TimerWhen[2] = 1 },
		"pollUntil on an idle M": func(s *State) { s.M[2].PollUntil = 2 },
		"wasSpinning at run":     func(s *State) { s.M[0].WasSpinning = true },
		"checked off the top":    func(s *State) { s.M[0].Checked = true },
	} {
		s := polling
		c(&s)
		err := md.Check(s)
		if ie, ok := err.(*InvariantError); !ok || (ie.Inv != InvPoll && ie.Inv != InvMShape) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// While an M blocks in netpoll the non-blocking polls are skipped
// (sched.lastpoll is 0): findRunnable's netpoll(0) and sysmon's; only the
// blocked poller's return readies a G from the network.
func TestPollersExclude(t *testing.T) {
	md, _ := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true})
	s := md.Init()
	s.G[2] = GWaiting
	s.M[1] = MState{PC: MPoll, P: 1}
	s.pidleget() // p1
	has := func(s State, k ActionKind) bool {
		for _, a := range md.Enabled(s) {
			if a.Kind == k {
				return true
			}
		}
		return false
	}
	if err := md.Check(s); err != nil {
		t.Fatal(err)
	}
	if !has(s, ActNetpoll) || !has(s, ActInjectGList) || has(s, ActNetpollReady) {
		t.Fatalf("nobody polls: want Netpoll and InjectGList, no NetpollReady:\n%v", md.Enabled(s))
	}
	s.M[2] = MState{PC: MNetpoll, P: NoP}
	s.LastPoll = false
	if err := md.Check(s); err != nil {
		t.Fatal(err)
	}
	if has(s, ActNetpoll) || has(s, ActInjectGList) || !has(s, ActNetpollReady) {
		t.Fatalf("m2 polls: want NetpollReady only:\n%v", md.Enabled(s))
	}
}

// handoffp's last-P clause is what keeps the network watched: without it
// (the seeded bug) liveness (f) fails; the trace ends with every P idle.
func TestHandoffpLastPollerClause(t *testing.T) {
	sequentialUnderRace(t)
	var c SeededBugCase
	for _, x := range SeededBugCases() {
		if x.Bounds.Bug == BugHandoffIgnoresPoller {
			c = x
		}
	}
	r, _ := Explore(context.Background(), c.Bounds, SeededBugOptions)
	if err := c.Match(r.Violation); err != nil {
		t.Fatal(err)
	}
	last := r.Violation.Trace.Steps[len(r.Violation.Trace.Steps)-1]
	if last.Action.Kind != ActStopLockedM || last.State.NPIdle != 2 || !last.State.LastPoll {
		t.Fatalf("want a stutter after StopLockedM idles the last P with nobody polling:\n%v", r.Violation)
	}
	if !strings.Contains(r.Violation.String(), "network unwatched") {
		t.Fatalf("%v", r.Violation)
	}
}

// mustPassLive explores b with liveness, Ms as the thread limit, and fails
// the test unless every check passes on the whole graph.
func mustPassLive(t *testing.T, b Bounds) {
	t.Helper()
	r := requirePass(t, b, Options{Liveness: true, ThreadLimit: true})
	t.Logf("%v: %v", b, r)
}
