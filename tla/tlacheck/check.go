package tlacheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// CheckCfg is the tla-checker side of a cfg as 'gmpcheck tla' and the
// verify stage run it:
//   - a temporal cfg goes through GoLiveness (tla-checker's graph, shown
//     equal to the spec's, and the Go explorer's liveness);
//   - a passing GMP cfg is checked and its exported graph compared with the
//     spec's (a difference is Outcome Error);
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
