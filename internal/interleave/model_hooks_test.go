//go:build gmpcheck_hooks

package interleave

import (
	"context"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
)

// TestModelAgreesOnScenarios: on the correct queue, linearize's model
// accepts the history of every schedule DPOR runs of every built-in
// scenario, as Check does.
func TestModelAgreesOnScenarios(t *testing.T) {
	setBug(t, impl.NoBug)
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			checked := 0
			var first *Violation
			opt := DefaultOptions()
			opt.OnExecution = func(ex *Execution) {
				checked++
				if v := CheckModel(ex); v != nil && first == nil {
					first = v
				}
			}
			r, err := Explore(context.Background(), &sc, opt)
			if err != nil || r.Violation != nil || !r.Complete {
				t.Fatalf("%v %v", r, err)
			}
			if first != nil {
				t.Fatal(first.Report())
			}
			t.Logf("%d histories accepted", checked)
		})
	}
}

// TestModelFindsSeededBugs: linearize's model rejects some schedule of
// each seeded bug's scenario in which the bug changes what a call returns.
// putslow-drops-g does not: the G it loses was on its way to the global
// queue, which no call of its scenario reads, so only the final state
// (conservation, and Check's search) shows it.
func TestModelFindsSeededBugs(t *testing.T) {
	for _, bug := range impl.Bugs {
		if bug == impl.BugPutSlowDropsG {
			continue
		}
		t.Run(string(bug), func(t *testing.T) {
			sc, err := Lookup(BugScenarios[bug])
			if err != nil {
				t.Fatal(err)
			}
			setBug(t, bug)
			var found *Violation
			opt := DefaultOptions()
			opt.OnExecution = func(ex *Execution) {
				if found == nil {
					found = CheckModel(ex)
				}
			}
			// Explore stops at Check's first violation; the model must
			// reject some execution up to there.
			r, err := Explore(context.Background(), &sc, opt)
			if err != nil {
				t.Fatal(err)
			}
			if found == nil {
				t.Fatalf("%v: linearize's model accepted every history", r)
			}
			t.Logf("%v", found)
		})
	}
}
