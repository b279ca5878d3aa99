package tlacheck

import (
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TestReplayLassoRejects: a trace that is not a lasso, and a lasso whose
// step the spec does not take, are errors, never a replay. (Real TLC
// lassos are replayed by TestModels when TLA2TOOLS_JAR is set.)
func TestReplayLassoRejects(t *testing.T) {
	b := spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2}
	const init = `/\ st = [G |-> <<"running", "idle">>, GCWaiting |-> FALSE, M |-> (0 :> [curg |-> 1, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> 0, pc |-> "run", scan |-> {}, spinning |-> FALSE, wake |-> "none", tainted |-> FALSE, victim |-> -1, oldp |-> -1, yield |-> FALSE, snapps |-> 0] @@ 1 :> [curg |-> 0, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> -1, pc |-> "idle", scan |-> {}, spinning |-> FALSE, wake |-> "none", tainted |-> FALSE, victim |-> -1, oldp |-> -1, yield |-> FALSE, snapps |-> 0] @@ 2 :> [curg |-> 0, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> -1, pc |-> "idle", scan |-> {}, spinning |-> FALSE, wake |-> "none", tainted |-> FALSE, victim |-> -1, oldp |-> -1, yield |-> FALSE, snapps |-> 0]), NMSpinning |-> 0, NPIdle |-> 1, NeedSpinning |-> FALSE, NilRead |-> FALSE, RetakeP |-> -1, P |-> (0 :> [ring |-> <<>>, runnext |-> 0, status |-> "running", tick |-> 0] @@ 1 :> [ring |-> <<>>, runnext |-> 0, status |-> "idle", tick |-> 0]), Pidle |-> <<1>>, Procs |-> 2, Runq |-> <<>>, STWLeft |-> 0, STWPhase |-> "none", SpawnLeft |-> 1, StopWait |-> 0]`
	// The initial state, stuttering: a lasso the spec has (its first state
	// is the spec's), with no step.
	stutter := "State 1: <Initial predicate>\n" + init + "\n\nState 2: Stuttering\n"
	l, err := ReplayLasso(stutter, b)
	if err != nil {
		t.Fatalf("a stuttering initial state: %v", err)
	}
	if !l.Trace.Stutter || len(l.Trace.Steps) != 0 {
		t.Errorf("replayed as %+v", l.Trace)
	}
	// Stuttering there is fair: m0 runs its G, no M is in its loop, no
	// Retake; but p0 never gets a fresh slice.
	if err := LassoFair(l, b, false); err != nil {
		t.Errorf("fairness without slices: %v", err)
	}
	if err := LassoFair(l, b, true); err == nil || !strings.Contains(err.Error(), "p0") {
		t.Errorf("fairness with slices: %v, want p0 unfair", err)
	}
	if _, err := ReplayLasso("State 1: <Initial predicate>\n"+init+"\n", b); err == nil {
		t.Error("a trace without a cycle or a stutter was replayed")
	}
	// A "cycle" from the initial state back to itself in one step: no
	// spec action leaves the state unchanged.
	loop := "State 1: <Initial predicate>\n" + init + "\n\nBack to state 1: <Next>\n"
	if _, err := ReplayLasso(loop, b); err == nil || !strings.Contains(err.Error(), "no transition") {
		t.Errorf("a self-loop: %v, want no transition of the spec", err)
	}
	// A first state that is not the spec's.
	other := strings.Replace(stutter, "SpawnLeft |-> 1", "SpawnLeft |-> 0", 1)
	if _, err := ReplayLasso(other, b); err == nil || !strings.Contains(err.Error(), "initial") {
		t.Errorf("another first state: %v", err)
	}
}
