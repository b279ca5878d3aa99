//go:build gmpcheck_hooks

package interleave

import (
	"context"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
)

func setBug(t testing.TB, b impl.Bug) {
	t.Helper()
	if err := impl.SetSeededBug(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = impl.SetSeededBug(impl.NoBug) })
}

// TestExploreScenarios explores every built-in scenario exhaustively (DPOR)
// on the correct queue: every interleaving must pass every check.
func TestExploreScenarios(t *testing.T) {
	setBug(t, impl.NoBug)
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			r, err := Explore(context.Background(), &sc, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			t.Log(r)
			if r.Violation != nil {
				t.Fatal(r.Violation.Report())
			}
			if !r.Complete {
				t.Fatalf("inconclusive: %s", r.StopReason)
			}
		})
	}
}

// TestExploreFindsSeededBugs: the exhaustive explorer rejects every seeded
// queue bug, in the scenario listed for it.
func TestExploreFindsSeededBugs(t *testing.T) {
	for _, bug := range impl.Bugs {
		t.Run(string(bug), func(t *testing.T) {
			name, ok := BugScenarios[bug]
			if !ok {
				t.Fatalf("no scenario listed for seeded bug %s", bug)
			}
			sc, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			setBug(t, bug)
			r, err := Explore(context.Background(), &sc, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			t.Log(r)
			if r.Violation == nil {
				t.Fatalf("seeded bug %s not found in %s: %v", bug, name, r)
			}
			t.Logf("found: %v", r.Violation)
		})
	}
}
