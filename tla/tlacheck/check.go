package tlacheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/gmpcheck/gmpcheck/spec"
)

// CheckCfg is the tla-checker side of a cfg as 'gmpcheck tla' and the
// verify stage run it:
//   - a temporal cfg goes through GoLiveness (tla-checker's graph, shown
//     equal to the spec's, and the Go explorer's liveness);
//   - a passing GMP cfg is checked and its exported graph compared with the
//     spec's (a difference is Outcome Error); one too large to export
//     (DOTFits) has its distinct-state count compared instead;
//   - any other cfg is checked by tla-checker alone.
//
// The Result's Message carries the comparison summary when there is one.
func CheckCfg(ctx context.Context, dir string, c Cfg) (Result, error) {
	if c.Temporal() {
		return GoLiveness(ctx, dir, c, "")
	}
	if c.Module != "GMP" || !c.ExpectPass() {
		return RunChecker(ctx, dir, c, RunOptions{})
	}
	b, err := BoundsFromCfg(c)
	if err != nil {
		return Result{}, err
	}
	if !DOTFits(ctx, c) {
		return checkUnexported(ctx, dir, c, b)
	}
	tmp, err := os.MkdirTemp("", "gmpcheck-dot-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(tmp)
	dot := filepath.Join(tmp, c.Name+".dot")
	res, err := RunChecker(ctx, dir, c, RunOptions{DOT: dot})
	if err != nil || res.Outcome != Pass {
		return res, err
	}
	cmp, err := CompareGMPGraph(ctx, dot, b)
	switch {
	case ctx.Err() != nil:
		return timedOut(res, ctx), nil
	case errors.Is(err, ErrGraphsDiffer):
		res.Outcome = Error
		res.Message = err.Error()
	case err != nil:
		return res, err
	default:
		res.Message = "no error found; " + cmp.String()
	}
	return res, nil
}

// checkUnexported is CheckCfg for a passing GMP cfg whose graph is too
// large to export (DOTFits): tla-checker's run, and its distinct states
// held to the spec's.
func checkUnexported(ctx context.Context, dir string, c Cfg, b spec.Bounds) (Result, error) {
	res, err := RunChecker(ctx, dir, c, RunOptions{})
	if err != nil || res.Outcome != Pass {
		return res, err
	}
	r, err := spec.Explore(ctx, b, spec.Options{ThreadLimit: true})
	switch why := countDiffers(res.States, r); {
	case ctx.Err() != nil:
		return timedOut(res, ctx), nil
	case err != nil:
		return res, err
	case why != "":
		res.Outcome, res.Message = Error, why
	default:
		res.Message = "no error found; " + notExported(res.States)
	}
	return res, nil
}
