package spec

import (
	"context"
	"testing"
)

// A G that made semrelease's hand-off goyields next, in runtime code: the
// Goyield is its M's fair step, not the program's choice. With it left to
// the program, a stop-the-world waited forever on the P of a G that never
// reached its goyield (stop-the-world never completes, 12 steps), as the
// partial liveness check of the every-mechanism model at Ps=3 Gs=4 first
// showed; TLC agrees on GMP_goyield_stw.cfg (65,413 states, both ways).
func TestGoyieldAfterHandoffIsFair(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Goyield: true, STW: true}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != "pass" || r.Distinct != 65413 {
		t.Fatalf("want a pass on 65413 states: %v\n%v", r, r.Violation)
	}
	// The fairness is what carries it: in the 12-step state the M that
	// made the hand-off is the only one that can move the stop-the-world.
	md, _ := NewModel(b)
	ready := Action{Kind: ActReadyHandoff, M: 0, P: NoP, G: 1}
	stop := Action{Kind: ActStopTheWorld, M: NoP, P: NoP}
	s := steps(t, md, md.Init(), mAct(ActNewProc, 0), mAct(ActWakep, 0), mAct(ActWakepStartM, 0), mAct(ActPark, 0),
		mAct(ActGlobal61Miss, 0), mAct(ActRunqGet, 0), ready, mAct(ActWakepSkip, 0), stop,
		mAct(ActGCStopM, 1), mAct(ActGCStopM, 1), mAct(ActStopM, 1))
	if !s.GCWaiting || !s.M[0].Yield || s.M[0].excused() {
		t.Fatalf("m0 after the hand-off with the world stopping: gcwaiting %v, yield %v, excused %v\n%v", s.GCWaiting, s.M[0].Yield, s.M[0].excused(), s)
	}
	if acts := md.Enabled(s); len(acts) != 1 || acts[0].Kind != ActGoyield {
		t.Fatalf("want m0's Goyield alone enabled, got %v", acts)
	}
}
