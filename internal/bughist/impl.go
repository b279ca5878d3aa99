package bughist

import (
	"context"
	"fmt"
	"time"

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
