package impl

import (
	"errors"
	"fmt"
	"sync"
)

// Task is what a goroutine body receives: its own handle, through which it
// creates, yields, parks, readies and blocks. Both schedulers implement it
// (*G for G/M/P, the GM baseline's own type), so workloads run on either.
//
// A Task's methods other than ID must be called only by the goroutine the
// Task was handed to, while it runs. The G/M/P scheduler's Task (*G) is
// also a ThreadTask: LockOSThread, UnlockOSThread, SyscallBlock.
type Task interface {
	// ID is the goroutine's id, as the runtime's goid: never 0, counting
	// up from 1 in the order the scheduler created the Gs (a G reused
	// from the free list may keep its old id).
	ID() uint64
	// Go starts fn as a new goroutine (newproc).
	Go(fn func(Task)) error
	// Gosched yields: the goroutine goes to the global queue (runtime.Gosched).
	Gosched()
	// Park blocks the goroutine until some Ready (gopark).
	Park(reason string)
	// ParkUnlock parks and releases l once the goroutine is waiting, so that
	// whoever finds it under l can Ready it without racing the park.
	ParkUnlock(reason string, l sync.Locker)
	// Ready makes a parked goroutine runnable (goready). It fails if t is
	// not parked: not yet parked, already readied, or exited.
	Ready(t Task) error
	// Syscall runs fn, which may block, outside the scheduler: the
	// goroutine's P may be handed to another M meanwhile (entersyscall /
	// exitsyscall).
	Syscall(fn func())
	// Checkpoint is a cooperative preemption point, like the stack check in
	// a function prologue: if sysmon asked this goroutine to yield, it does.
	Checkpoint()
}

// Scheduler is the API common to the G/M/P scheduler and the GM baseline.
type Scheduler interface {
	// Go starts fn from outside the scheduler.
	Go(fn func(Task)) error
	// Ready makes a parked goroutine runnable from outside the scheduler.
	Ready(t Task) error
	// Wait blocks until every goroutine exited, or reports a deadlock.
	Wait() error
	// Shutdown stops the scheduler and all its goroutines.
	Shutdown()
}

var (
	_ Task      = (*G)(nil)
	_ Scheduler = (*Sched)(nil)
)

// errNotRunning panics: a Task method was called on a G that is not the
// running G (after it exited, or from another goroutine).
func (g *G) mustRun(op string) *M {
	if g.Status() != Grunning || g.x.m == nil {
		panic(fmt.Sprintf("gmpcheck: %s on %v, which is %v, not running", op, g, g.Status()))
	}
	return g.x.m
}

// Go starts fn as a new G on the caller's P (newproc).
func (g *G) Go(fn func(Task)) error {
	if fn == nil {
		return errors.New("gmpcheck: Go of nil func")
	}
	m := g.mustRun("Go")
	s := g.x.s
	if s.stopping.Load() {
		return ErrShutdown
	}
	s.newproc(m, fn)
	return nil
}

// Gosched yields the P: the G goes to the back of the global queue.
func (g *G) Gosched() {
	g.mustRun("Gosched")
	g.x.preempt.Store(false)
	g.yield(reqGosched)
}

// Park blocks the G until some Ready.
func (g *G) Park(reason string) {
	g.mustRun("Park")
	g.x.reason = reason
	g.yield(reqPark)
}

// ParkUnlock parks the G and unlocks l once it is waiting.
func (g *G) ParkUnlock(reason string, l sync.Locker) {
	g.mustRun("ParkUnlock")
	g.x.reason = reason
	g.x.unlock = l
	g.yield(reqPark)
}

// Ready makes the parked G t runnable next on the caller's P.
func (g *G) Ready(t Task) error {
	m := g.mustRun("Ready")
	gp, ok := t.(*G)
	if !ok || gp == nil || gp.x.s != g.x.s {
		return errors.New("gmpcheck: Ready of a goroutine not created by this scheduler")
	}
	return g.x.s.ready(m, gp)
}

// Syscall runs fn as a blocking call: the G holds its M (and, unless
// sysmon retakes it, its P) without running Go code.
func (g *G) Syscall(fn func()) { g.syscall("Syscall", (*Sched).entersyscall, fn) }

// syscall runs fn between enter (entersyscall or entersyscallblock) and
// exitsyscall; without a P at the exit the G goes through exitsyscallNoP.
func (g *G) syscall(op string, enter func(*Sched, *M), fn func()) {
	m := g.mustRun(op)
	s := g.x.s
	enter(s, m)
	fn()
	if !s.exitsyscall(m) {
		g.yield(reqExitSyscallNoP)
	}
}

// Checkpoint yields if sysmon asked this G to (it has run a whole time
// slice). It is one atomic load when there is no request.
func (g *G) Checkpoint() {
	if g.x.preempt.Load() {
		g.mustRun("Checkpoint")
		g.x.preempt.Store(false)
		g.yield(reqPreempt)
	}
}
