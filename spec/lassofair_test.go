package spec

import (
	"context"
	"fmt"
	"testing"
)

// TestCycleFairnessCheckBites: the check rejects a cycle that leaves an
// enabled M untaken (m1 spinning at findRunnable's top while only m0
// steps), the shape the printed lassos could have before every model got
// the fair-cycle search, and accepts the same cycle once m1 is parked.
func TestCycleFairnessCheckBites(t *testing.T) {
	b := Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1}
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init()
	s.M[1] = MState{PC: MSched, P: 1, Spinning: true}
	tr := Trace{Init: s, Loop: 0, Steps: []TraceStep{{Action: Action{Kind: ActGosched, M: 0, P: 0}, State: s}}}
	if cycleUnfair(b, &Violation{Kind: KindWorkConservation, Trace: tr}) == nil {
		t.Fatal("a cycle in which spinning m1 never steps passed the fairness check")
	}
	s.M[1] = MState{PC: MIdle, P: NoP}
	tr.Init, tr.Steps[0].State = s, s
	if err := cycleUnfair(b, &Violation{Kind: KindWorkConservation, Trace: tr}); err != nil {
		t.Fatalf("m1 parked throughout: %v", err)
	}
}

// cycleUnfair returns an error naming every fairness family the lasso's
// cycle does not meet: one of the property's families (each M's, sysmon's
// retake and stop-the-world preemption per P, the time slice per P when
// the property assumes it, the stopper, the clock) that no step of the
// cycle takes and no state of it disables. A timer property's cycle must
// also keep the network quiet. The families are judged on the printed
// states; the step is taken again only for the P whose slice it starts.
// A strongly connected component can be fair while a cycle printed from
// it is not, and a reader given such a cycle would rightly object that
// an enabled M never moves; the liveness checker prints a fair cycle.
func cycleUnfair(b Bounds, v *Violation) error {
	tr := v.Trace
	if tr.Loop < 0 {
		return nil
	}
	md, err := NewModel(b)
	if err != nil {
		return err
	}
	lc := &livenessChecker{liveGraph: &liveGraph{g: &graph{md: md, proto: md.Init()}}}
	switch v.Kind {
	case KindGlobalStarvation, KindLocalStarvation, KindTimerStuck:
		lc.prop.slice = md.b.asyncPreempt()
	}
	lc.prop.quietNet = v.Kind == KindTimerStuck && timersQuietNet
	s := tr.Init
	if tr.Loop > 0 {
		s = tr.Steps[tr.Loop-1].State
	}
	met := lc.excusedBits(&s)
	if tr.Stutter {
		return nil
	}
	for _, st := range tr.Steps[tr.Loop:] {
		if lc.prop.quietNet && st.Action.Kind.netReady() {
			return fmt.Errorf("the printed cycle readies a G from the network (%v), which the property's behaviours do not", st.Action)
		}
		ns := s
		info, err := md.step(&ns, st.Action)
		if err != nil {
			return fmt.Errorf("cycle step %v: %v", st.Action, err)
		}
		met |= lc.edgeBits(liveEdge{kind: st.Action.Kind, m: st.Action.M, p: st.Action.P, freshP: info.freshP})
		s = st.State
		met |= lc.excusedBits(&s)
	}
	if req := lc.required(); met&req != req {
		return fmt.Errorf("the printed cycle is not fair: families %#x (famBits) neither taken nor disabled on it", req&^met)
	}
	return nil
}

// Every lasso printed is fair on its face under symmetry: on the
// model where a locked M's handoff leaves a due timer on an idle P (and
// which fails work conservation too), every violated property's first
// lasso, taken from a component of representatives and lifted, meets
// every family. Before the lifted cycle got the fair search it took only
// the discharging edges, and under M symmetry printed a cycle in which
// m1 spins and never steps and the running G is never preempted.
func TestEveryPrintedLassoIsFair(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	b := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true,
		PollBlock: true, Timers: 1, LockOSThread: true}
	// Without symmetry the printed cycle comes from the same search
	// (TestSeededBugsAreFound checks every seeded bug's).
	for _, sym := range []struct{ m, g bool }{{true, false}, {true, true}} {
		t.Run(fmt.Sprintf("symmetry=%v,gsymmetry=%v", sym.m, sym.g), func(t *testing.T) {
			r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, All: true, Symmetry: sym.m, GSymmetry: sym.g})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Violations) == 0 {
				t.Fatalf("want liveness violations, got %v", r)
			}
			for _, gr := range r.Violations {
				checkTraceReplays(t, b, gr.First.Trace)
				if err := cycleUnfair(b, gr.First); err != nil {
					t.Errorf("%s: %v\n%v", gr.Key, err, gr.First.Trace)
				}
			}
		})
	}
}
