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
	for _, tc := range []struct {
		name string
		b    Bounds
		k    ActionKind
	}{
		{"retake", Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true}, ActRetakeHandoff},
		{"stoplockedm", Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, LockOSThread: true}, ActStopLockedM},
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
		if r.Distinct <= one.Distinct {
			t.Errorf("%s: %d states with the read apart, %d with one step: the knob adds none", tc.name, r.Distinct, one.Distinct)
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
		t.Logf("%d states either way", one.Distinct)
	}
}
