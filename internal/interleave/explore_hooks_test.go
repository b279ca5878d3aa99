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

// TestCutShortIsInconclusive: a search stopped by its execution limit, by
// its context, or with schedules cut at the step limit has neither passed
// nor failed: Complete is false, there is no violation, and StopReason
// says why.
func TestCutShortIsInconclusive(t *testing.T) {
	setBug(t, impl.NoBug)
	sc, err := Lookup("two-thieves-drain")
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		opt  Options
		want string
	}{
		{"execution limit", context.Background(), Options{MaxExecutions: 3, PreemptionBound: -1}, "limit of 3 executions"},
		{"cancelled", cancelled, DefaultOptions(), "cancelled"},
		{"step limit", context.Background(), Options{PreemptionBound: -1, Run: RunOptions{MaxSteps: 5}}, "cut at 5 steps"},
		{"step limit, bounded", context.Background(), Options{PreemptionBound: 1, Run: RunOptions{MaxSteps: 5}}, "cut at 5 steps"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Explore(tt.ctx, &sc, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Complete || r.Violation != nil || !strings.Contains(r.StopReason, tt.want) || !strings.Contains(r.String(), "INCOMPLETE") {
				t.Fatalf("%v: Complete=%v Violation=%v StopReason=%q; want an inconclusive result saying %q", r, r.Complete, r.Violation, r.StopReason, tt.want)
			}
		})
	}
}

// TestChainedStealBatchInFlight: chained-steal-batch does reach what it is
// for: thief 2 begins its steal from thief 1's queue while thief 1's steal
// of a batch is in flight, and takes the G that batch published there.
func TestChainedStealBatchInFlight(t *testing.T) {
	setBug(t, impl.NoBug)
	sc, err := Lookup("chained-steal-batch")
	if err != nil {
		t.Fatal(err)
	}
	reached := false
	opt := DefaultOptions()
	opt.OnExecution = func(ex *Execution) {
		var steal1, steal2 *CallRecord
		for i := range ex.Calls {
			c := &ex.Calls[i]
			if c.Call.Kind == Steal && c.Actor == 0 {
				steal1 = c
			}
			if c.Call.Kind == Steal && c.Actor == 1 {
				steal2 = c
			}
		}
		if steal1.G == 2 && steal2.G == 1 && steal2.First < steal1.Last {
			reached = true
		}
	}
	r, err := Explore(context.Background(), &sc, opt)
	if err != nil || r.Violation != nil || !r.Complete {
		t.Fatalf("%v %v", r, err)
	}
	if !reached {
		t.Fatalf("%v: no execution in which thief 2, starting during thief 1's steal of g1 and g2, takes g1", r)
	}
}

// TestScenariosReachEveryYieldPoint: the built-in scenarios, explored, take
// a step at every kind of yield point the correct queue code has (the
// plain store of head exists only in seeded bugs).
func TestScenariosReachEveryYieldPoint(t *testing.T) {
	setBug(t, impl.NoBug)
	seen := map[impl.Op]bool{}
	for _, sc := range Scenarios() {
		opt := DefaultOptions()
		opt.OnExecution = func(ex *Execution) {
			for _, s := range ex.Steps {
				seen[s.Op] = true
			}
		}
		if r, err := Explore(context.Background(), &sc, opt); err != nil || !r.Complete {
			t.Fatalf("%v %v", r, err)
		}
	}
	for op := impl.Op(1); !strings.HasPrefix(op.String(), "Op("); op++ {
		if !seen[op] && op != impl.OpStoreHead {
			t.Errorf("no built-in scenario takes a step at %v", op)
		}
	}
}
