package bughist

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// The impl technique: the reference scheduler replays the explorer's
// counterexample (replay.go).

// runImpl: the explorer's shortest counterexample on the Driver bound,
// played on the reference scheduler as the variant (it must follow and
// starve) and as go1.26 (it must leave the trace).
func runImpl(ctx context.Context, va *Variant) TechResult {
	b := va.Driver
	b.Go = va.Go
	tr := TechResult{Bounds: b.String(), Engine: "impl.Driver"}
	start := time.Now()
	r, err := explore(ctx, b)
	switch {
	case err != nil:
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	case r.Violation == nil && !r.Complete:
		tr.Verdict, tr.Detail = Inconclusive, fmt.Sprintf("explorer cut short after %d states", r.Distinct)
		return tr
	case r.Violation == nil || r.Violation.Kind != va.Kind:
		tr.Verdict, tr.Detail = Missed, fmt.Sprintf("the explorer found no %v on the driver bound: %v", va.Kind, r)
		return tr
	}
	t := r.Violation.Trace
	tr.TraceLen, tr.Trace = t.Len(), printViolation(r.Violation)
	if va.Kind == spec.KindInvariant {
		v := r.Violation
		if !inRuntimeOrder(t) {
			// The impl walks allp in order: replay the shortest trace
			// that does (runtimeorder.go).
			if v, err = invariantInRuntimeOrder(ctx, b); err != nil {
				tr.Verdict, tr.Detail = Failed, err.Error()
				if ctx.Err() != nil {
					tr.Verdict = Inconclusive // cut short, not a verdict
				}
				return tr
			}
			tr.TraceLen, tr.Trace = v.Trace.Len(), printViolation(v)
		}
		var inv *spec.InvariantError
		if !errors.As(r.Violation.Err, &inv) {
			tr.Verdict, tr.Detail = Failed, fmt.Sprintf("the explorer's violation carries no invariant: %v", r.Violation.Err)
			return tr
		}
		judgeInvariantOnImpl(&tr, b, va, v, inv.Inv)
		tr.Elapsed = time.Since(start) - tr.BaseElapsed
		return tr
	}
	rv, err := ReplayOnImpl(b, va.Go, t, va.Kind)
	tr.Elapsed = time.Since(start)
	if err != nil {
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	}
	tr.Detail = fmt.Sprintf("impl.Driver as %v: %s", va.Go, rv.Detail)
	if !rv.Caught() {
		tr.Verdict = Missed
		return tr
	}
	bstart := time.Now()
	rb, err := ReplayOnImpl(b, spec.Go126, t, va.Kind)
	tr.BaseElapsed = time.Since(bstart)
	switch {
	case err != nil:
		tr.Verdict, tr.BaseDetail = Failed, err.Error()
	case rb.Caught():
		tr.Verdict, tr.BaseDetail = Missed, "impl.Driver as go1.26 follows the trace into the bad state too"
	case rb.Followed:
		tr.Verdict, tr.BasePass = Caught, true
		tr.BaseDetail = "impl.Driver as go1.26 follows the trace but does not starve: " + rb.Detail
	default:
		tr.Verdict, tr.BasePass = Caught, true
		tr.BaseDetail = fmt.Sprintf("impl.Driver as go1.26 leaves the trace at step %d: %s", rb.At, rb.Detail)
	}
	return tr
}

// judgeInvariantOnImpl is the impl technique for a broken invariant inv
// (the explorer's; v is its trace, or the one in allp order): the
// reference scheduler as the variant's release replays the explorer's
// trace state for state (impl.ReplayTrace) and its own final state, mapped
// to the spec's terms, must break the same invariant, or, where the
// runtime threw (Variant.Throw), the impl must throw the same at the
// trace's last step; as go1.26 it must leave the trace or end in a state
// where every invariant holds.
func judgeInvariantOnImpl(tr *TechResult, b spec.Bounds, va *Variant, v *spec.Violation, inv int) {
	gv := va.Go
	var want *spec.InvariantError
	if !errors.As(v.Err, &want) || want.Inv != inv {
		tr.Verdict, tr.Detail = Missed, fmt.Sprintf("the trace in allp order breaks %v, not the explorer's invariant %d", v.Err, inv)
		return
	}
	n := len(v.Trace.Steps)
	rv, err := impl.ReplayTrace(b, gv, v.Trace)
	switch {
	case err != nil:
		tr.Verdict, tr.Detail = Failed, err.Error()
		return
	case va.Throw != "" && rv.Followed == n-1 && strings.Contains(rv.Threw, va.Throw):
		tr.Detail = fmt.Sprintf("impl.Driver as %v followed the first %d steps, state for state, and at step %d, where the spec's state breaks %v, throws as the runtime did: %s",
			gv, n-1, n, want, rv.Left)
	case rv.Followed < n:
		tr.Verdict, tr.Detail = Missed, fmt.Sprintf("impl.Driver as %v left the trace at step %d: %s", gv, rv.Followed+1, rv.Left)
		return
	default:
		got := checkState(b, rv.Final)
		var gotInv *spec.InvariantError
		if !errors.As(got, &gotInv) || gotInv.Inv != want.Inv {
			tr.Verdict, tr.Detail = Missed, fmt.Sprintf("impl.Driver as %v followed all %d steps, but its state breaks %v, not invariant %d", gv, n, got, want.Inv)
			return
		}
		tr.Detail = fmt.Sprintf("impl.Driver as %v followed all %d steps, state for state, and its own state breaks %v", gv, n, gotInv)
	}
	bstart := time.Now()
	b126 := b
	b126.Go = spec.Go126
	rb, err := impl.ReplayTrace(b, spec.Go126, v.Trace)
	tr.BaseElapsed = time.Since(bstart)
	switch {
	case err != nil:
		tr.Verdict, tr.BaseDetail = Failed, err.Error()
	case rb.Followed < n:
		tr.Verdict, tr.BasePass = Caught, true
		tr.BaseDetail = fmt.Sprintf("impl.Driver as go1.26 leaves the trace at step %d: %s", rb.Followed+1, rb.Left)
	default:
		if err := checkState(b126, rb.Final); err != nil {
			tr.Verdict, tr.BaseDetail = Missed, "impl.Driver as go1.26 follows the trace into a broken state too: "+err.Error()
			return
		}
		tr.Verdict, tr.BasePass = Caught, true
		tr.BaseDetail = "impl.Driver as go1.26 follows the trace and every invariant holds"
	}
}

// checkState is the spec's invariant check of s on bounds b.
func checkState(b spec.Bounds, s spec.State) error {
	md, err := spec.NewModel(b)
	if err != nil {
		return err
	}
	return md.Check(s)
}
