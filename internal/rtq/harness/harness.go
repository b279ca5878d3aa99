// Package harness runs gmpcheck's run-queue checks on any implementation of
// Queues. Its user is the program rtq generates around a Go release's own
// run-queue code (extracted from that release's src/runtime/proc.go into a
// temporary directory at run time): the differential against impl/runq.go
// and spec/, the conservation stress, porcupine linearizability of
// concurrent histories, and the interleaving explorer's scenarios.
//
// Gs are numbered from 1; 0 is no G.
package harness

import "github.com/gmpcheck/gmpcheck/impl"

// Queues is one run-queue implementation at one ring capacity: nprocs Ps'
// local queues and the global queue. P indexes are 0..nprocs-1. The methods
// follow proc.go's functions; Has* report optional functions (missing in
// older releases) and GlobGetLocal the older globrunqget(pp, max) shape.
type Queues interface {
	Cap() int
	// Reset discards every queue and G and makes nprocs empty Ps and an
	// empty global queue, with no yield or backoff hook.
	Reset(nprocs int)

	Put(p int, g uint64, next bool)                    // runqput
	Get(p int) (g uint64, inheritTime bool)            // runqget
	Steal(thief, victim int, stealRunNext bool) uint64 // runqsteal
	Empty(p int) bool                                  // runqempty
	// Contents is runnext and the ring head first, read without yield
	// points: for a quiescent queue.
	Contents(p int) (runnext uint64, ring []uint64)

	HasPutBatch() bool
	// PutBatch is runqputbatch. It returns what did not fit, or spilled
	// true when the release puts that on the global queue itself.
	PutBatch(p int, gs []uint64) (rest []uint64, spilled bool)
	HasDrain() bool
	Drain(p int) []uint64 // runqdrain

	GlobPut(g uint64) // globrunqput, under sched.lock
	HasGlobPutHead() bool
	GlobPutHead(g uint64)     // globrunqputhead
	GlobPutBatch(gs []uint64) // globrunqputbatch
	GlobGetLocal() bool
	GlobGet() uint64                              // globrunqget() (1.25+)
	GlobGetBatch(n, procs int) (uint64, []uint64) // globrunqgetbatch (1.25+)
	GlobGetInto(p, max, procs int) uint64         // globrunqget(pp, max) (up to 1.24)
	GlobContents() (gs []uint64, size int)        // the Gs and the recorded size

	// SetYield installs the function called before every atomic access
	// (obj is the P, or -1 for sched.lock); nil removes it.
	SetYield(func(op impl.Op, obj int))
	// SetBackoff installs the runnext steal's backoff (usleep/osyield).
	SetBackoff(func())
}
