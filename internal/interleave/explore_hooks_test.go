//go:build gmpcheck_hooks

package interleave

import (
	"context"
	"os"
	"strings"
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

// TestReplay: a violation's schedule replays to the same violation (the
// executions are deterministic), and the schedule that exposes
// empty-no-recheck passes on the correct queue. With
// GMPCHECK_REPLAY=<scenario>:<schedule> it replays that schedule and prints
// it step by step (with GMPCHECK_BUG for a seeded bug).
func TestReplay(t *testing.T) {
	if env := os.Getenv("GMPCHECK_REPLAY"); env != "" {
		name, text, ok := strings.Cut(env, ":")
		sc, err := Lookup(name)
		if !ok || err != nil {
			t.Fatalf("GMPCHECK_REPLAY=%q: want <scenario>:<schedule> (%v)", env, err)
		}
		s, err := ParseSchedule(text)
		if err != nil {
			t.Fatal(err)
		}
		ex, v, err := Replay(&sc, s, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v != nil {
			t.Fatal(v.Report())
		}
		var b strings.Builder
		WriteTrace(&b, ex)
		t.Log(b.String())
		return
	}
	for _, bug := range impl.Bugs {
		sc, _ := Lookup(BugScenarios[bug])
		setBug(t, bug)
		r, err := Explore(context.Background(), &sc, DefaultOptions())
		if err != nil || r.Violation == nil {
			t.Fatalf("%s: %v %v", bug, r, err)
		}
		s := r.Violation.Exec.Schedule()
		for range 3 {
			_, v, err := Replay(&sc, s, RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if v == nil || v.Kind != r.Violation.Kind || v.Msg != r.Violation.Msg {
				t.Fatalf("%s: replay of %s gave %v, the search found %v", bug, s, v, r.Violation)
			}
		}
	}
	setBug(t, impl.NoBug)
	sc, _ := Lookup("empty-recheck")
	s, _ := ParseSchedule("0000110001")
	if _, v, err := Replay(&sc, s, RunOptions{}); err != nil || v != nil {
		t.Fatalf("correct queue under the empty-no-recheck schedule: %v %v", v, err)
	}
	if _, _, err := Replay(&sc, Schedule{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, RunOptions{}); err == nil {
		t.Fatal("a schedule naming a finished actor replayed without error")
	}
}
