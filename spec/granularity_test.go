package spec

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Each test here is a behaviour of proc.go that a coarser model forbade:
// an interleaving between two shared accesses that the spec once took as
// one step. Each was seen in the concurrent impl's real runs and rejected
// by trace validation (docs/conformance.md) before the split.

// granularityState starts from Init with Ms 1.. holding the other Ps at
// the given PC, none spinning unless spin says so: the shape findRunnable
// leaves after startm, written down directly.
func granularityState(t *testing.T, md Model, pc MPC, spin bool) State {
	t.Helper()
	s := md.Init()
	for s.pidleget() >= 0 {
	}
	for p := 1; p < md.b.Ps; p++ {
		s.M[p] = MState{PC: pc, P: int8(p), Spinning: spin}
		if spin {
			s.NMSpinning++
		}
	}
	if err := md.Check(s); err != nil {
		t.Fatalf("test state breaks an invariant: %v\n%v", err, s)
	}
	return s
}

// steps applies each action in turn: each must be enabled.
func steps(t *testing.T, md Model, s State, acts ...Action) State {
	t.Helper()
	for _, a := range acts {
		var err error
		if s, err = md.Step(s, a); err != nil {
			t.Fatalf("%v: %v\nenabled: %v\n%v", a, err, md.Enabled(s), s)
		}
		if err := md.Check(s); err != nil {
			t.Fatalf("after %v: %v", a, err)
		}
	}
	return s
}

func mAct(k ActionKind, m int8) Action { return Action{Kind: k, M: m, P: NoP} }

// Two Ms may both pass the spinning limit: each reads nmspinning before
// the other's becomeSpinning adds to it, so more Ms spin than the limit
// allows any one of them to see.
func TestSpinLimitReadApartFromBecomeSpinning(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 4, Ms: 4, Gs: 1, Cap: 2, SchedTick: 2})
	if err != nil {
		t.Fatal(err)
	}
	// With four busy Ps at most two Ms may spin (2*nmspinning < 4).
	s := granularityState(t, md, MPoll, false)
	s = steps(t, md, s, mAct(ActSpinOK, 1), mAct(ActSpinOK, 2), mAct(ActSpinOK, 3),
		mAct(ActBecomeSpinning, 1), mAct(ActBecomeSpinning, 2), mAct(ActBecomeSpinning, 3))
	if s.NMSpinning != 3 {
		t.Fatalf("want three spinning Ms, past the limit of two: nmspinning=%d", s.NMSpinning)
	}
	// Read after the others' increments, the limit refuses the third M.
	s = granularityState(t, md, MPoll, false)
	s = steps(t, md, s, mAct(ActSpinOK, 1), mAct(ActBecomeSpinning, 1), mAct(ActSpinOK, 2), mAct(ActBecomeSpinning, 2))
	if en := md.Enabled(s); !contains(en, mAct(ActSpinLimit, 3)) || contains(en, mAct(ActSpinOK, 3)) {
		t.Fatalf("with two Ms spinning, m3's limit read should refuse: enabled %v", en)
	}
}

// The global queue read at the top is not the 1/61 check's: work that
// lands in between is taken as a batch (globrunqgetbatch), not as the one
// G of the 1/61 check.
func TestTopReadsOneWordPerStep(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, SchedTick: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := granularityState(t, md, MSched, false)
	s = steps(t, md, s,
		mAct(ActGlobal61Miss, 1), // p1's tick is 0: m1 reads sched.runq, empty
		mAct(ActGosched, 0),      // g1 to sched.runq
		mAct(ActWakep, 0), mAct(ActWakepNoP, 0))
	en := md.Enabled(s)
	if !contains(en, mAct(ActGlobRunqGetBatch, 1)) || contains(en, mAct(ActGlobal61, 1)) {
		t.Fatalf("m1 past the 1/61 check should take a batch: enabled %v", en)
	}
}

// A spinning M that found work still counts in nmspinning until its
// resetspinning: a wakep in between sees it and skips, and the finder's own
// wakep after the decrement is what starts the next M.
func TestResetSpinningAfterTheFind(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := granularityState(t, md, MPoll, true)
	s = steps(t, md, s,
		mAct(ActNewProc, 0), mAct(ActWakepSkip, 0), // m1 spins: no wakep
		Action{Kind: ActStealEmptyRing, M: 1, P: 0}, // p0's ring is empty
		Action{Kind: ActStealRunnext, M: 1, P: 0})   // m1 takes g2 from p0's runnext
	if s.M[1].PC != MResetSpin || s.G[s.M[1].CurG] != GRunnable || s.NMSpinning != 1 {
		t.Fatalf("after the steal m1 should hold a runnable G and still count as spinning:\n%v", s)
	}
	s = steps(t, md, s, mAct(ActNewProc, 0))
	if en := md.Enabled(s); !contains(en, mAct(ActWakepSkip, 0)) {
		t.Fatalf("a wakep between the find and resetspinning should see nmspinning=1: enabled %v", en)
	}
	s = steps(t, md, s, mAct(ActWakepSkip, 0), mAct(ActResetSpinning, 1), mAct(ActWakep, 1))
	if s.NMSpinning != 1 || s.G[s.M[1].CurG] != GRunning {
		t.Fatalf("resetspinning then wakep: want m1 running its G and its wakep's CAS counted:\n%v", s)
	}
}

func contains(as []Action, a Action) bool {
	for _, b := range as {
		if a == b {
			return true
		}
	}
	return false
}

// checkRunqsNoP reads the live idle mask: findRunnable's idlepMaskSnapshot
// copies only the slice header of the pMask. Were it a copy of the bits,
// a P that was idle at the copy, then taken (here by netpoll's
// injectglist) and given work while the spinning M still counted in
// nmspinning (so the work's wakep skipped), would be passed over by the
// recheck: a lost wakeup the explorer finds at the verify bound (without
// syscalls, to keep the test fast).
func TestRecheckNeedsTheLiveIdleMask(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	b := VerifyBounds()
	b.Syscalls = false // the G that never stops just runs
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	md.idleSnapshot = true
	r := exploreModel(context.Background(), md, Options{Liveness: true, ThreadLimit: true})
	v := r.Violation
	if v == nil || v.Kind != KindWorkConservation {
		t.Fatalf("no lost wakeup with a copied idle mask: %v", r)
	}
	acts := fmt.Sprint(v.Trace.Actions())
	for _, step := range []string{"StealMiss(p1)", "InjectGList(g1)", "ReleaseP", "WakepSkip", "DropSpinning", "RecheckMiss(p0)", "StopM"} {
		if !strings.Contains(acts, step) {
			t.Errorf("the counterexample lacks %s: %s", step, acts)
		}
	}
	checkModelTraceReplays(t, md, v.Trace)
	t.Logf("%d steps: %s", v.Trace.Len(), acts)
}

// The no-P recheck takes its P under sched.lock and counts itself in
// nmspinning after the unlock (becomeSpinning, from PC RecheckSpin): in
// between, another M's wakep wins its CAS and finds no idle P, which the
// fused step (P and count at once) forbade. Trace validation rejected
// correct runs there (Procs 4, 2 December 2026).
func TestRecheckBecomesSpinningApart(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init() // m0 runs g1 on p0; p1 is idle
	s.M[1] = MState{PC: MRecheckP, P: NoP}
	if err := md.Check(s); err != nil {
		t.Fatalf("test state breaks an invariant: %v\n%v", err, s)
	}
	s = steps(t, md, s, mAct(ActRecheckRunqs, 1))
	if s.M[1].PC != MRecheckSpin || s.M[1].P != 1 || s.M[1].Spinning || s.NMSpinning != 0 || s.NPIdle != 0 {
		t.Fatalf("after RecheckRunqs m1 should hold p1, not yet spinning:\n%v", s)
	}
	s = steps(t, md, s, mAct(ActNewProc, 0))
	if en := md.Enabled(s); !contains(en, mAct(ActWakep, 0)) || contains(en, mAct(ActWakepSkip, 0)) {
		t.Fatalf("m0's wakep should win its CAS before m1 counts itself: enabled %v", en)
	}
	s = steps(t, md, s, mAct(ActWakep, 0), mAct(ActWakepNoP, 0), mAct(ActBecomeSpinning, 1))
	if s.M[1].PC != MSched || !s.M[1].Spinning || s.NMSpinning != 1 || s.NeedSpinning {
		t.Fatalf("m1 should spin at the top, its becomeSpinning having cleared the needspinning m0's wakep set:\n%v", s)
	}

	// RecheckGlobal keeps the G it took in hand until its becomeSpinning,
	// then resetspinning runs it.
	s = md.Init()
	s.M[2] = MState{PC: MRecheck, P: NoP}
	s = steps(t, md, s, mAct(ActGosched, 0), mAct(ActRecheckGlobal, 2)) // g1 to sched.runq, then m2 takes it and p1
	if s.M[2].PC != MRecheckSpin || s.M[2].CurG == NoG || s.M[2].Spinning {
		t.Fatalf("after RecheckGlobal m2 should hold its G, not yet spinning:\n%v", s)
	}
	s = steps(t, md, s, mAct(ActBecomeSpinning, 2))
	if s.M[2].PC != MResetSpin || !s.M[2].Spinning {
		t.Fatalf("after BecomeSpinning m2 should be about to resetspinning:\n%v", s)
	}
}
