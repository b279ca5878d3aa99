//go:build gmpcheck_hooks

package impl

import (
	"fmt"
	"os"
	"slices"
	"sync/atomic"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The instrumented build, used by the checkers. It adds a yield point before
// every atomic access and a process-wide seeded-bug switch. The environment
// variable GMPCHECK_BUG selects a bug at start-up, so that a test binary can
// be run whole against a broken queue.
const hooksEnabled = true

type yieldHook struct{ f YieldFunc }

func (h *yieldHook) at(op Op, obj any) {
	if h.f != nil {
		h.f(op, obj)
	}
}

var activeBug atomic.Pointer[Bug]

func init() {
	b, err := ParseBug(os.Getenv("GMPCHECK_BUG"))
	if err != nil {
		panic("impl: GMPCHECK_BUG: " + err.Error())
	}
	activeBug.Store(&b)
}

func seeded(b Bug) bool { return *activeBug.Load() == b }

// SetSeededBug switches a seeded bug on for every queue in the process
// (NoBug switches it off). It returns an error for an unknown bug.
func SetSeededBug(b Bug) error {
	if _, err := ParseBug(string(b)); err != nil {
		return err
	}
	activeBug.Store(&b)
	return nil
}

// ActiveBug reports the seeded bug switched on.
func ActiveBug() Bug { return *activeBug.Load() }

// SetYield installs f as the yield function of q's atomic accesses (nil
// removes it). Install it before q is shared.
func (q *Runq) SetYield(f YieldFunc) error {
	q.hook.f = f
	return nil
}

// SetYield installs f as the yield function taken before the global queue's
// lock (nil removes it). Install it before s is shared.
func (s *GlobalRunq) SetYield(f YieldFunc) error {
	s.hook.f = f
	return nil
}

// SetBug seeds the scheduler bug b (one of spec.Bugs, or spec.BugNone for
// the real scheduler) into the schedulers built from c, so that the checks
// can prove they reject it.
func (c *Config) SetBug(b spec.Bug) error {
	if b != spec.BugNone && !slices.Contains(spec.Bugs(), b) {
		return fmt.Errorf("impl: %v is not a seeded scheduler bug (known: %v)", b, spec.Bugs())
	}
	c.bug = b
	return nil
}

// SetImplBug seeds the mechanism bug b (one of ImplBugs, or ImplBugNone)
// into the schedulers built from c.
func (c *Config) SetImplBug(b ImplBug) error {
	if b >= numImplBugs {
		return fmt.Errorf("impl: %v is not a seeded mechanism bug (known: %v)", b, ImplBugs())
	}
	c.implBug = b
	return nil
}
