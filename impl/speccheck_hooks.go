//go:build gmpcheck_hooks

package impl

import "github.com/gmpcheck/gmpcheck/spec"

// CheckSeededAgainstSpec is CheckAgainstSpec with the seeded bug b built into
// the impl only (the spec stays the real algorithm): the self-test of the
// driver comparison, which must report a divergence for every seeded bug
// within a bounded number of random traces.
//
// For a bug of the blocking poller or timers (spec.PollBugs) the bounds
// are drawn with them (CheckPollAgainstSpec), and the impl is built with
// the ImplBug of the same name.
func CheckSeededAgainstSpec(c Chooser, b spec.Bug, steps int) error {
	if _, ok := PollImplBug(b); ok {
		return checkPollAgainstSpec(c, b, steps, nil, nil)
	}
	return checkAgainstSpec(c, b, false, steps, nil)
}
