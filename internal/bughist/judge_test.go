package bughist

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// runPair and judgeRuns, with engines that answer from a table instead of
// running a checker: the variant must fail as its cfg expects and the twin
// pass; a second engine, run beside the first, is judged only while the
// verdict is Caught, and can only take it away (never turn a miss into an
// inconclusive run or a pass).
func TestJudgePair(t *testing.T) {
	variant := tlacheck.Cfg{Name: "GMP_hist_x", Expect: "InvSTW"}
	twin := tlacheck.Cfg{Name: "GMP_hist_x_twin126", Expect: "pass"}
	caught := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Invariant, Name: "InvSTW", Trace: "State 0\nState 1\n"}
	passes := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Pass}
	timeout := tlacheck.Result{Tool: "fake", Outcome: tlacheck.Timeout}
	engine := func(v, b tlacheck.Result, err error) *tlaEngine {
		return &tlaEngine{"fake", func(_ context.Context, c tlacheck.Cfg) (tlacheck.Result, error) {
			if c.Name == twin.Name {
				return b, nil
			}
			return v, err
		}}
	}
	for _, tc := range []struct {
		name     string
		first    *tlaEngine
		second   *tlaEngine
		open     bool
		want     Verdict
		basePass bool
		judged   int // engines judged
	}{
		{"caught, twin passes", engine(caught, passes, nil), nil, false, Caught, true, 1},
		{"variant passes", engine(passes, passes, nil), nil, false, Missed, false, 1},
		{"twin fails too", engine(caught, caught, nil), nil, false, Missed, false, 1},
		{"twin cut short", engine(caught, timeout, nil), nil, false, Inconclusive, false, 1},
		{"variant cut short", engine(timeout, passes, nil), nil, false, Inconclusive, false, 1},
		{"engine error", engine(caught, passes, errors.New("no java")), nil, false, Failed, false, 1},
		{"open bug, no twin", engine(caught, caught, nil), nil, true, Caught, false, 1},
		{"second agrees", engine(caught, passes, nil), engine(caught, passes, nil), false, Caught, true, 2},
		{"second's twin fails", engine(caught, passes, nil), engine(caught, caught, nil), false, Missed, false, 2},
		{"second misses", engine(caught, passes, nil), engine(passes, passes, nil), false, Missed, false, 2},
		{"second cut short", engine(caught, passes, nil), engine(timeout, passes, nil), false, Inconclusive, false, 2},
		{"first misses, second would catch", engine(passes, passes, nil), engine(caught, passes, nil), false, Missed, false, 1},
		{"first cut short, second would catch", engine(timeout, passes, nil), engine(caught, passes, nil), false, Inconclusive, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr TechResult
			ctx := context.Background()
			runs := []pairRun{runPair(ctx, *tc.first, variant, twin, tc.open)}
			if tc.second != nil {
				runs = append(runs, runPair(ctx, *tc.second, variant, twin, tc.open))
			}
			judged := judgeRuns(&tr, runs, variant, twin, tc.open)
			if len(judged) != tc.judged {
				t.Errorf("engines judged %v, want %d", judged, tc.judged)
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
