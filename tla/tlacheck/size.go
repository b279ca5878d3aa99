package tlacheck

import (
	"context"

	"github.com/gmpcheck/gmpcheck/spec"
)

// GraphSize estimates the distinct states a checker will visit on c: the
// cfg's pinned count when it has one, else, for a GMP cfg, the Go
// explorer's count on its bounds (safety only, no symmetry, Ms as the
// thread limit: the graph tla-checker walks, which the cross-check holds
// equal to the spec's) up to max states; 0 when neither is known (a
// RunQueue cfg without a states line, bounds that do not parse). A cfg
// expected to fail an invariant counts the states before the explorer's
// first violation, a temporal one its whole graph, as tla-checker does.
// The explorer is hundreds of times as fast as tla-checker, so the
// estimate costs about a second for the long tier's largest cfgs, against
// tla-checker's half hour: what it is for, ordering runs longest first.
func GraphSize(ctx context.Context, c Cfg, max int) int {
	if c.States != 0 {
		return c.States
	}
	if c.Module != "GMP" {
		return 0
	}
	b, err := BoundsFromCfg(c)
	if err != nil {
		return 0
	}
	r, err := spec.Explore(ctx, b, spec.Options{ThreadLimit: true, MaxStates: max})
	if err != nil {
		return 0
	}
	return r.Distinct
}
