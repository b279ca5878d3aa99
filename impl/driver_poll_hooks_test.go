//go:build gmpcheck_hooks

package impl

import (
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TestHooksDriverRejectsPollBugs is the self-test of TestDriverMatchesSpecPoll:
// the impl built with each of the spec's seeded bugs of the blocking poller
// and timers (spec.PollBugs, the ImplBugs of the same names) must diverge
// from the correct spec within a bounded number of random traces.
func TestHooksDriverRejectsPollBugs(t *testing.T) {
	for _, bug := range spec.PollBugs() {
		t.Run(bug.String(), func(t *testing.T) {
			if _, ok := PollImplBug(bug); !ok {
				t.Fatalf("the impl has no seeded bug %v", bug)
			}
			c := newRandChooser(19, uint64(bug))
			for i := range 3000 {
				if err := CheckSeededAgainstSpec(c, bug, 200); err != nil {
					t.Logf("caught after %d traces: %.600s", i+1, err)
					return
				}
			}
			t.Fatalf("seeded bug %v not detected in 3000 traces", bug)
		})
	}
}
