package spec

import (
	"context"
	"testing"
)

// After procresize shrinks gomaxprocs below the model's Ps, a spinning
// M's steal scan ends once it has visited every live P, short of
// scanDone's every P. The drop section that follows must end the scan as
// scanDone does: before, ReleaseP took the M to dropspin with its victims
// still in Scan, which invariant 7 rejects (8 steps: a syscall, the stop
// shrinking three Ps to two, wakep's spinning M visiting p1, ReleaseP).
// Two Ps cannot show it: shrunk to one, the scan has no victim to record.
// The smallest bounds found with three Ps, checked with liveness.
func TestProcResizeShrinkEndsTheStealScan(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 3, Ms: 3, Gs: 1, Cap: 2, Spawn: 0, SchedTick: 1, Syscalls: true, STW: true, ProcResize: true}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, Symmetry: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != "pass" {
		t.Fatalf("%v: %v", b, r)
	}
	t.Logf("%v: %v", b, r)
}
