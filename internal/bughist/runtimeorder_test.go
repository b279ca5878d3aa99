package bughist

import (
	"context"
	"errors"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// hist-23098's shortest counterexample rechecks the nil slot before p0,
// which checkRunqsNoP never does; the search restricted to allp order
// finds a longer one that keeps it, breaking the same invariant, and the
// reference scheduler as go1.10dev follows that one to its nil dereference.
func TestInvariantInRuntimeOrder(t *testing.T) {
	e, err := Lookup("hist-23098")
	if err != nil {
		t.Fatal(err)
	}
	b := e.Variant.Driver
	b.Go = e.Variant.Go
	r, err := explore(context.Background(), b)
	if err != nil || r.Violation == nil {
		t.Fatalf("%v: %v", r, err)
	}
	if inRuntimeOrder(r.Violation.Trace) {
		t.Fatalf("the explorer's trace keeps allp order; the test needs one that does not:\n%v", r.Violation.Trace)
	}
	v, err := invariantInRuntimeOrder(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if !inRuntimeOrder(v.Trace) {
		t.Fatalf("the restricted search's trace leaves allp order:\n%v", v.Trace)
	}
	var want, got *spec.InvariantError
	if !errors.As(r.Violation.Err, &want) || !errors.As(v.Err, &got) || got.Inv != want.Inv {
		t.Fatalf("invariants differ: %v, %v", r.Violation.Err, v.Err)
	}
	if v.Trace.Len() <= r.Violation.Trace.Len() {
		t.Errorf("the in-order trace has %d steps, the explorer's %d: it should be longer", v.Trace.Len(), r.Violation.Trace.Len())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := invariantInRuntimeOrder(ctx, b); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled search: %v", err)
	}
}
