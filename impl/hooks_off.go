//go:build !gmpcheck_hooks

package impl

import (
	"errors"
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

var errNoHooks = errors.New("impl: test hooks are compiled out; build with -tags gmpcheck_hooks")

// The default build: hooksEnabled is a constant false, so every
// "hooksEnabled && seeded(...)" test and every yield point below compiles to
// nothing. BenchmarkRunqPutGet and friends, run with and without the tag,
// show that the checked code costs the running code nothing.
const hooksEnabled = false

// yieldHook is empty in the default build: a Runq carries no hook state.
type yieldHook struct{}

func (yieldHook) at(Op, any) {}

func seeded(Bug) bool { return false }

// SetSeededBug switches a seeded bug on for every queue in the process.
// Without -tags gmpcheck_hooks only NoBug is accepted.
func SetSeededBug(b Bug) error {
	if b == NoBug {
		return nil
	}
	return errNoHooks
}

// ActiveBug reports the seeded bug switched on, NoBug in the default build.
func ActiveBug() Bug { return NoBug }

// SetYield installs a yield function; it needs -tags gmpcheck_hooks.
func (q *Runq) SetYield(YieldFunc) error { return errNoHooks }

// SetYield installs a yield function; it needs -tags gmpcheck_hooks.
func (s *GlobalRunq) SetYield(YieldFunc) error { return errNoHooks }

// SetBug seeds the scheduler bug b (one of spec.Bugs) into the schedulers
// built from c, for the checks' self-tests. Seeded scheduler bugs exist only
// under -tags gmpcheck_hooks: here only spec.BugNone is accepted.
func (c *Config) SetBug(b spec.Bug) error {
	if b == spec.BugNone {
		c.bug = b
		return nil
	}
	return fmt.Errorf("seeded scheduler bug %v: %w", b, errNoHooks)
}

// SetImplBug seeds the mechanism bug b (one of ImplBugs) into the
// schedulers built from c; here, without -tags gmpcheck_hooks, only
// ImplBugNone is accepted.
func (c *Config) SetImplBug(b ImplBug) error {
	if b == ImplBugNone {
		c.implBug = b
		return nil
	}
	return fmt.Errorf("seeded mechanism bug %v: %w", b, errNoHooks)
}
