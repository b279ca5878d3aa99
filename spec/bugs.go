package spec

import "fmt"

// SeededBugCase is a seeded bug, the smallest bounds on which the explorer is
// known to expose it, and the counterexample it finds there. The explorer is
// deterministic, so the property and the trace's shape are exact. The same
// bounds with BugNone pass every check.
type SeededBugCase struct {
	Bounds   Bounds // Bounds.Bug is the bug
	Kind     ViolationKind
	Inv      int // the invariant that breaks, for KindInvariant
	TraceLen int // actions in the trace, cycle included
	Loop     int // index of the cycle's first step; -1: no cycle
	Stutter  bool
}

// VerifyBounds is the bound 'gmpcheck verify' explores with liveness, Ms
// taken as the thread limit: Go 1.26 passes it, the go1.19 variant loses a
// wakeup on it (docs/performance.md has its figures).
func VerifyBounds() Bounds {
	return Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true}
}

// SeededBugOptions is how SeededBugCases are explored: with liveness, and
// with Bounds.Ms as the thread limit (so that BugNone passes conclusively
// on the same bounds; a violation found is real either way).
var SeededBugOptions = Options{Liveness: true, ThreadLimit: true}

// SeededBugCases lists every seeded bug with its expected counterexample
// (docs/spec.md, "Seeded bugs").
func SeededBugCases() []SeededBugCase {
	return []SeededBugCase{
		{Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Bug: BugReadyNoWakep}, KindWorkConservation, 0, 16, -1, true},
		{Bounds{Ps: 1, Ms: 2, Gs: 4, Cap: 2, Spawn: 3, SchedTick: 2, Bug: BugNo61}, KindGlobalStarvation, 0, 31, 11, false},
		{Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Bug: BugSpinNoDec}, KindInvariant, InvCounts, 5, -1, false},
		{Bounds{Ps: 1, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, Bug: BugGoschedLocal}, KindGlobalStarvation, 0, 12, 8, false},
		{Bounds{Ps: 1, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Bug: BugRetakeIgnoresLocal}, KindInvariant, InvSpinning, 6, -1, false},
		{Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, SyscallBlock: true, Bug: BugSyscallBlockNoHandoff}, KindInvariant, InvPIdle, 4, -1, false},
		{Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, LockOSThread: true, Bug: BugStopLockedNoHandoff}, KindInvariant, InvPIdle, 6, -1, false},
		{Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, LockOSThread: true, Bug: BugLockedRunsAnywhere}, KindInvariant, InvLocked, 6, -1, false},
		{Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, STW: true, ProcResize: true, Bug: BugProcResizeDropsRunq}, KindInvariant, InvGPlace, 14, -1, false},
		{Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, STW: true, ProcResize: true, Bug: BugGCWaitingIgnored}, KindSTWStuck, 0, 18, 4, false},
		{Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, Spawn: 0, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1, Bug: BugTimersNotStolen}, KindTimerStuck, 0, 30, 18, false},
		{Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, LockOSThread: true, Bug: BugHandoffIgnoresPoller}, KindNetpollUnwatched, 0, 3, -1, true},
	}
}

// Match reports how v differs from the expected counterexample, or nil.
func (c SeededBugCase) Match(v *Violation) error {
	bug := c.Bounds.Bug
	switch {
	case v == nil:
		return fmt.Errorf("seeded bug %v not found", bug)
	case v.Kind != c.Kind:
		return fmt.Errorf("seeded bug %v: %v fails, want %v", bug, v.Kind, c.Kind)
	}
	if c.Kind == KindInvariant {
		if ie, ok := v.Err.(*InvariantError); !ok || ie.Inv != c.Inv {
			return fmt.Errorf("seeded bug %v: %v, want invariant %d", bug, v.Err, c.Inv)
		}
	}
	t := v.Trace
	if t.Len() != c.TraceLen || t.Loop != c.Loop || t.Stutter != c.Stutter {
		return fmt.Errorf("seeded bug %v: trace of %d steps (loop %d, stutter %v), want %d (loop %d, stutter %v)",
			bug, t.Len(), t.Loop, t.Stutter, c.TraceLen, c.Loop, c.Stutter)
	}
	return nil
}
