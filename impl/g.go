package impl

import (
	"fmt"
	"sync/atomic"
)

// Gstatus is a goroutine's scheduling state, named as the runtime's _G*
// constants.
type Gstatus uint32

const (
	Gidle     Gstatus = iota // just allocated, not yet initialised
	Grunnable                // on a run queue, not executing
	Grunning                 // executing on an M that holds a P
	Gsyscall                 // in a blocking call, holding its M but not (for long) a P
	Gwaiting                 // parked: only a Ready makes it runnable again
	Gdead                    // exited; the descriptor may be reused from a free list
)

var gstatusNames = [...]string{"idle", "runnable", "running", "syscall", "waiting", "dead"}

func (s Gstatus) String() string {
	if int(s) < len(gstatusNames) {
		return gstatusNames[s]
	}
	return fmt.Sprintf("Gstatus(%d)", uint32(s))
}

// G is a goroutine descriptor. The run queues only need its identity and
// schedlink; the scheduler grows it with the state it needs.
//
// A G is on at most one queue at a time. schedlink chains it in a GQueue
// (the global queue, a batch, a free list) and is only touched by whoever
// owns that queue (under the global queue's lock, or a goroutine's private
// batch), so it needs no atomics; the local ring does not use it.
type G struct {
	goid      uint64
	status    atomic.Uint32
	schedlink *G

	// x is the scheduler's per-G state (sched.go); the run queues never
	// touch it.
	x gsched
}

// NewG returns a goroutine descriptor with the given id, in status Gidle.
// Tests, recorders and fuzzers build their own Gs with it to drive the queues.
func NewG(id uint64) *G {
	return &G{goid: id}
}

// ID is the goroutine's id (the runtime's goid).
func (g *G) ID() uint64 { return g.goid }

// Status reads the goroutine's status.
func (g *G) Status() Gstatus { return Gstatus(g.status.Load()) }

// SetStatus sets the goroutine's status.
func (g *G) SetStatus(s Gstatus) { g.status.Store(uint32(s)) }

// casStatus moves the status from old to new, reporting whether it did.
func (g *G) casStatus(old, new Gstatus) bool {
	return g.status.CompareAndSwap(uint32(old), uint32(new))
}

func (g *G) String() string {
	if g == nil {
		return "g<nil>"
	}
	return fmt.Sprintf("g%d", g.goid)
}
