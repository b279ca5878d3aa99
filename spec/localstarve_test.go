package spec

import (
	"context"
	"testing"
)

// Property (c), local-queue starvation, is not one of the default checks
// because Go 1.26 fails it, as golang/go#52934 (open) says: a G readied
// into its P's runnext inherits the time slice, so a P whose Gs keep
// readying one another and yielding runs runnext after runnext, while the
// G at the head of its ring waits; sysmon's preemption moves only the
// running G, and another P drains the global queue the yields fill
// instead of stealing the ring. The explorer finds that cycle on a small
// bound, with the time-slice fairness of (b) assumed.
func TestRunnextStarvesTheRing(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 2, Ms: 2, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation != nil || !r.Complete {
		t.Fatalf("without (c) the bound passes: %v\n%v", r, r.Violation)
	}
	r, err = Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, LocalStarvation: true})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Violation
	if v == nil || v.Kind != KindLocalStarvation || v.Trace.Loop < 0 {
		t.Fatalf("want a local-starvation cycle, got %v\n%v", r, v)
	}
	// Some G is in a ring in every state of the cycle (the starving
	// one), and the cycle runs Gs from runnext (RunqGet with an inherited
	// slice).
	var inRings uint16 = 1<<(MaxGs+1) - 2 // every G, then narrowed
	inherited := false
	prev := v.Trace.Init
	if v.Trace.Loop > 0 {
		prev = v.Trace.Steps[v.Trace.Loop-1].State
	}
	for _, st := range v.Trace.Steps[v.Trace.Loop:] {
		s := st.State
		var here uint16
		for p := 0; p < s.NumPs(); p++ {
			for i := 0; i < int(s.P[p].N); i++ {
				here |= 1 << s.P[p].Ring[i]
			}
		}
		inRings &= here
		if st.Action.Kind == ActRunqGet && prev.P[prev.M[st.Action.M].P].RunNext != NoG {
			inherited = true
		}
		prev = s
	}
	if inRings == 0 {
		t.Errorf("no G stays in a ring throughout the cycle (%s):\n%v", v.Detail, v.Trace)
	}
	if !inherited {
		t.Errorf("the cycle runs nothing from runnext:\n%v", v.Trace)
	}
	checkTraceReplays(t, b, v.Trace)
	if _, err := Explore(context.Background(), b, Options{Liveness: true, LocalStarvation: true, GSymmetry: true}); err == nil {
		t.Error("LocalStarvation with GSymmetry: want an error")
	}
}
