package bughist

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The explore technique, and the explorations the impl technique shares
// with it.

// exploreOptions is how the catalog explores: liveness, with Ms as the
// thread limit (so that go1.26's pass is conclusive on the same bound).
var exploreOptions = spec.Options{Liveness: true, ThreadLimit: true}

// explored keeps the complete explorations of this process by bounds and
// properties: the go1.26 twin of every variant on the verify bound is one
// search. A search under way is shared too: the explore and impl
// techniques run at once and may ask for the same bound (hist-38860's).
var explored struct {
	sync.Mutex
	m map[exploreKey]*exploration
}

// exploration is one search, done when done is closed.
type exploration struct {
	done chan struct{}
	r    spec.Result
	err  error
}

// conclusive reports whether the search may be kept: it completed or found
// a violation (a search cut short is redone by the next caller).
func (x *exploration) conclusive() bool {
	return x.err == nil && (x.r.Complete || x.r.Violation != nil)
}

// exploreKey is one exploration: the bound, and whether property (c) is
// checked too (then every violated property is reported).
type exploreKey struct {
	b     spec.Bounds
	local bool
}

func explore(ctx context.Context, b spec.Bounds) (spec.Result, error) {
	return exploreWith(ctx, exploreKey{b: b})
}

// exploreWith runs the search k, or waits for the same search under way in
// another goroutine and takes its result. A wait cut short by ctx returns
// an empty, incomplete Result, which the techniques report as
// inconclusive.
func exploreWith(ctx context.Context, k exploreKey) (spec.Result, error) {
	for {
		explored.Lock()
		x, ok := explored.m[k]
		if !ok {
			x = &exploration{done: make(chan struct{})}
			if explored.m == nil {
				explored.m = map[exploreKey]*exploration{}
			}
			explored.m[k] = x
			explored.Unlock()
			opt := exploreOptions
			opt.LocalStarvation, opt.All = k.local, k.local
			x.r, x.err = spec.Explore(ctx, k.b, opt)
			if !x.conclusive() {
				explored.Lock()
				delete(explored.m, k)
				explored.Unlock()
			}
			close(x.done)
			return x.r, x.err
		}
		explored.Unlock()
		select {
		case <-x.done:
		case <-ctx.Done():
			return spec.Result{}, nil
		}
		if x.conclusive() {
			return x.r, nil
		}
		// That search was cut short (its own context): search here.
	}
}

// broken is the first counterexample of kind in r (any property with
// spec.Options.All), or nil.
func broken(r spec.Result, kind spec.ViolationKind) *spec.Violation {
	if r.Violation != nil && r.Violation.Kind == kind {
		return r.Violation
	}
	for i := range r.Violations {
		if r.Violations[i].Kind == kind {
			return r.Violations[i].First
		}
	}
	return nil
}

// runExplore: the variant must break its property on its bound, and
// go1.26 must pass the same bound; for an open bug (va.Open), the bound
// must pass every property but the issue's.
func runExplore(ctx context.Context, va *Variant) TechResult {
	b, kind := va.Explore, va.Kind
	b.Go = va.Go
	tr := TechResult{Bounds: b.String(), Engine: "spec.Explore"}
	if va.LocalStarvation {
		tr.Bounds += " with property (c)"
	}
	start := time.Now()
	r, err := exploreWith(ctx, exploreKey{b: b, local: va.LocalStarvation})
	tr.Elapsed = time.Since(start)
	v := broken(r, kind)
	switch {
	case err != nil:
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	case r.Violation == nil && !r.Complete:
		tr.Verdict, tr.Detail = Inconclusive, fmt.Sprintf("cut short after %d states", r.Distinct)
		return tr
	case r.Violation == nil:
		tr.Verdict, tr.Detail = Missed, fmt.Sprintf("the variant passes: %v", r)
		return tr
	case v == nil:
		tr.Verdict, tr.Detail = Missed, fmt.Sprintf("%v fails, want %v", r.Violation.Kind, kind)
		return tr
	}
	tr.TraceLen, tr.Trace = v.Trace.Len(), printViolation(v)
	tr.Detail = fmt.Sprintf("%v in %d steps (%d states)", v.Kind, v.Trace.Len(), r.Distinct)
	base := exploreKey{b: b, local: va.LocalStarvation}
	base.b.Go = spec.Go126
	what := "go1.26"
	if va.Open {
		base.local = false
		what = "go1.26 without property (c)"
	}
	bstart := time.Now()
	rb, err := exploreWith(ctx, base)
	tr.BaseElapsed = time.Since(bstart)
	switch {
	case err != nil:
		tr.Verdict, tr.BaseDetail = Failed, err.Error()
	case rb.Violation != nil:
		tr.Verdict, tr.BaseDetail = Missed, fmt.Sprintf("%s fails too: %v", what, rb.Violation.Kind)
	case rb.Verdict() != "pass":
		tr.Verdict, tr.BaseDetail = Inconclusive, fmt.Sprintf("%s: %s after %d states", what, rb.Verdict(), rb.Distinct)
	default:
		tr.Verdict, tr.BasePass, tr.BaseDetail = Caught, true, fmt.Sprintf("%s passes: %d states, liveness ok", what, rb.Distinct)
	}
	return tr
}

// printViolation is a counterexample as 'gmpcheck explore' prints it.
func printViolation(v *spec.Violation) string {
	return fmt.Sprintf("VIOLATION (%d steps) %v", v.Trace.Len(), v)
}
