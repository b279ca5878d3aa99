package bughist

import (
	"context"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The reference scheduler loses the wakeup the spec loses when GOMAXPROCS
// grows under a spinning M that has dropped its P (docs/spec.md, "The
// allp snapshot and a growing GOMAXPROCS"; spec's
// TestStaleAllpSnapshotLosesAWakeup): impl.Driver as Go 1.26 follows the
// explorer's lasso, its recheck walking the short snapshot, and starves
// in every state of the cycle. No golang/go issue reports it, so it is
// not a catalog entry.
func TestStaleAllpSnapshotOnImpl(t *testing.T) {
	if raceEnabled {
		t.Skip("one goroutine: the test command's non-race stage runs it")
	}
	b := spec.Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true, STW: true, ProcResize: true}
	r, err := explore(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation == nil || r.Violation.Kind != spec.KindWorkConservation {
		t.Fatalf("%v: want a lost wakeup, got %v", b, r)
	}
	rv, err := ReplayOnImpl(b, spec.Go126, r.Violation.Trace, r.Violation.Kind)
	if err != nil {
		t.Fatal(err)
	}
	if !rv.Caught() {
		t.Fatalf("impl.Driver did not reproduce the %d-step lasso: %s", r.Violation.Trace.Len(), rv.Detail)
	}
	t.Log(rv.Detail)
}
