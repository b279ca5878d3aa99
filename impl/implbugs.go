package impl

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// ImplBug is a seeded bug in stop-the-world, procresize, timers or the
// blocking poller, whose checks are the reference scheduler's own
// runtime-style tests (stw_test.go, procresize_test.go, timers_test.go,
// driver_poll_test.go; TestHooksImplBugsCaught). The spec's seeded bugs
// (spec.Bugs, Config.SetBug) are rejected by the Driver's comparison with
// the spec; the comparison does not play its stop-the-world bugs
// (spec.STWBugs, one of which, procresize-drops-runq, is
// ImplBugProcresizeDropsRunq's twin). The spec's bugs of the poller and
// timers (spec.PollBugs) are ImplBugs of the same names (PollImplBug), and
// the comparison rejects them too (CheckSeededAgainstSpec). Like the
// spec's, they exist only in the instrumented build (-tags
// gmpcheck_hooks): the default build's scheduler tests them behind the
// constant hooksEnabled.
type ImplBug uint8

const (
	ImplBugNone ImplBug = iota
	// ImplBugProcresizeDropsRunq: procresize forgets the local run queue
	// (runnext and ring) of every P it destroys instead of moving it to the
	// global queue: those Gs stay runnable and never run.
	ImplBugProcresizeDropsRunq
	// ImplBugGCStopMNoCount: an M that gives up its P for stop-the-world
	// (gcstopm) does not count it in sched.stopwait, so StopTheWorld waits
	// for ever for a P that is already stopped.
	ImplBugGCStopMNoCount
	// ImplBugTimersNotStolen: stealWork's last round does not run other
	// Ps' due timers, so a timer on a P whose G never yields waits until
	// that G does, while the other Ps idle.
	ImplBugTimersNotStolen
	// ImplBugHandoffIgnoresPoller: handoffp lacks its "last running P and
	// nobody polling the network" clause: the P goes idle, and no M is
	// left to block in the poller for the Gs that wait on the network.
	ImplBugHandoffIgnoresPoller
	numImplBugs
)

var implBugNames = [numImplBugs]string{
	ImplBugNone:                 "none",
	ImplBugProcresizeDropsRunq:  "procresize-drops-runq",
	ImplBugGCStopMNoCount:       "gcstopm-no-count",
	ImplBugTimersNotStolen:      "timers-not-stolen",
	ImplBugHandoffIgnoresPoller: "handoffp-ignores-poller",
}

func (b ImplBug) String() string {
	if b < numImplBugs {
		return implBugNames[b]
	}
	return fmt.Sprintf("ImplBug(%d)", uint8(b))
}

// ImplBugs lists every seeded mechanism bug (ImplBugNone excluded).
func ImplBugs() []ImplBug {
	out := make([]ImplBug, 0, numImplBugs-1)
	for b := ImplBugNone + 1; b < numImplBugs; b++ {
		out = append(out, b)
	}
	return out
}

// ParseImplBug maps a name from ImplBug.String back to the ImplBug.
func ParseImplBug(name string) (ImplBug, error) {
	for b := ImplBugNone; b < numImplBugs; b++ {
		if implBugNames[b] == name {
			return b, nil
		}
	}
	return 0, fmt.Errorf("unknown seeded mechanism bug %q (want one of %v)", name, implBugNames)
}

// implBugOn reports whether the seeded mechanism bug b is switched on; in
// the default build it folds to false.
func (s *Sched) implBugOn(b ImplBug) bool { return hooksEnabled && s.cfg.implBug == b }

// PollImplBug is the impl's seeded bug of the spec's seeded bug b of the
// blocking poller or timers (one of spec.PollBugs), by name; false if b is
// not one.
func PollImplBug(b spec.Bug) (ImplBug, bool) {
	for _, pb := range spec.PollBugs() {
		if pb == b {
			ib, err := ParseImplBug(b.String())
			return ib, err == nil
		}
	}
	return ImplBugNone, false
}
