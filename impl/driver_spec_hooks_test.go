//go:build gmpcheck_hooks

package impl

import (
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TestHooksDriverRejectsSeededBugs is the self-test of TestDriverMatchesSpec: the
// impl built with each of the spec's seeded bugs must diverge from the
// correct spec within a bounded number of random traces.
func TestHooksDriverRejectsSeededBugs(t *testing.T) {
	for _, bug := range spec.Bugs() {
		t.Run(bug.String(), func(t *testing.T) {
			c := newRandChooser(1, uint64(bug))
			for i := range 3000 {
				if err := CheckSeededAgainstSpec(c, bug, 80); err != nil {
					t.Logf("caught after %d traces: %.300s", i+1, err)
					return
				}
			}
			t.Fatalf("seeded bug %v not detected in 3000 traces", bug)
		})
	}
}
