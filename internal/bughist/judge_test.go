package bughist

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// judgePair's verdicts, with engines that answer from a table instead of
// running a checker: the variant must fail as its cfg expects and the twin
// pass; a second engine can only take a Caught verdict away.
func TestJudgePair(t *testing.T) {
	variant := tlacheck.Cfg{Name: "GMP_hist_x", Expect: "InvSTW"}
	twin := tlacheck.Cfg{Name: "GMP_hist_x_twin126", Expect: "pass"}
	caught := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Invariant, Name: "InvSTW", Trace: "State 0\nState 1\n"}
	passes := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Pass}
	timeout := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Timeout}
	engine := func(v, b tlacheck.Result, err error) func(context.Context, tlacheck.Cfg) (tlacheck.Result, error) {
		return func(_ context.Context, c tlacheck.Cfg) (tlacheck.Result, error) {
			if c.Name == twin.Name {
				return b, nil
			}
			return v, err
		}
	}
	for _, tc := range []struct {
		name     string
		first    func(context.Context, tlacheck.Cfg) (tlacheck.Result, error)
		second   func(context.Context, tlacheck.Cfg) (tlacheck.Result, error)
		open     bool
		want     Verdict
		basePass bool
	}{
		{"caught, twin passes", engine(caught, passes, nil), nil, false, Caught, true},
		{"variant passes", engine(passes, passes, nil), nil, false, Missed, false},
		{"twin fails too", engine(caught, caught, nil), nil, false, Missed, false},
		{"twin cut short", engine(caught, timeout, nil), nil, false, Inconclusive, false},
		{"variant cut short", engine(timeout, passes, nil), nil, false, Inconclusive, false},
		{"engine error", engine(caught, passes, errors.New("no java")), nil, false, Failed, false},
		{"open bug, no twin", engine(caught, caught, nil), nil, true, Caught, false},
		{"second agrees", engine(caught, passes, nil), engine(caught, passes, nil), false, Caught, true},
		{"second's twin fails", engine(caught, passes, nil), engine(caught, caught, nil), false, Missed, false},
		{"second misses", engine(caught, passes, nil), engine(passes, passes, nil), false, Missed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr TechResult
			judgePair(context.Background(), &tr, tc.first, variant, twin, tc.open, true)
			if tc.second != nil && tr.Verdict == Caught {
				judgePair(context.Background(), &tr, tc.second, variant, twin, tc.open, false)
			}
			if tr.Verdict != tc.want || tr.BasePass != tc.basePass {
				t.Fatalf("verdict %s, go1.26 pass %v; want %s, %v (%s | %s)", tr.Verdict, tr.BasePass, tc.want, tc.basePass, tr.Detail, tr.BaseDetail)
			}
			if tr.Verdict == Caught && tr.TraceLen != 1 {
				t.Errorf("trace of %d steps, want the first engine's 1", tr.TraceLen)
			}
			if tc.second != nil && tr.Verdict == Caught && strings.Count(tr.Detail, "fake") != 2 {
				t.Errorf("detail %q: want both engines' findings", tr.Detail)
			}
		})
	}
}
