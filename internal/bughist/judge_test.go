package bughist

import (
	"context"
	"errors"
	"testing"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// runPair and judgePair, with an engine that answers from a table instead
// of running a checker: the variant must fail as its cfg expects and the
// twin pass; anything cut short is inconclusive, an engine error a failure.
func TestJudgePair(t *testing.T) {
	variant := tlacheck.Cfg{Name: "GMP_hist_x", Expect: "InvSTW"}
	twin := tlacheck.Cfg{Name: "GMP_hist_x_twin126", Expect: "pass"}
	caught := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Invariant, Name: "InvSTW", Trace: "State 0\nState 1\n"}
	passes := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Pass}
	timeout := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Timeout}
	engine := func(v, b tlacheck.Result, err, twinErr error) tlaEngine {
		return tlaEngine{"fake", func(_ context.Context, c tlacheck.Cfg, isTwin bool) (tlacheck.Result, error) {
			if isTwin != (c.Name == twin.Name) {
				t.Errorf("run(%s, twin=%v)", c.Name, isTwin)
			}
			if isTwin {
				return b, twinErr
			}
			return v, err
		}}
	}
	for _, tc := range []struct {
		name     string
		e        tlaEngine
		open     bool
		want     Verdict
		basePass bool
	}{
		{"caught, twin passes", engine(caught, passes, nil, nil), false, Caught, true},
		{"variant passes", engine(passes, passes, nil, nil), false, Missed, false},
		{"twin fails too", engine(caught, caught, nil, nil), false, Missed, false},
		{"twin cut short", engine(caught, timeout, nil, nil), false, Inconclusive, false},
		{"variant cut short", engine(timeout, passes, nil, nil), false, Inconclusive, false},
		{"engine error", engine(caught, passes, errors.New("no java"), nil), false, Failed, false},
		{"engine error on the twin", engine(caught, passes, nil, errors.New("no java")), false, Failed, false},
		{"open bug, no twin", engine(caught, caught, nil, nil), true, Caught, false},
		{"open bug missed", engine(passes, caught, nil, nil), true, Missed, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr TechResult
			judgePair(&tr, runPair(context.Background(), tc.e, variant, twin, tc.open), variant, twin, tc.open)
			if tr.Verdict != tc.want || tr.BasePass != tc.basePass {
				t.Fatalf("verdict %s, go1.26 pass %v; want %s, %v (%s | %s)", tr.Verdict, tr.BasePass, tc.want, tc.basePass, tr.Detail, tr.BaseDetail)
			}
			if tr.Verdict == Caught && tr.TraceLen != 1 {
				t.Errorf("trace of %d steps, want 1", tr.TraceLen)
			}
		})
	}
}
