package conform

import (
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TestStaleHandoffOwn checks the stale-handoff filter on an M's own
// handoffp (entersyscallblock, stoplockedm): with one P, nobody spinning
// and no P idle, the spec's step starts a spinning M on the P, and a run
// whose handoffp read nmspinning during another M's wakep idled it. The
// filter's step is the spec's with that decision: the P idle, the M's
// own part of the step as the spec has it; and the filter refuses a P
// with local work, which the reads would have seen.
func TestStaleHandoffOwn(t *testing.T) {
	b := spec.Bounds{Ps: 1, Ms: 2, Gs: 2, Cap: 2, SchedTick: 2, Syscalls: true, SyscallBlock: true, LockOSThread: true}
	md, err := spec.NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	c := &checker{md: md, opt: ImplOptions{Bounds: b, StaleHandoff: true}}
	act := func(k spec.ActionKind) spec.Action { return spec.Action{Kind: k, M: 0, P: spec.NoP} }
	step := func(s spec.State, k spec.ActionKind) spec.State {
		t.Helper()
		next, err := md.Step(s, act(k))
		if err != nil {
			t.Fatal(err)
		}
		return next
	}
	for _, tc := range []struct {
		name string
		from spec.State
		k    spec.ActionKind
		want func(s spec.State) bool
	}{
		{"entersyscallblock", md.Init(), spec.ActEnterSyscallBlock, func(s spec.State) bool {
			return s.M[0].PC == spec.MRun && s.M[0].P == spec.NoP && s.G[1] == spec.GSyscall
		}},
		{"stoplockedm", step(step(md.Init(), spec.ActLockOSThread), spec.ActPark), spec.ActStopLockedM, func(s spec.State) bool {
			return s.M[0].PC == spec.MLockedWait && s.M[0].P == spec.NoP
		}},
		{"a locked G's exit (mexit)", step(md.Init(), spec.ActLockOSThread), spec.ActGoExit, func(s spec.State) bool {
			return s.M[0].PC == spec.MIdle && s.M[0].P == spec.NoP && s.G[1] == spec.GDead
		}},
	} {
		own, err := md.Step(tc.from, act(tc.k))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if own.P[0].Status == spec.PIdle || !own.M[1].Spinning {
			t.Fatalf("%s: the spec's own handoffp should start a spinning m1 on p0:\n%v", tc.name, own)
		}
		o := &obs{handoff: handoffIdle}
		next, err := c.staleHandoff(tc.from, act(tc.k), 0, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if next.P[0].Status != spec.PIdle || next.M[1].PC != spec.MIdle || next.NMSpinning != 0 || !tc.want(next) {
			t.Errorf("%s: want p0 idle, m1 idle, nobody spinning, m0 past its step:\n%v", tc.name, next)
		}
		// Work on the P: the reads saw it, so an idle P is no stale read.
		busy := tc.from
		busy.G[2], busy.P[0].RunNext = spec.GRunnable, 2
		if _, err := c.staleHandoff(busy, act(tc.k), 0, o); err == nil {
			t.Errorf("%s: the filter idled a P with work", tc.name)
		}
	}
}
