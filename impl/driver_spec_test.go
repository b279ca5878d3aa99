package impl

import (
	"math/rand/v2"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"pgregory.net/rapid"
)

type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) Intn(n int, label string) int { return rapid.IntRange(0, n-1).Draw(c.t, label) }

func newRandChooser(a, b uint64) Chooser { return RandChooser(rand.New(rand.NewPCG(a, b))) }

// TestDriverMatchesSpec is the rapid state-machine test: the real
// scheduler's decision code, stepped by the Driver, stays equal to the
// executable spec after every action.
func TestDriverMatchesSpec(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		if err := CheckAgainstSpec(rapidChooser{t}, spec.BugNone, 80); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDriverMatchesSpecLong runs many more (unshrinkable) random traces
// than rapid's default 100.
func TestDriverMatchesSpecLong(t *testing.T) {
	n := 20000
	if testing.Short() || raceEnabled {
		n = 3000 // the race detector adds nothing here: no goroutines
	}
	c := newRandChooser(7, 11)
	for range n {
		if err := CheckAgainstSpec(c, spec.BugNone, 200); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDriverRejectsSeededBugs is the self-test of TestDriverMatchesSpec: the
// impl built with each of the spec's seeded bugs must diverge from the
// correct spec within a bounded number of random traces.
func TestDriverRejectsSeededBugs(t *testing.T) {
	for _, bug := range spec.Bugs() {
		t.Run(bug.String(), func(t *testing.T) {
			c := newRandChooser(1, uint64(bug))
			for i := range 3000 {
				if err := CheckAgainstSpec(c, bug, 80); err != nil {
					t.Logf("caught after %d traces: %.300s", i+1, err)
					return
				}
			}
			t.Fatalf("seeded bug %v not detected in 3000 traces", bug)
		})
	}
}
