package impl

import (
	"fmt"
	"sync/atomic"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Op names one atomic access of the run queues. Under -tags gmpcheck_hooks
// each access is preceded by a yield point that reports its Op, so that a
// controller can decide which goroutine performs the next access; the
// default build compiles the yield points out.
type Op uint8

const (
	OpLoadHead    Op = iota + 1 // atomic load of a ring's head
	OpLoadTail                  // atomic load of a ring's tail by a goroutine other than its owner
	OpStoreTail                 // the owner publishes a new tail
	OpCasHead                   // a consumer commits by CAS on head
	OpStoreHead                 // a plain store of head: only seeded bugs do this
	OpLoadSlot                  // atomic load of a ring slot
	OpStoreSlot                 // atomic store of a ring slot
	OpLoadRunnext               // atomic load of runnext
	OpCasRunnext                // CAS of runnext
	OpLockSched                 // acquiring the global queue's lock
)

var opNames = [...]string{
	OpLoadHead: "load head", OpLoadTail: "load tail", OpStoreTail: "store tail",
	OpCasHead: "cas head", OpStoreHead: "store head", OpLoadSlot: "load slot",
	OpStoreSlot: "store slot", OpLoadRunnext: "load runnext", OpCasRunnext: "cas runnext",
	OpLockSched: "lock sched",
}

func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// YieldFunc is called at a yield point, before the access it names happens.
// obj is the *Runq or *GlobalRunq being accessed. The function may block:
// that is how a controller serialises goroutines one atomic step at a time.
type YieldFunc func(op Op, obj any)

// Bug names a seeded bug: a deliberately broken variant of one queue
// operation that the checkers must reject. Bugs exist only under
// -tags gmpcheck_hooks; see SetSeededBug.
type Bug string

const (
	NoBug Bug = ""
	// BugGetNoCAS: runqget commits by a plain store of head instead of a CAS,
	// so a thief and the owner can both take the same G.
	BugGetNoCAS Bug = "get-no-cas"
	// BugStealHalfDown: runqgrab takes len/2 rounded down, so a victim with
	// one G in its ring can never be stolen from.
	BugStealHalfDown Bug = "steal-half-down"
	// BugPutSlowDropsG: runqputslow moves half the ring to the global queue
	// but forgets the G being put, which is lost.
	BugPutSlowDropsG Bug = "putslow-drops-g"
	// BugPublishBeforeWrite: runqput stores tail before it writes the slot,
	// so a thief can take a slot that does not hold the new G yet.
	BugPublishBeforeWrite Bug = "publish-before-write"
	// BugStealNoCAS: runqgrab commits by a plain store of head instead of a
	// CAS, so two consumers can take the same Gs.
	BugStealNoCAS Bug = "steal-no-cas"
	// BugEmptyNoRecheck: runqempty trusts one read of head, tail and runnext
	// without re-reading tail, so it can report empty while a G moves from
	// runnext to the ring.
	BugEmptyNoRecheck Bug = "empty-no-recheck"
)

// Bugs lists every seeded bug, for the tests that prove each is caught.
var Bugs = []Bug{BugGetNoCAS, BugStealHalfDown, BugPutSlowDropsG, BugPublishBeforeWrite, BugStealNoCAS, BugEmptyNoRecheck}

// ParseBug returns the Bug named s, or an error listing the names.
func ParseBug(s string) (Bug, error) {
	if s == "" {
		return NoBug, nil
	}
	for _, b := range Bugs {
		if string(b) == s {
			return b, nil
		}
	}
	return NoBug, fmt.Errorf("unknown seeded bug %q (known: %v)", s, Bugs)
}

// HooksEnabled reports whether this binary was built with -tags
// gmpcheck_hooks, i.e. whether yield points and seeded bugs exist in it.
func HooksEnabled() bool { return hooksEnabled }

// A Yielder is a queue with yield points: *Runq and *GlobalRunq.
type Yielder interface{ SetYield(YieldFunc) error }

// PauseFirst sets up a directed interleaving on q: the first goroutine that
// reaches one of ops on q stops at that yield point until release is called;
// reached is closed when it stops. The caller makes sure the goroutine meant
// to stop is the only one touching q until then. It replaces q's yield
// function, and needs -tags gmpcheck_hooks (otherwise SetYield's error).
func PauseFirst(q Yielder, ops ...Op) (reached <-chan struct{}, release func(), err error) {
	var fired atomic.Bool
	at, resume := make(chan struct{}), make(chan struct{})
	err = q.SetYield(func(op Op, _ any) {
		for _, o := range ops {
			if op == o && fired.CompareAndSwap(false, true) {
				close(at)
				<-resume
				return
			}
		}
	})
	return at, func() { close(resume) }, err
}

// bugOn reports whether the seeded scheduler bug b is switched on. In the
// default build hooksEnabled is a constant false, so every call folds to
// false and the bug's code path is compiled out of the scheduler.
func (s *Sched) bugOn(b spec.Bug) bool { return hooksEnabled && s.bug == b }

// strandsQueues reports whether a seeded bug that lets a P go idle with
// Gs on its run queue is on; the scheduler's assertions that an idle P's
// queue is empty then stay quiet, so that the checks see the consequence.
func (s *Sched) strandsQueues() bool {
	return s.bugOn(spec.BugRetakeIgnoresLocal) || s.bugOn(spec.BugSyscallBlockNoHandoff) || s.bugOn(spec.BugStopLockedNoHandoff)
}

// anyBug reports whether any seeded scheduler bug is switched on (a seeded
// bug may break the scheduler's own assertions, which then stay quiet).
func (s *Sched) anyBug() bool { return hooksEnabled && s.bug != spec.BugNone }
