package spec

import (
	"strings"
	"testing"
)

// Tests added for the mutants of docs/mutation.md that every other check
// let live. Each names the mutant it kills.

// TestMutationKillSpecCheckEveryG kills spec/check.go's per-G loop
// g <= nG -> g < nG: Check must judge every G, the last one included.
func TestMutationKillSpecCheckEveryG(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 2, Gs: 3, Cap: 2, Spawn: 2})
	if err != nil {
		t.Fatal(err)
	}
	for g := 2; g <= 3; g++ {
		s := md.Init()
		s.G[g] = GRunnable // runnable but in no queue and no M's curg
		if err := md.Check(s); err == nil {
			t.Errorf("g%d runnable nowhere: not detected", g)
		}
	}
}

// TestMutationKillSpecRecheckEveryP kills spec/model.go's
// appendRecheckRunqs continue -> break: an M in checkRunqsNoP may look at
// any P it has not looked at yet, in any order, so in every reachable state
// its enabled recheck actions name exactly its unscanned Ps.
func TestMutationKillSpecRecheckEveryP(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[State]bool{}
	queue := []State{md.Init()}
	checked := 0
	for len(queue) > 0 && len(seen) < 20000 {
		s := queue[0]
		queue = queue[1:]
		if seen[s] {
			continue
		}
		seen[s] = true
		acts := md.Enabled(s)
		for m := 0; m < s.NumMs(); m++ {
			ms := s.M[m]
			if ms.PC != MRecheckRunqs {
				continue
			}
			checked++
			var want, got uint8
			for p := 0; p < s.NumPs(); p++ {
				if ms.Scan&(1<<p) == 0 {
					want |= 1 << p
				}
			}
			for _, a := range acts {
				// In checkRunqsNoP an M's only actions are its looks at
				// the Ps, each naming its P.
				if !a.Kind.external() && int(a.M) == m && a.P >= 0 {
					got |= 1 << a.P
				}
			}
			if got != want {
				t.Fatalf("m%d in checkRunqsNoP with scan %03b: recheck actions for Ps %03b, want %03b", m, ms.Scan, got, want)
			}
		}
		for _, a := range acts {
			next, err := md.Step(s, a)
			if err != nil {
				continue // a transition the M bound cuts
			}
			queue = append(queue, next)
		}
	}
	if checked == 0 {
		t.Fatal("no state with an M in checkRunqsNoP")
	}
	t.Logf("%d states, %d Ms in checkRunqsNoP checked", len(seen), checked)
}

// TestMutationKillSpecFullRingPop kills spec/runq.go's popFront
// i < N -> i <= N: on a ring of the largest capacity (MaxCap), full, the
// slot after the last is outside the array. (On any other ring that slot is
// already empty and the mutant changes nothing.)
func TestMutationKillSpecFullRingPop(t *testing.T) {
	sequentialUnderRace(t)
	var s State
	for i := range MaxCap {
		s.runqput(0, GID(i+1), false, MaxCap)
	}
	if s.P[0].N != MaxCap {
		t.Fatalf("ring holds %d, want %d", s.P[0].N, MaxCap)
	}
	for i := range MaxCap {
		if g, _ := s.P[0].runqget(); g != GID(i+1) {
			t.Fatalf("get %d: g%d, want g%d", i, g, i+1)
		}
	}
	var buf [MaxCap]GID
	for i := range MaxCap {
		s.runqput(1, GID(i+1), false, MaxCap)
	}
	if n := s.P[1].runqsteal(&buf); n != MaxCap/2 {
		t.Fatalf("steal of a full ring took %d, want %d", n, MaxCap/2)
	}
}

// TestMutationKillSpecScanString kills spec/state.go's scanString
// mask&(1<<p) -> mask|(1<<p): the invariant messages name the Ps of a scan.
func TestMutationKillSpecScanString(t *testing.T) {
	sequentialUnderRace(t)
	for mask, want := range map[uint8]string{0: "{}", 1: "{p0}", 0b101: "{p0,p2}"} {
		if got := scanString(mask); got != want {
			t.Errorf("scanString(%03b) = %q, want %q", mask, got, want)
		}
	}
}

// TestMutationKillMechSpecHandoffpWakesPoller kills the catalog mutant
// spec/handoffp-timers-no-wakenetpoller: handoffp idles a P with a timer
// while an M sleeps in netpoll past that timer, and must break the sleep
// (wakeNetPoller), or the timer waits for the poller's own deadline. No
// explored bound of the other checks reached a handoffp of a P with
// timers under a poller sleeping later.
func TestMutationKillMechSpecHandoffpWakesPoller(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 0, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 2, SyscallBlock: true})
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init()
	s.G[2], s.TimerP[2], s.TimerWhen[2] = GWaiting, 1, 1 // g2's timer on p0, due in a tick
	s.M[1] = MState{PC: MNetpoll, P: NoP}                // m1 asleep in netpoll until +2
	s.LastPoll, s.PollUntil = false, 3
	if err := md.Check(s); err != nil {
		t.Fatal(err)
	}
	var block *Action
	for _, a := range md.Enabled(s) {
		if a.Kind == ActEnterSyscallBlock && a.M == 0 {
			block = &a
		}
	}
	if block == nil {
		t.Fatalf("m0 cannot enter a blocking syscall: %v", md.Enabled(s))
	}
	ns, err := md.Step(s, *block)
	if err != nil {
		t.Fatal(err)
	}
	if ns.P[0].Status != PIdle {
		t.Fatalf("want p0 idled by handoffp: %v", ns)
	}
	if ns.M[1].PC != MNetpollRet {
		t.Fatalf("handoffp idled p0 with a timer due before the poller's deadline and the poller sleeps on: %v", ns)
	}
}

// TestMutationKillMechSpecLockCheckM0 kills spec/model.go's
// ExitSyscallLockCheck mutant "s.lockedm(g) >= 0" -> "> 0": in go1.17dev a
// G locked to m0 that left its syscall through the global queue must send
// m0 to stoplockedm (MLockedWait), not stopm. The explored bounds of the
// other checks never reach that step with the G locked to m0 (only the
// historical cfg does, where it is a failing trace). A breadth-first walk
// of a one-P model takes the step from every state where it is enabled.
// It also kills spec/check.go:164:71 (InvMShape's "exactly one of Inj and
// LockedG" at MExitLockCheck, == -> !=): every state of the walk with an M
// at the check must pass that clause of Check.
func TestMutationKillMechSpecLockCheckM0(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 1, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, Syscalls: true, LockOSThread: true, Go: Go117dev})
	if err != nil {
		t.Fatal(err)
	}
	checked, atCheck := 0, 0
	n := breadthFirst(md, 50000, func(s State) bool {
		for m := 0; m < s.NumMs(); m++ {
			if s.M[m].PC == MExitLockCheck {
				atCheck++
				// go1.17dev's own bug (golang/go#46524: an M at the check
				// handed a P by startlockedm) is an InvMShape failure too;
				// the mutated clause's message is another.
				if err := md.Check(s); err != nil && strings.Contains(err.Error(), "about to read the lockedm") {
					t.Fatalf("a reachable state with m%d about to read the lockedm fails Check: %v\n%v", m, err, s)
				}
			}
		}
		return true
	}, func(s State, a Action, next State) {
		if a.Kind != ActExitSyscallLockCheck {
			return
		}
		g := s.M[a.M].Inj
		if lg := s.M[a.M].LockedG; lg != NoG {
			g = lg
		}
		if m := s.lockedm(g); m >= 0 {
			checked++
			if next.M[a.M].PC != MLockedWait {
				t.Fatalf("m%d's lock check with g%d locked to m%d: pc %v, want MLockedWait\n%v", a.M, g, m, next.M[a.M].PC, s)
			}
		}
	})
	if checked == 0 || atCheck == 0 {
		t.Fatalf("%d lock checks of a locked G, %d states at the check, in %d states", checked, atCheck, n)
	}
	t.Logf("%d lock checks of a locked G, %d states at the check (each passes Check), in %d states", checked, atCheck, n)
}

// TestMutationKillSpecDropSpinShape kills spec/check.go's InvMShape
// clause mutants where the first || of "P != NoP || ..." became && (an M
// holding a P where it must hold none passes when the next clause does
// not fire): at MDropSpin (spinning, no G) and at MSyscallNoP (with its
// G), an M still holding p1 must fail with that clause's message.
func TestMutationKillSpecDropSpinShape(t *testing.T) {
	sequentialUnderRace(t)
	md, _ := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, Syscalls: true})
	for _, c := range []struct {
		name, msg string
		set       func(s *State)
	}{
		{"MDropSpin", "dropping spinning", func(s *State) {
			s.M[1] = MState{PC: MDropSpin, P: 1, Spinning: true}
			s.NMSpinning = 1
		}},
		{"MSyscallNoP", "in exitsyscallNoP", func(s *State) {
			s.M[0].PC = MSyscallNoP
			s.G[1] = GSyscall
		}},
	} {
		s := md.Init()
		c.set(&s)
		if err := md.Check(s); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s holding a P: Check says %v, want InvMShape's %q clause\n%v", c.name, err, c.msg, s)
		}
	}
}

// TestMutationKillSpecMaxPsEnabled kills spec/model.go's preemption loop
// mutant p < nP -> p <= nP, which reads one P past the model's: harmless
// below MaxPs (that slot is never running), an index out of range at
// MaxPs, the bound the trace checker uses for GOMAXPROCS 8. No explored
// bound of the other checks has eight Ps.
func TestMutationKillSpecMaxPsEnabled(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: MaxPs, Ms: MaxPs, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init()
	for range 20 {
		acts := md.Enabled(s)
		if len(acts) == 0 {
			break
		}
		if s, err = md.Step(s, acts[0]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMutationKillSpecSnapshotScanShape kills spec/check.go's mutant of
// the scan-shape clause's idle-snapshot exception (idleSnapshot && PC in
// {drop, dropspin, recheck} -> ||): in the snapshot variant too, an M at
// findRunnable's top with a steal scan in progress is a broken state.
func TestMutationKillSpecSnapshotScanShape(t *testing.T) {
	sequentialUnderRace(t)
	md, _ := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1})
	md.idleSnapshot = true
	s := md.Init()
	s.M[0].Scan = 1 << 1
	err := md.Check(s)
	if err == nil || !strings.Contains(err.Error(), "scan in progress") {
		t.Fatalf("m0 at %v with scan %02b in the idle-snapshot variant: Check says %v", s.M[0].PC, s.M[0].Scan, err)
	}
}

// TestMutationKillSpecStringPollUntil kills spec/state.go's printer guard
// PollUntil != 0 -> == 0: an M's pollUntil is printed only when it has
// one, so every counterexample's state lines (docs/bugs.md pins them) say
// nothing of a poller the model does not have.
func TestMutationKillSpecStringPollUntil(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 2, Gs: 2, Cap: 2, Netpoll: true, PollBlock: true, Timers: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init()
	if str := s.String(); strings.Contains(str, "polluntil") {
		t.Errorf("no M has a pollUntil, but the state prints one:\n%s", str)
	}
	s.M[0].PC, s.M[0].PollUntil = MTimersNoP, 2
	if str := s.String(); !strings.Contains(str, "polluntil=+1") {
		t.Errorf("m0's pollUntil (due in 1 tick) is not printed as +1:\n%s", str)
	}
	// spec/poller.go:219:35 (seed 1132): pu-1 ticks, not pu+1. Due
	// now (1) prints as such.
	for pu, want := range map[uint8]string{1: "due", 2: "+1", 5: "+4"} {
		if got := pollUntilString(pu); got != want {
			t.Errorf("pollUntilString(%d) = %q, want %q", pu, got, want)
		}
	}
}

// TestMutationKillSpecLockedMShape kills spec/check.go:84:11 (seed 1128),
// InvMShape's "!ok || Spinning || ..." -> "!ok && Spinning || ...": an M
// locked to a G must be running it, or waiting for it without a G
// (stoplockedm, the lock check), or in the scheduler; an M whose lock
// survives into the idle list is a broken shape even when it does not spin.
// The states are reachable ones with an M in stoplockedm, moved to the
// idle list.
func TestMutationKillSpecLockedMShape(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 1, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, Syscalls: true, LockOSThread: true})
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	n := breadthFirst(md, 0, func(s State) bool {
		for m := 0; m < s.NumMs(); m++ {
			if s.M[m].PC != MLockedWait || s.M[m].Spinning {
				continue
			}
			tried++
			bad := s
			bad.M[m].PC = MIdle
			if err := md.Check(bad); err == nil || !strings.Contains(err.Error(), "locked to") {
				t.Fatalf("m%d locked to g%d, moved from stoplockedm to the idle list: Check says %v, want InvMShape's locked-M clause\n%v", m, s.M[m].LockedG, err, bad)
			}
		}
		return tried < 20
	}, nil)
	if tried == 0 {
		t.Fatalf("no state with an M in stoplockedm among %d", n)
	}
}

// TestMutationKillSpecIdleMHoldsG kills spec/check.go:143:37 (seed 1129),
// InvMShape's idle-M clause "P != NoP || CurG != NoG || Spinning || ..."
// with its second || made &&: an M parked (or in the no-P recheck, or
// stopping) that still has a current G is a broken shape whether or not it
// spins.
func TestMutationKillSpecIdleMHoldsG(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, Syscalls: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range []MPC{MIdle, MStop, MRecheck} {
		s := md.Init()
		s.M[2] = MState{PC: pc, P: NoP, CurG: 1}
		if err := md.Check(s); err == nil || !strings.Contains(err.Error(), "holds") {
			t.Errorf("m2 at %v with curg g1: Check says %v, want InvMShape's idle-M clause\n%v", pc, err, s)
		}
	}
}

// TestMutationKillSpecTickEnabledReached kills spec/timers.go:64:17 (seed
// 1129), tickEnabled's "PollUntil > 1" -> ">= 1": a pollUntil of 1 has
// been reached (the poller's timeout fired), so the clock has nothing left
// to age there; ticking would be a step that changes nothing, and a state
// whose only step it is would not count as stuck. The same for an M's own
// pollUntil.
func TestMutationKillSpecTickEnabledReached(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 1, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		sched, mine uint8 // sched.pollUntil, m1's pollUntil
		want        bool
	}{
		{"nothing pending", 0, 0, false},
		{"the poller's timeout reached", 1, 0, false},
		{"the poller's timeout ahead", 2, 0, true},
		{"an M's pollUntil reached", 0, 1, false},
		{"an M's pollUntil ahead", 0, 2, true},
	} {
		s := md.Init()
		s.PollUntil, s.M[1].PollUntil = tc.sched, tc.mine
		if got := s.tickEnabled(); got != tc.want {
			t.Errorf("%s: tickEnabled = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestMutationKillSpecStringPSeparator kills spec/state.go:531:16 (seed
// 1129), State.String's loop over the Ps "p < nP" -> "p >= nP", which
// printed no P at all, and the " |" separator's "p > 0" -> "p <= 0": the P
// line lists p0 first and separates the next ones with " |", as the
// counterexamples in the docs and the tests' expectations read them.
func TestMutationKillSpecStringPSeparator(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 3, Ms: 3, Gs: 1, Cap: 2, SchedTick: 1})
	if err != nil {
		t.Fatal(err)
	}
	var pLine string
	for _, l := range strings.Split(md.Init().String(), "\n") {
		if strings.HasPrefix(l, "P ") {
			pLine = l
		}
	}
	if !strings.HasPrefix(pLine, "P  p0:") || strings.Count(pLine, " |") != 2 || !strings.Contains(pLine, " | p1:") || !strings.Contains(pLine, " | p2:") {
		t.Errorf("the P line %q: want \"P  p0:... | p1:... | p2:...\"", pLine)
	}
}

// breadthFirst visits md's reachable states breadth-first, at most limit
// of them (0: no limit), until visit returns false; edge, if not nil, sees
// every step taken from a visited state. It returns how many it visited.
func breadthFirst(md Model, limit int, visit func(State) bool, edge func(from State, a Action, to State)) int {
	r := newReach(md, limit, edge)
	for i := 0; ; i++ {
		s, ok := r.state(i)
		if !ok || !visit(s) {
			break
		}
	}
	return r.visited
}

// reach is breadthFirst's search, taken as far as its caller asks: a test
// that needs only the first state where something holds explores only up
// to it, and fails as soon as that state shows a fault. A state is marked
// seen when it is first reached, so the queue holds each state once: it is
// states[visited:], in the order reached, which is the order a queue of
// every successor, deduplicated when popped, would visit them.
type reach struct {
	md       Model
	limit    int
	edge     func(from State, a Action, to State)
	seen     map[State]bool
	states   blockLog[State] // in the order reached; the first visited were returned by state
	visited  int
	expanded int // states[:expanded] have had their steps taken
}

func newReach(md Model, limit int, edge func(from State, a Action, to State)) *reach {
	init := md.Init()
	r := &reach{md: md, limit: limit, edge: edge, seen: map[State]bool{init: true}}
	r.states.append(init)
	return r
}

// state returns the i-th state visited (false past the last, or the
// limit). A state's steps are taken when the next state is asked for, so a
// caller that stops at a state never sees its edges.
func (r *reach) state(i int) (State, bool) {
	for r.visited <= i {
		if r.expanded < r.visited {
			s := *r.states.at(r.expanded)
			r.expanded++
			for _, a := range r.md.Enabled(s) {
				next, err := r.md.Step(s, a)
				if err != nil {
					continue
				}
				if r.edge != nil {
					r.edge(s, a, next)
				}
				if !r.seen[next] {
					r.seen[next] = true
					r.states.append(next)
				}
			}
		}
		if r.visited == r.states.len() || (r.limit != 0 && r.visited >= r.limit) {
			return State{}, false
		}
		r.visited++
	}
	return *r.states.at(i), true
}

// TestMutationKillSpecShapeClauses kills invariant clauses weakened from ||
// to && (seed 1131): each row breaks one clause alone, in a state otherwise
// whole, and Check must name that clause.
//   - spec/check.go:129:94: InvMShape's goyield clause; a goyield flag on an
//     M whose G is in a system call (not running) is a broken shape with the
//     Goyield bound on too.
//   - InvGPlace's running-G clause; a running G that is also queued (its
//     P's runnext) is misplaced though it is the curg of exactly one M.
//   - spec/check.go:69:38 (seed 1132): InvLocked's "not live" clause,
//     "GIdle || GDead" made "&&"; an M locked to a G never created, or
//     to a dead one.
//
// TestMutationKillSpecRunnableInHandQueued has spec/check.go:277:37.
func TestMutationKillSpecShapeClauses(t *testing.T) {
	sequentialUnderRace(t)
	for _, c := range []struct {
		name, msg string
		b         Bounds
		set       func(s *State)
	}{
		{"goyield flag on a syscall", "is to goyield", Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, Syscalls: true, Goyield: true}, func(s *State) {
			s.G[1] = GSyscall
			s.M[0].Yield = true
		}},
		// spec/check.go:129:33 (seed 1138): the goyield clause's first ||
		// made &&; a goyield flag on an M that has left MRun but still
		// holds its P and its running G (a shape no step makes) is the
		// flag's own fault, reported by its clause.
		{"goyield flag off MRun", "is to goyield", Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, Goyield: true}, func(s *State) {
			s.M[0].PC = MSched
			s.M[0].Yield = true
		}},
		// spec/check.go:129:48 (seed 1138): the goyield clause's second
		// || made &&; a goyield flag on an M at MRun that has lost its P
		// (its G still running, a shape no step makes) is reported by the
		// flag's clause before the P and G checks see the lost P.
		{"goyield flag without a P", "is to goyield", Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, Goyield: true}, func(s *State) {
			s.M[0].P = NoP
			s.M[0].Yield = true
		}},
		{"running G queued too", "running g1", Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1}, func(s *State) {
			s.P[0].RunNext = 1
		}},
		{"locked to an unused G", "not live", Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, LockOSThread: true}, func(s *State) {
			s.M[1].LockedG = 2 // g2 is GIdle: never created
		}},
		{"locked to a dead G", "not live", Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, LockOSThread: true}, func(s *State) {
			s.G[2] = GDead
			s.M[1].LockedG = 2
		}},
	} {
		md, err := NewModel(c.b)
		if err != nil {
			t.Fatal(err)
		}
		s := md.Init()
		if err := md.Check(s); err != nil {
			t.Fatalf("%s: the initial state fails: %v", c.name, err)
		}
		c.set(&s)
		if err := md.Check(s); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Check says %v, want the clause %q\n%v", c.name, err, c.msg, s)
		}
	}
}

// TestMutationKillSpecRunnableInHandQueued kills spec/check.go:277:37
// (seed 1131), InvGPlace's runnable-G clause "(q != 1 || c != 0) && (q !=
// 0 || c != 1 || !inHand)" with its second group's first || made &&: a
// runnable G an M holds in hand (netpoll's second G, on its way to
// injectglist) must be in no queue; queued as well it is in two places.
// The states are reachable ones with an M holding such a G, the G then
// put on the global queue too.
func TestMutationKillSpecRunnableInHandQueued(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 1, Ms: 2, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Netpoll: true, InjectList: true})
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	n := breadthFirst(md, 0, func(s State) bool {
		for m := 0; m < s.NumMs(); m++ {
			g := s.M[m].Inj
			if g == NoG || s.G[g] != GRunnable || int(s.Runq.N) == len(s.Runq.Gs) {
				continue
			}
			tried++
			bad := s
			bad.Runq.Gs[bad.Runq.N] = g
			bad.Runq.N++
			if err := md.Check(bad); err == nil || !strings.Contains(err.Error(), "runnable "+gName(g)+" is in") {
				t.Fatalf("m%d holds %s for injectglist, which is queued too: Check says %v, want InvGPlace's runnable-G clause\n%v", m, gName(g), err, bad)
			}
		}
		return tried < 20
	}, nil)
	if tried == 0 {
		t.Fatalf("no state with an M holding a runnable G for injectglist among %d", n)
	}
}

// TestMutationKillSpecNetReady kills spec/actions.go:277:73 (seed 1134),
// netReady's last || made &&: the network readies a G in exactly four
// actions (findRunnable's netpoll with one G or two, sysmon's injectglist,
// the blocked poller's return), which timer liveness must not count as a
// quiet network.
func TestMutationKillSpecNetReady(t *testing.T) {
	sequentialUnderRace(t)
	net := map[ActionKind]bool{ActNetpoll: true, ActNetpollInject: true, ActInjectGList: true, ActNetpollReady: true}
	for k := ActionKind(0); k < numActionKinds; k++ {
		if got := k.netReady(); got != net[k] {
			t.Errorf("%v.netReady() = %v, want %v", k, got, net[k])
		}
	}
}

// TestMutationKillSpecPutBatchFills kills spec/runq.go:74:23 (seed 1134),
// runqputbatch's room check > -> >=: a batch that exactly fills the ring
// fits (the scheduler's callers put at most Cap/2 onto an empty ring, so
// only a direct call reaches the edge), one more does not.
func TestMutationKillSpecPutBatchFills(t *testing.T) {
	sequentialUnderRace(t)
	for _, capacity := range []int{2, 4, 8} {
		var ps PState
		gs := make([]GID, capacity)
		for i := range gs {
			gs[i] = GID(i + 1)
		}
		if !ps.runqputbatch(gs, capacity) || int(ps.N) != capacity {
			t.Errorf("cap %d: a batch of %d onto an empty ring: refused (N=%d)", capacity, capacity, ps.N)
		}
		var one PState
		one.N = 1
		if one.runqputbatch(gs, capacity) {
			t.Errorf("cap %d: a batch of %d onto a ring of 1 fits", capacity, capacity)
		}
	}
}

// TestMutationKillSpecInjectRunqputOverflow: injectglist's runqputbatch on
// the M's own P puts what fits and the rest on sched.runq. No model
// reaches the rest: the M came to netpoll with its ring empty, only it
// puts on that ring, and the model's list is one G. Coverage showed the
// fallback never ran, so a mutant that dropped the global put (losing the
// G) or negated its guard went unseen. The walk checks every reachable
// InjectRunqput (the G on the ring), and the first one again with the
// ring filled by hand: the G must go to sched.runq's tail, the ring
// unchanged.
func TestMutationKillSpecInjectRunqputOverflow(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 1, Ms: 2, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Netpoll: true, InjectList: true})
	if err != nil {
		t.Fatal(err)
	}
	step := func(s State, a Action) State {
		ns, err := md.Step(s, a)
		if err != nil {
			t.Fatalf("%v: %v\n%v", a, err, s)
		}
		return ns
	}
	taken, filled := 0, false
	n := breadthFirst(md, 0, func(s State) bool {
		for _, a := range md.Enabled(s) {
			if a.Kind != ActInjectRunqput {
				continue
			}
			taken++
			ms := s.M[a.M]
			g := ms.Inj
			ns := step(s, a)
			if err := md.Check(ns); err != nil {
				t.Fatalf("%v: %v\n%v", a, err, ns)
			}
			pp, np := s.P[ms.P], ns.P[ms.P]
			if ns.Runq != s.Runq || np.N != pp.N+1 || np.Ring[pp.N] != g {
				t.Fatalf("%v with room on p%d must put %s on its ring:\n%v\n->\n%v", a, ms.P, gName(g), s, ns)
			}
			if filled {
				continue
			}
			filled = true
			full := s // a copy: the walk's state stays as it is
			full.P[ms.P].N = uint8(md.b.Cap)
			for i := range md.b.Cap {
				full.P[ms.P].Ring[i] = GID(3 - i%2) // any Gs: only the put is judged
			}
			ns = step(full, a)
			if ns.Runq.N != full.Runq.N+1 || ns.Runq.Gs[full.Runq.N] != g || ns.P[ms.P] != full.P[ms.P] {
				t.Fatalf("%v with p%d's ring full must put %s on sched.runq's tail, the ring unchanged:\n%v\n->\n%v", a, ms.P, gName(g), full, ns)
			}
		}
		return true
	}, nil)
	if taken == 0 {
		t.Fatalf("InjectRunqput never enabled in %d states", n)
	}
}

// TestMutationKillSpecGo110devWithoutProcResize kills spec/model.go:881:22,
// RecheckMiss's 'liveAllp() && ProcResize' -> '||' (seed 1138), and
// spec/model.go:859:22, RecheckFound's same guard made '||': go1.10dev
// differs from the releases around it only in how the no-P recheck walks
// allp while procresize runs, so without procresize it is a correct
// scheduler and must pass, liveness included. Each mutant keeps an allp
// snapshot in a model with no procresize, which invariant 7 refuses.
// Every other test runs go1.10dev with procresize on, where the mutants'
// stores write the length the walk already holds. The second bounds are
// the first with a G to find: there the no-P recheck finds work
// (RecheckFound), which it never does at one G.
func TestMutationKillSpecGo110devWithoutProcResize(t *testing.T) {
	sequentialUnderRace(t)
	for _, b := range []Bounds{
		{Ps: 2, Ms: 2, Gs: 1, Cap: 2, Spawn: 1, SchedTick: 2, Go: Go110dev},
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Go: Go110dev},
	} {
		mustPassLive(t, b)
	}
}

// TestMutationKillSpecNilReadOnlyOnTheNewSlot kills spec/model.go:874:22
// (seed 1138), RecheckMiss's 'liveAllp() && STWGrown && P == Procs' with
// its first && made ||: in go1.10dev only a recheck of allp's new slot,
// grown and not yet filled, reads nil; the mutant makes every go1.10dev
// recheck one. Without stop-the-world the flag is not checked (checkSTW
// returns first), and with it the mutant's violation is just an earlier
// one, so no search told them apart. Here every RecheckMiss step is held to
// the rule, with and without stop-the-world, and the nil read must happen.
func TestMutationKillSpecNilReadOnlyOnTheNewSlot(t *testing.T) {
	sequentialUnderRace(t)
	for _, b := range []Bounds{
		{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, STW: true, ProcResize: true, Go: Go110dev},
		{Ps: 2, Ms: 2, Gs: 1, Cap: 2, Spawn: 1, SchedTick: 2, Go: Go110dev},
	} {
		md, err := NewModel(b)
		if err != nil {
			t.Fatal(err)
		}
		misses, nilReads := 0, 0
		breadthFirst(md, 20000, func(State) bool { return !t.Failed() }, func(from State, a Action, to State) {
			if a.Kind != ActRecheckMiss || from.NilRead {
				return
			}
			misses++
			newSlot := from.STW == STWGrown && a.P == from.Procs
			if to.NilRead {
				nilReads++
			}
			if to.NilRead != newSlot {
				t.Errorf("%+v: %v at stopper phase %d, gomaxprocs %d: nil read %v\nfrom %v", b, a, from.STW, from.Procs, to.NilRead, from)
			}
		})
		if misses == 0 || (b.STW && nilReads == 0) {
			t.Errorf("%+v: %d RecheckMiss steps, %d nil reads: the rule was not exercised", b, misses, nilReads)
		}
	}
}

// TestMutationKillSpecGrabPanicsOutsideBounds kills spec/localqueue.go's
// guard made "k < lo || k > hi && k == 0" (174:22) and "k < lo && k > hi
// || k == 0" (174:12), docs/mutation.md section 0u: Grab's contract is to
// panic on a batch outside GrabBounds, and no caller passes one, so no
// search saw the guard weakened. A Grab past the bound would take more than
// a thief may, or nothing, as if it had stolen.
func TestMutationKillSpecGrabPanicsOutsideBounds(t *testing.T) {
	sequentialUnderRace(t)
	q := LocalQueue{Cap: 4, Ring: []GID{1, 2, 3, 4}}
	lo, hi := q.GrabBounds()
	for _, k := range []int{lo - 1, hi + 1, len(q.Ring)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Grab(%d) of a ring of %d (bounds %d..%d) did not panic", k, len(q.Ring), lo, hi)
				}
			}()
			q.Grab(k)
		}()
	}
	if _, batch := q.Grab(hi); len(batch) != hi {
		t.Errorf("Grab(%d) took %v", hi, batch)
	}
	empty := LocalQueue{Cap: 4}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Grab(0) of an empty ring did not panic: nothing is no batch")
			}
		}()
		empty.Grab(0)
	}()
}

// TestMutationKillSpecIdleMaskEveryIdleP kills spec/model.go:1021:9 (seed
// 1138: idleMask's 'mask |= 1 << p' -> '='): the mask has a bit for every
// idle P, not only the last. The models that read it (idleSnapshot, at
// two Ps) never have two idle Ps at a scan's end, since the scanning M
// holds one, so only a direct look sees the difference.
func TestMutationKillSpecIdleMaskEveryIdleP(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 3, Ms: 3, Gs: 1, Cap: 2})
	if err != nil {
		t.Fatal(err)
	}
	// main starts on p0; p1 and p2 are idle.
	s := md.Init()
	if s.P[0].Status != PRunning || s.P[1].Status != PIdle || s.P[2].Status != PIdle {
		t.Fatalf("the initial state: want p0 running, p1 and p2 idle\n%v", s)
	}
	if got, want := s.idleMask(), uint8(0b110); got != want {
		t.Fatalf("idleMask %03b, want %03b\n%v", got, want, s)
	}
}

// TestMutationKillSpecPollStepsAreFair kills spec/actions.go:212:75 (seed
// 1138: schedStep's 'k >= ActNetpollBlock' -> '>'): every M step of the
// blocking poller and the timers is weakly fair per M like the schedule
// loop's (actions.go's comment on them); the network's readiness and the
// clock are external, and a G's time.Sleep is the G's step, as Gosched is.
func TestMutationKillSpecPollStepsAreFair(t *testing.T) {
	sequentialUnderRace(t)
	notM := map[ActionKind]bool{ActNetpollReady: true, ActTimerTick: true, ActTimerSleep: true}
	for _, k := range PollActionKinds() {
		if got, want := k.schedStep(), !notM[k]; got != want {
			t.Errorf("%v: schedStep %v, want %v", k, got, want)
		}
	}
	if ActGosched.schedStep() {
		t.Errorf("Gosched, a G's step, is a schedStep")
	}
}

// TestMutationKillSpecGo14StopNeedsOneLeft kills spec/model.go:290:35
// (seed 1138: go1.4's early second stop 'STWLeft > 0' -> '<= 0', and
// the boundary mutant '>= 0', which offers a stop the model has not). In
// go1.4 the stopper released worldsema before restarting the world, so a
// second stop-the-world may begin while the first is in force, but only
// one that the model still has to make (STWLeft counts them). The mutant
// moves that early stop from the first stop to the last: golang/go#10618
// is still found, one stop later, so every search that looks for it
// passes. Here the stopper's choice is held to the count in every state
// of the bug's own bounds, and both cases must occur.
func TestMutationKillSpecGo14StopNeedsOneLeft(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 1, Ms: 1, Gs: 1, Cap: 2, SchedTick: 2, Syscalls: true, STW: true, ProcResize: true, Go: Go14}
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	var early, last int // stopped worlds with stops left, and with none
	breadthFirst(md, 0, func(s State) bool {
		if s.STWLeft < 0 {
			t.Fatalf("a stop-the-world the model was not to make: STWLeft %d\n%v", s.STWLeft, s)
		}
		if s.STW != STWStopping || s.StopWait != 0 {
			return true
		}
		offered := false
		for _, a := range md.Enabled(s) {
			offered = offered || a.Kind == ActStopTheWorld
		}
		if offered != (s.STWLeft > 0) {
			t.Fatalf("stopped world with %d stops left: StopTheWorld enabled %v\n%v", s.STWLeft, offered, s)
		}
		if s.STWLeft > 0 {
			early++
		} else {
			last++
		}
		return true
	}, nil)
	if early == 0 || last == 0 {
		t.Fatalf("stopped worlds: %d with a stop left, %d with none; want both", early, last)
	}
}

// TestMutationKillSpecCheckedTopKeepsPollUntil kills spec/timers.go:223:55
// (seed 1138: leaveTop's 'Checked || P == NoP' -> '&&'). findRunnable
// reads its P's timers once, at checkTimers, and carries that pollUntil
// to the poll; leaveTop's look stands in for checkTimers only on a pass
// that has not run it. The mutant looks again at the M's next step, and
// the value differs when another M ran this P's due timers in between
// (stealWork's StealTimers). Here every step a checked M takes from the
// top to runqget must keep the pollUntil it checked, and one such step
// must find the heap changed since.
func TestMutationKillSpecCheckedTopKeepsPollUntil(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, Netpoll: true, PollBlock: true, Timers: 1})
	if err != nil {
		t.Fatal(err)
	}
	stale := 0
	n := breadthFirst(md, 300000, func(State) bool { return stale == 0 }, func(from State, a Action, to State) {
		if a.Kind.external() {
			return
		}
		ms := from.M[a.M]
		if ms.PC != MSched || !ms.Checked || ms.P == NoP || to.M[a.M].PC != MLocal {
			return
		}
		if got := to.M[a.M].PollUntil; got != ms.PollUntil {
			t.Fatalf("%v: m%d's pollUntil %d became %d (its P's earliest timer now %d)\nfrom %v", a, a.M, ms.PollUntil, got, from.nextTimer(int(ms.P)), from)
		}
		if from.nextTimer(int(ms.P)) != ms.PollUntil {
			stale++
		}
	})
	if stale == 0 {
		t.Fatalf("no checked M left the top after its P's timers changed, in %d states", n)
	}
}

// TestMutationKillSpecValidQueueCapRange kills spec/localqueue.go:22:21
// (seed 1138: 'c < MinQueueCap || c > MaxQueueCap' -> '&&', which no
// capacity satisfies): powers of two outside the range, and zero, whose
// c&(c-1) is 0 too, must be refused; every caller's capacity is in range,
// so nothing else tried one.
func TestMutationKillSpecValidQueueCapRange(t *testing.T) {
	sequentialUnderRace(t)
	for c, ok := range map[int]bool{0: false, 1: false, 3: false, 6: false, 2 * MaxQueueCap: false, -MinQueueCap: false,
		MinQueueCap: true, 4: true, MaxQueueCap: true} {
		if err := ValidQueueCap(c); (err == nil) != ok {
			t.Errorf("ValidQueueCap(%d) = %v, want ok %v", c, err, ok)
		}
	}
}

// TestMutationKillSpecInjectNoIdlePSetsNeedSpinning kills the catalog's
// spec/inject-no-needspinning (injectglist's startIdle finds no idle P
// and does not set needspinning) in seconds: in the -matrix run only the
// driver comparison caught it, after 159 s, since the explorer's bounds
// reach no lost wakeup from it. Since Go 1.21 startIdle takes its P with
// pidlegetSpinning, which sets needspinning when it finds none, so that
// the M that releases a P next starts a spinning M on it; every such step
// must set it (the first ten such steps are looked at; reaching them
// takes a second).
func TestMutationKillSpecInjectNoIdlePSetsNeedSpinning(t *testing.T) {
	sequentialUnderRace(t)
	md, err := NewModel(Bounds{Ps: 2, Ms: 2, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Netpoll: true, InjectList: true})
	if err != nil {
		t.Fatal(err)
	}
	taken := 0
	n := breadthFirst(md, 0, func(State) bool { return taken < 10 }, func(from State, a Action, to State) {
		if a.Kind != ActInjectStartIdle || from.NPIdle != 0 {
			return
		}
		taken++
		if !to.NeedSpinning {
			t.Errorf("%v with no idle P leaves needspinning clear\nfrom %v", a, from)
		}
	})
	if taken == 0 {
		t.Fatalf("InjectStartIdle never found the idle list empty in %d states", n)
	}
}
