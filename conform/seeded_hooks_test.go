//go:build gmpcheck_hooks

package conform

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TestHooksImplSeededBugsRejected (instrumented build): the reference scheduler
// with a seeded bug, checked against the correct spec, gives a rejected
// trace within a few runs.
func TestHooksImplSeededBugsRejected(t *testing.T) {
	ctx := context.Background()
	for _, bug := range spec.Bugs() {
		caught := 0
		runs := 0
		for seed := uint64(1); seed <= 8 && caught == 0; seed++ {
			for _, procs := range []int{2, 4} {
				r := ImplRun{Procs: procs, Seed: seed, Bug: bug, Gs: 24, Limit: 10 * time.Second}
				evs, q, err := r.Record(ctx)
				var re *RunError
				if err != nil && !errors.As(err, &re) {
					t.Logf("%v procs %d seed %d: %v", bug, procs, seed, err)
					continue
				}
				runs++
				res := CheckImpl(ctx, evs, r.Options(q))
				if res.Verdict == Rejected {
					caught++
					t.Logf("%v: rejected (procs %d seed %d, run %d): at event %d %v: %s", bug, procs, seed, runs, res.Index, res.Event, firstLine(res.Reason))
					break
				}
			}
		}
		if caught == 0 {
			t.Errorf("%v: no rejected trace in %d runs", bug, runs)
		}
	}
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
