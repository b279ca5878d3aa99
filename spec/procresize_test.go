package spec

import (
	"context"
	"testing"
)

// After procresize shrinks gomaxprocs below the model's Ps, a spinning
// M's steal scan ends once it has visited every live P, short of
// scanDone's every P. The drop section that follows must end the scan as
// scanDone does: before, ReleaseP took the M to dropspin with its victims
// still in Scan, which invariant 7 rejects (8 steps: a syscall, the stop
// shrinking three Ps to two, wakep's spinning M visiting p1, ReleaseP).
// Two Ps cannot show it: shrunk to one, the scan has no victim to record.
// The smallest bounds found with three Ps, checked with liveness.
func TestProcResizeShrinkEndsTheStealScan(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	b := Bounds{Ps: 3, Ms: 3, Gs: 1, Cap: 2, Spawn: 0, SchedTick: 1, Syscalls: true, STW: true, ProcResize: true}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, Symmetry: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != "pass" {
		t.Fatalf("%v: %v", b, r)
	}
	t.Logf("%v: %v", b, r)
}

// procresize's destroy moves a dead P's timers to p0 (moveTimers), so a
// sleeping G on a destroyed P still wakes: the timers and stop-the-world
// model with procresize passes with liveness (without the move, invariant
// 9 rejects it in 10 steps: a G sleeps on p1, the stop shrinks to p0).
func TestProcResizeMovesTimers(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true,
		Timers: 1, STW: true, ProcResize: true}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != "pass" {
		t.Fatalf("%v: %v", b, r)
	}

	// The move itself, and invariant 9 on a timer left behind.
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init()
	s.G[1], s.TimerP[1], s.TimerWhen[1] = GWaiting, 2, 1
	for p := range 2 {
		s.P[p] = PState{Status: PGCStop}
	}
	if err := md.startTheWorld(&s, 1); err != nil {
		t.Fatal(err)
	}
	if s.TimerP[1] != 1 {
		t.Fatalf("g1's timer on P slot %d after p1's destroy, want p0 (1)", s.TimerP[1])
	}
	s.TimerP[1] = 2
	if err := md.checkSTWP(&s, 1); err == nil {
		t.Fatal("invariant 9 accepts a dead P that still holds a timer")
	}
}

// Go 1.26 loses a wakeup when GOMAXPROCS grows under a spinning M that has
// dropped its P: its no-P recheck walks the allp snapshot it took with the
// P, shorter than the new allp, while its nmspinning count has made the
// wakep of whoever queued work on a new P skip. The same bounds without
// procresize pass. docs/spec.md ("The allp snapshot and a growing
// GOMAXPROCS") has the trace and its proc.go statements.
func TestStaleAllpSnapshotLosesAWakeup(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true, STW: true, ProcResize: true}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Violation
	if v == nil || v.Kind != KindWorkConservation {
		t.Fatalf("%v: want a work-conservation failure, got %v", b, r)
	}
	// The stale recheck: an M whose snapshot is shorter than gomaxprocs
	// rechecks, after a StartTheWorld grew allp.
	stale, grown := false, false
	prev := v.Trace.Init
	for _, st := range v.Trace.Steps {
		a := st.Action
		if a.Kind == ActStartTheWorld && st.State.Procs > prev.Procs {
			grown = true
		}
		if grown && a.Kind == ActRecheckMiss && int(prev.M[a.M].SnapPs) < int(prev.Procs) {
			stale = true
		}
		prev = st.State
	}
	if !stale {
		t.Errorf("the lasso has no recheck over a snapshot shorter than a grown allp:\n%v", v.Trace)
	}
	b.ProcResize = false
	r, err = Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != "pass" {
		t.Errorf("%v: %v", b, r)
	}
}
