package spec

import (
	"context"
	"testing"
)

// handoffp reads nmspinning (and npidle) before its sched.lock section,
// and the model takes both as one step (docs/spec.md, "Coarser steps").
// With the read taken apart (the staleHandoffRead knob: the read during
// another M's wakep, after its CAS, and the P idled after that wakep
// found no P), Go 1.26 loses a wakeup at small bounds: the wakep set
// needspinning, but handoffp's lock section does not look at it, so the P
// goes idle with the wakep's G queued and nobody spinning, until the
// waker's own G stops. Both ways handoffp runs show it: sysmon's
// (RetakeHandoff) and an M's own (StopLockedM). The one-step model passes
// at the same bounds.
func TestStaleHandoffReadLosesAWakeup(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	for _, tc := range []struct {
		name       string
		b          Bounds
		k          ActionKind
		one, apart int // states; the first pair is TLC's too (tla/apart/)
	}{
		{"retake", Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true}, ActRetakeHandoff, 27214, 28174},
		{"stoplockedm", Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, LockOSThread: true}, ActStopLockedM, 22320, 22616},
	} {
		md, err := NewModel(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		one := exploreModel(ctx, md, Options{Liveness: true, ThreadLimit: true})
		if one.Violation != nil || !one.Complete {
			t.Fatalf("%s: the one-step model: %v", tc.name, one)
		}
		md.staleHandoffRead = true
		r := exploreModel(ctx, md, Options{Liveness: true, ThreadLimit: true})
		if one.Distinct != tc.one || r.Distinct != tc.apart {
			t.Errorf("%s: %d states with one step, %d with the read apart; want %d and %d", tc.name, one.Distinct, r.Distinct, tc.one, tc.apart)
		}
		v := r.Violation
		if v == nil || v.Kind != KindWorkConservation {
			t.Fatalf("%s: no lost wakeup with handoffp's read apart: %v", tc.name, r)
		}
		stale := false
		for _, a := range v.Trace.Actions() {
			stale = stale || a.Kind == tc.k && a.Inj != 0
		}
		if !stale {
			t.Errorf("%s: the counterexample has no stale %v: %v", tc.name, tc.k, v.Trace.Actions())
		}
		checkModelTraceReplays(t, md, v.Trace)
		end := v.Trace.Steps[len(v.Trace.Steps)-1].State
		if !end.NeedSpinning || end.NMSpinning != 0 || end.NPIdle == 0 {
			t.Errorf("%s: want the cycle with needspinning set, nobody spinning and a P idle:\n%v", tc.name, end)
		}
		t.Logf("%s: %d steps: %v", tc.name, v.Trace.Len(), v.Trace.Actions())
	}
}

// With handoffp's lock section honouring needspinning (start a spinning M
// when it is set, as findRunnable's drop section keeps its P to spin), the
// stale read reaches no state the one-step handoffp does not: the same
// states with the knob and without, and no lost wakeup. So that one
// change to proc.go would make the model's one step exact.
func TestHandoffNeedSpinningMakesTheStepExact(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	for _, b := range []Bounds{
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true},
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, LockOSThread: true},
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true, LockOSThread: true, SyscallBlock: true},
	} {
		md, err := NewModel(b)
		if err != nil {
			t.Fatal(err)
		}
		md.handoffNeedSpinning = true
		ctx := context.Background()
		one := exploreModel(ctx, md, Options{Liveness: true, ThreadLimit: true})
		md.staleHandoffRead = true
		apart := exploreModel(ctx, md, Options{Liveness: true, ThreadLimit: true})
		if one.Violation != nil || apart.Violation != nil || !one.Complete || !apart.Complete {
			t.Fatalf("%+v: one step %v; read apart %v", b, one, apart)
		}
		if one.Distinct != apart.Distinct {
			t.Errorf("%+v: %d states with the read apart, %d with one step", b, apart.Distinct, one.Distinct)
		}
		// The knob's steps are there, and lead only to states the one-step
		// model has: more transitions, as many states.
		if apart.Transitions <= one.Transitions {
			t.Errorf("%+v: %d transitions with the read apart, %d with one step: the knob added none", b, apart.Transitions, one.Transitions)
		}
		t.Logf("%d states either way; %d transitions one step, %d apart", one.Distinct, one.Transitions, apart.Transitions)
	}
}

// runqputslow takes half a full ring by a CAS of its head and puts the
// batch on sched.runq in its sched.lock section; the model takes both as
// part of its caller's step. Taken apart (the spillApart knob: the batch
// in its M's hands, State.transit, until that lock section), Go 1.26
// loses a wakeup through goyield, the one caller with no wakep after its
// runqput: a spinning M steals what the spill left in the ring, finds
// sched.runq empty while the batch is in flight, rechecks, and stops;
// the batch then lands in sched.runq with a P idle and nobody spinning,
// and only the goyielding M, once its next G stops, takes it. The
// one-step model passes the same bounds, and a wakep after a spill with
// none of its own (spillWakep, a change to proc.go) closes it.
func TestSpillApartLosesAWakeupOnGoyield(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	b := Bounds{Ps: 2, Ms: 2, Gs: 5, Cap: 2, Spawn: 4, SchedTick: 1, Goyield: true}
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opt := Options{Liveness: true, ThreadLimit: true}
	one := exploreModel(ctx, md, opt)
	if one.Violation != nil || !one.Complete {
		t.Fatalf("the one-step model: %v", one)
	}
	md.spillApart = true
	r := exploreModel(ctx, md, opt)
	v := r.Violation
	if v == nil || v.Kind != KindWorkConservation {
		t.Fatalf("no lost wakeup with runqputslow apart: %v", r)
	}
	acts := v.Trace.Actions()
	// A Goyield's batch held (transit) from its step to its lock section,
	// and another M's StopM in between.
	held, landed, stopped := -1, -1, false
	for i, a := range acts {
		switch {
		case held < 0 && a.Kind == ActGoyield && a.Inj == 0 && v.Trace.Steps[i].State.transitM == a.M+1:
			held = i
		case held >= 0 && landed < 0 && a.Kind == ActStopM && a.M != acts[held].M:
			stopped = true
		case held >= 0 && landed < 0 && a.Kind == ActGoyield && a.Inj == spillLock:
			landed = i
		}
	}
	if held < 0 || landed < 0 || !stopped {
		t.Errorf("want a Goyield's batch held while another M stops, then its lock section: %v", acts)
	}
	checkModelTraceReplays(t, md, v.Trace)
	t.Logf("%d states one step, %d apart; %d steps: %v", one.Distinct, r.Distinct, v.Trace.Len(), acts)
	md.spillWakep = true
	if r := exploreModel(ctx, md, opt); r.Violation != nil || !r.Complete {
		t.Errorf("with a wakep after goyield's spill: %v", r)
	}
}
