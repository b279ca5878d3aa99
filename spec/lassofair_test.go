package spec

import (
	"fmt"
	"testing"
)

// cycleUnfairM returns an error naming an M for which the lasso's cycle is
// not fair on its face: the M takes none of its loop steps on the cycle
// and is excused (parked, running its G, waiting) in none of the cycle's
// states. A strongly connected component can be fair while a cycle printed
// from it is not, and a reader given such a cycle would rightly object
// that an enabled M never moves; the liveness checker prints a shortest
// fair cycle instead.
func cycleUnfairM(tr Trace) error {
	if tr.Loop < 0 {
		return nil
	}
	before := tr.Init
	if tr.Loop > 0 {
		before = tr.Steps[tr.Loop-1].State
	}
	states := []State{before}
	var took [MaxMs]bool
	for _, st := range tr.Steps[tr.Loop:] {
		states = append(states, st.State)
		if st.Action.Kind.mFair() {
			took[st.Action.M] = true
		}
	}
	for m := 0; m < int(before.nM); m++ {
		if took[m] {
			continue
		}
		excused := false
		for i := range states {
			if states[i].M[m].excused() {
				excused = true
				break
			}
		}
		if !excused {
			return fmt.Errorf("the printed cycle is not fair: m%d neither steps nor is excused on it", m)
		}
	}
	return nil
}

// TestCycleFairnessCheckBites: the check rejects a cycle that leaves an
// enabled M untaken (m1 spinning at findRunnable's top while only m0
// steps), the shape the printed lassos could have before every model got
// the fair-cycle search, and accepts the same cycle once m1 is parked.
func TestCycleFairnessCheckBites(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1})
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init()
	s.M[1] = MState{PC: MSched, P: 1, Spinning: true}
	tr := Trace{Init: s, Loop: 0, Steps: []TraceStep{{Action: Action{Kind: ActGosched, M: 0, P: 0}, State: s}}}
	if cycleUnfairM(tr) == nil {
		t.Fatal("a cycle in which spinning m1 never steps passed the fairness check")
	}
	s.M[1] = MState{PC: MIdle, P: NoP}
	tr.Init, tr.Steps[0].State = s, s
	if err := cycleUnfairM(tr); err != nil {
		t.Fatalf("m1 parked throughout: %v", err)
	}
}
