package impl

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Stop-the-world: stopTheWorldWithSema and startTheWorldWithSema at the
// scheduler's level (no GC here: what the world is stopped for is the
// caller's business; SetProcs is one such caller).
//
// StopTheWorld sets sched.gcwaiting under sched.lock and, in the same lock
// section, takes every idle P and every P whose G is in a syscall to the
// stopped state (_Pgcstop) and asks the running Gs to yield (preemptall).
// The Ms still running notice gcwaiting at their next schedule step
// (findRunnable's top, each stealWork victim, the section that would
// release the P): gcstopm stops their P, counts it in sched.stopwait and
// sends the M to stopm (a spinning M first stops spinning, a step of its
// own, as in the spec). A G that yields for the stop keeps its P's runnext, so it
// runs first when the world starts again. handoffp stops the P it was
// handing off, and a G entering a syscall stops its own P. The last P to
// stop wakes the waiting caller.
//
// StartTheWorld gives each stopped P with local work an M (startm), puts
// the others on the idle list, clears gcwaiting and wakes a spinning M for
// whatever work is in the global queue (wakep), as startTheWorldWithSema
// does.

// The P statuses of stop-the-world and procresize, the spec's.
const (
	pGCStop = uint32(spec.PGCStop) // _Pgcstop: stopped by stop-the-world, held by no M
	pDead   = uint32(spec.PDead)   // _Pdead: destroyed by procresize
)

// worldState is the scheduler's stop-the-world state.
type worldState struct {
	// sema is worldsema: one stop-the-world at a time, held from
	// StopTheWorld until StartTheWorld.
	sema sync.Mutex
	// gcwaiting is sched.gcwaiting: set under sched.lock, read by every M
	// at its schedule steps.
	gcwaiting atomic.Bool
	// stopwait is sched.stopwait: Ps not yet stopped. Under sched.lock.
	stopwait int32
	// stopnote is sched.stopnote: the P that brings stopwait to 0
	// signals it (capacity 1).
	stopnote chan struct{}
	// stopped says the world is stopped (between a StopTheWorld that
	// returned nil and its StartTheWorld).
	stopped atomic.Bool
	// grown is go1.10dev's allp between procresize growing it and making
	// the new P (Driver.ProcResizeGrow): one nil slot longer than
	// gomaxprocs. nil otherwise.
	grown atomic.Pointer[[]*P]
}

// Errors of the stop-the-world API.
var (
	// ErrWorldNotStopped is StartTheWorld's error when no StopTheWorld
	// stopped the world.
	ErrWorldNotStopped = errors.New("gmpcheck: StartTheWorld: the world is not stopped")
	// errSTWTimeout is stopTheWorld's error when its time limit passed.
	errSTWTimeout = errors.New("gmpcheck: stop-the-world timed out")
)

// stwRepreempt is how long StopTheWorld waits before asking the running
// Gs to yield again (a G may have started running after the last ask).
const stwRepreempt = 100 * time.Microsecond

// StopTheWorld stops every P: when it returns, no G runs (Gs in syscalls go
// on with their call, but none gets a P until StartTheWorld), and the
// caller may inspect or change the scheduler. Calls are serialised: a
// second StopTheWorld waits for the first one's StartTheWorld.
//
// It differs from the runtime's stopTheWorld in who calls it. There the
// caller is a G holding a P, whose own P is the first to stop and which
// goes on running, alone, on the stopped world. Here the caller is
// outside the scheduler (a test, a monitoring goroutine), so every P is
// stopped, including the one that would have been the caller's; a G of
// this scheduler must not call it (its own P would never stop). A G that
// never reaches a Checkpoint, Gosched, park or syscall cannot be stopped,
// as a runtime without asynchronous preemption could not stop a tight loop.
//
// It returns ErrShutdown after Shutdown, and an error for the Driver's
// deterministic scheduler, which has no goroutines to wait for.
func (s *Sched) StopTheWorld() error { return s.stopTheWorld(0) }

// StartTheWorld restarts the world that StopTheWorld stopped: every P with
// local work gets an M, the others go idle, and one spinning M is woken to
// look for the rest. It returns ErrWorldNotStopped if the world is not
// stopped.
func (s *Sched) StartTheWorld() error {
	if !s.world.stopped.Load() {
		return ErrWorldNotStopped
	}
	s.startTheWorld(0)
	return nil
}

// stopTheWorld is StopTheWorld with a time limit (0: none): after it, the
// stop is abandoned (the Ps already stopped start again) and
// errSTWTimeout returned, so that a test of a broken scheduler reports the
// hang instead of hanging.
func (s *Sched) stopTheWorld(limit time.Duration) error {
	if s.det {
		return errors.New("gmpcheck: StopTheWorld needs the concurrent scheduler, not the Driver")
	}
	s.world.sema.Lock()
	if s.stopping.Load() {
		s.world.sema.Unlock()
		return ErrShutdown
	}
	select { // a signal left by an abandoned stop
	case <-s.world.stopnote:
	default:
	}
	if left := s.stopTheWorldSection(); left > 0 {
		if err := s.awaitStop(limit); err != nil {
			s.startTheWorld(0)
			return err
		}
	}
	s.glob.Lock()
	bad := notStopped(s.world.stopwait, s.ps().allp)
	s.glob.Unlock()
	if bad != "" {
		panic(bad)
	}
	s.world.stopped.Store(true)
	return nil
}

// stopLeft is sched.stopwait, read under sched.lock: the Ps a stop still
// waits for.
func (s *Sched) stopLeft() int32 {
	s.glob.Lock()
	defer s.glob.Unlock()
	return s.world.stopwait
}

// notStopped says why the world is not stopped ("" when it is): the
// runtime's checks after the stop, stopwait at zero and every P in
// _Pgcstop. The first failure is reported.
func notStopped(stopwait int32, allp []*P) string {
	if stopwait != 0 {
		return fmt.Sprintf("stopTheWorld: not stopped (stopwait %d != 0)", stopwait)
	}
	for _, pp := range allp {
		if st := pp.status.Load(); st != pGCStop {
			return fmt.Sprintf("stopTheWorld: not stopped (p%d status %#x != _Pgcstop)", pp.id, st)
		}
	}
	return ""
}

// stopTheWorldSection is stopTheWorldWithSema's sched.lock section: it
// sets gcwaiting, asks the running Gs to yield, and stops the Ps whose G
// is in a syscall and the idle Ps. It returns how many Ps are left to
// stop themselves.
func (s *Sched) stopTheWorldSection() int32 {
	s.glob.Lock()
	ps := s.ps()
	s.world.stopwait = ps.n
	s.world.gcwaiting.Store(true)
	s.preemptall()
	// Ps whose G is in a syscall stop now: their M gives them up when
	// the syscall returns.
	for _, pp := range ps.allp {
		s.gcstopSyscallPLocked(pp)
	}
	// So do idle Ps.
	for {
		pp := s.pidleget()
		if pp == nil {
			break
		}
		pp.status.Store(pGCStop)
		s.world.stopwait--
	}
	left := s.world.stopwait
	s.glob.Unlock()
	s.emitAction(spec.ActStopTheWorld, nil, -1, nil)
	return left
}

// awaitStop waits for the last P to stop, asking the running Gs to yield
// again every stwRepreempt. It gives up after limit (if positive) or at
// Shutdown.
func (s *Sched) awaitStop(limit time.Duration) error {
	var deadline <-chan time.Time
	if limit > 0 {
		dt := time.NewTimer(limit)
		defer dt.Stop()
		deadline = dt.C
	}
	t := time.NewTimer(stwRepreempt)
	defer t.Stop()
	for {
		select {
		case <-s.world.stopnote:
			return nil
		case <-t.C:
			if s.stopping.Load() {
				return ErrShutdown
			}
			s.preemptall()
			t.Reset(stwRepreempt)
		case <-deadline:
			s.glob.Lock()
			left := s.world.stopwait
			s.glob.Unlock()
			return fmt.Errorf("%w: %d of %d Ps still not stopped after %v", errSTWTimeout, left, s.Procs(), limit)
		}
	}
}

// preemptall asks the G running on every running P to yield
// (preemptone); best effort, as in the runtime.
func (s *Sched) preemptall() {
	for _, pp := range s.ps().allp {
		if pp.status.Load() == uint32(spec.PRunning) {
			s.preemptone(pp)
		}
	}
}

// stopOneLocked counts one more stopped P and wakes the stopper when it
// was the last. sched.lock held.
func (s *Sched) stopOneLocked() {
	s.world.stopwait--
	if s.world.stopwait == 0 {
		select {
		case s.world.stopnote <- struct{}{}:
		default:
		}
	}
}

// gcstopSyscallPLocked stops pp if its G is in a syscall: as retake does,
// it holds the G in its syscall with the scan bit while it unwires the P
// (setBlockOnExitSyscall, gcstopP). It reports whether it stopped pp.
// sched.lock held.
func (s *Sched) gcstopSyscallPLocked(pp *P) bool {
	if pp.status.Load() != uint32(spec.PRunning) {
		return false
	}
	m, g, ok := holdInSyscall(pp)
	if !ok {
		return false
	}
	m.p.Store(nil)
	pp.m.Store(nil)
	pp.status.Store(pGCStop)
	pp.syscalltick.Add(1)
	g.casStatus(Gsyscall|gscan, Gsyscall)
	s.stopOneLocked()
	return true
}

// entersyscallGCWait is entersyscall's check for a pending stop, made once
// the G is in its syscall (so that either this check or the stopper's
// scan of the Ps sees the other): the P stops now instead of waiting for
// the syscall to return (entersyscallHandleGCWait).
func (s *Sched) entersyscallGCWait(m *M, pp *P) {
	if !s.world.gcwaiting.Load() {
		return
	}
	s.glob.Lock()
	stopped := s.world.gcwaiting.Load() && s.gcstopSyscallPLocked(pp)
	s.glob.Unlock()
	if stopped {
		// Part of the spec's EnterSyscall: not an action of its own.
		s.emit(Event{Kind: EvGCStopP, M: m.id, P: pp.id})
	}
}

// gcStopPoint reports whether an M at pc, holding a P, is where the
// runtime's findRunnable looks at gcwaiting: its top, and stealWork (the
// section that releases the P looks under sched.lock, dropStep).
func gcStopPoint(pc spec.MPC) bool {
	return pc == spec.MSched || pc == spec.MSteal
}

// gcstopmStep is gcstopm, in the spec's two steps (spec.ActGCStopM): a
// spinning M first stops counting itself in nmspinning (an atomic) and goes
// back to findRunnable's top, where it meets gcwaiting again; an M that is
// not spinning gives its P up to the stop (_Pgcstop, counted in stopwait,
// in one sched.lock section) and goes on to stopm (pc MStop), as gcstopm
// ends in stopm. If the stop was abandoned meanwhile, the M just goes back
// to the top.
func (s *Sched) gcstopmStep(m *M) stepResult {
	if m.spinning && s.world.gcwaiting.Load() {
		return s.gcstopmSpinning(m)
	}
	s.glob.Lock()
	r := s.gcstopmLocked(m)
	s.glob.Unlock()
	return r
}

// gcstopmSpinning is gcstopm's first step for a spinning M: startTheWorld
// wakes an M if there is work, so nobody needs to hear of this one's end
// of spinning.
func (s *Sched) gcstopmSpinning(m *M) stepResult {
	pp := m.p.Load()
	m.spinning = false
	if s.nmspinning.Add(-1) < 0 {
		panic("gcstopm: negative nmspinning")
	}
	s.emit(Event{Kind: EvSpinning, M: m.id, P: pp.id, On: false})
	m.scan = stealScan{}
	m.pc = spec.MSched
	s.emitAction(spec.ActGCStopM, m, pp.id, nil)
	return stepAgain
}

// gcstopmLocked is gcstopmStep under sched.lock (also from the drop
// section, dropStep, which holds it already).
func (s *Sched) gcstopmLocked(m *M) stepResult {
	if !s.world.gcwaiting.Load() {
		if m.pc == spec.MSteal || m.pc == spec.MDrop {
			m.scan = stealScan{}
			m.pc = spec.MSched
		}
		return stepAgain
	}
	if m.spinning {
		return s.gcstopmSpinning(m)
	}
	pp := releasep(m)
	pp.status.Store(pGCStop)
	if !s.implBugOn(ImplBugGCStopMNoCount) {
		s.stopOneLocked()
	}
	m.scan = stealScan{}
	m.pollUntil, m.wasSpinning = 0, false
	m.pc = spec.MStop
	s.emitAction(spec.ActGCStopM, m, pp.id, nil)
	return stepAgain
}

// startTheWorld is startTheWorldWithSema: its lock section
// (startTheWorldSection), then the stopper's wakep.
func (s *Sched) startTheWorld(newprocs int32) {
	s.startTheWorldSection(newprocs)
	s.startTheWorldWakep()
}

// startTheWorldSection is startTheWorldWithSema up to its wakep: a
// netpoll(0) first (its Gs go to the global queue), then, in one sched.lock
// section, procresize if newprocs is not 0, every stopped P gets an M if it
// has local work or goes idle, and gcwaiting is cleared. A stop abandoned
// before every P stopped (stopTheWorld's time limit) restarts the same
// way: the Ps still running are left alone. The world is running again
// when it returns (worldsema is released).
func (s *Sched) startTheWorldSection(newprocs int32) {
	s.glob.Lock()
	if s.poll.nready.Load() != 0 {
		s.netpollInjectNoPLocked()
	}
	if newprocs != 0 && newprocs != s.ps().n {
		s.procresize(newprocs)
	}
	if g := s.world.grown.Load(); g != nil {
		// go1.10dev's procresize fills the slot it grew allp by in the
		// same array, which a recheck walking it may be reading.
		copy(*g, s.ps().allp)
		s.world.grown.Store(nil)
	}
	s.world.gcwaiting.Store(false)
	allp := s.ps().allp
	// From the highest P down, as procresize builds its list of runnable
	// Ps (the spec's order: startm takes the lowest idle M each time).
	// A P with only timers goes idle, as in procresize: the stopper's
	// wakep that follows starts a spinning M, whose findRunnable sees
	// them (steal rounds, checkTimersNoP).
	for i := len(allp) - 1; i >= 0; i-- {
		pp := allp[i]
		if pp.status.Load() != pGCStop || pp.runq.Empty() {
			continue
		}
		pp.status.Store(uint32(spec.PIdle)) // startm wires it
		s.startm(pp, false, true)
	}
	// Then the Ps without work go idle from the lowest up, as Go 1.26
	// puts the list it collected: the highest of them is on top.
	for _, pp := range allp {
		if pp.status.Load() == pGCStop {
			s.pidleput(pp)
		}
	}
	procs := s.ps().n
	s.glob.Unlock()
	if s.trace != nil {
		s.trace(Event{Kind: EvAction, Action: spec.ActStartTheWorld, M: -1, P: -1, N: procs})
	}
	s.world.stopped.Store(false)
	s.world.sema.Unlock()
	if s.sysmonOn.Load() {
		s.wakeSysmon()
	}
}

// startTheWorldWakep is the stopper's wakep after the restart: there may
// be more work than the Ps just started (the global queue). One step, as
// the spec's StartTheWorldWakep: the CAS of nmspinning and the sched.lock
// section that starts a spinning M on an idle P (or, with none, sets
// needspinning).
func (s *Sched) startTheWorldWakep() {
	s.wakepNoM()
	s.emitAction(spec.ActStartTheWorldWakep, nil, -1, nil)
}
