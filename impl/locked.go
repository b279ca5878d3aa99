package impl

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// LockOSThread and entersyscallblock.
//
// A "thread" here is an M: the scheduler's worker, which in the runtime is
// an OS thread and here is a goroutine (hand-off shell, wired to an OS
// thread only with Config.PinThreads) or a role carried by goroutines
// (carrier shell). G.LockOSThread wires the running G to its M, both ways
// (m.lockedg and g.lockedm): until G.UnlockOSThread the G runs on that M
// and no other, and the M runs that G or nothing. When the G stops running
// (it parks, yields, is preempted, or leaves a syscall with no P), its M
// does not look for other work: it hands its P off and parks in
// stoplockedm. Whichever M next finds the G in a run queue does not run
// it: startlockedm gives that M's P to the locked M, which runs the G, and
// the finder goes to stopm. A G that exits while locked takes its M with
// it (mexit): the M's P is handed off and the M is gone; its slot is
// reused by the next new M, as in the spec, which numbers Ms by slot.
//
// G.SyscallBlock is entersyscallblock: a system call known to block, for
// which the M hands its P off at once (handoffp) instead of keeping it
// until sysmon retakes it.
//
// The steps are the spec's: LockOSThread, UnlockOSThread, StopLockedM,
// StartLockedM, EnterSyscallBlock, and GoExit for a locked G's exit.

// ThreadTask is the Task of the G/M/P scheduler (*G), with the calls that
// concern the G's M: the GM baseline has no per-M state to lock.
type ThreadTask interface {
	Task
	// LockOSThread wires the goroutine to the M it runs on: from now on
	// it runs only there, and the M runs nothing else. Calls nest: the
	// goroutine is unlocked after as many UnlockOSThread calls. A
	// goroutine that exits locked ends its M.
	LockOSThread()
	// UnlockOSThread undoes one LockOSThread; with none left to undo it
	// does nothing.
	UnlockOSThread()
	// SyscallBlock runs fn as a system call known to block: the M hands
	// its P to another M (or the idle list) before fn runs, so the other
	// goroutines keep running even with Procs 1, and the goroutine gets a
	// P back when fn returns.
	SyscallBlock(fn func())
}

var _ ThreadTask = (*G)(nil)

// LockOSThread wires g to its M (see ThreadTask).
func (g *G) LockOSThread() {
	m := g.mustRun("LockOSThread")
	g.x.lockCount++
	if g.x.lockCount == 0 {
		panic("gmpcheck: LockOSThread nesting too deep")
	}
	if g.x.lockCount == 1 {
		g.x.s.lockOSThread(m, g)
	}
}

// UnlockOSThread undoes one LockOSThread (see ThreadTask).
func (g *G) UnlockOSThread() {
	m := g.mustRun("UnlockOSThread")
	if g.x.lockCount == 0 {
		return
	}
	g.x.lockCount--
	if g.x.lockCount == 0 {
		g.x.s.unlockOSThread(m, g)
	}
}

// SyscallBlock runs fn as a blocking system call (see ThreadTask).
func (g *G) SyscallBlock(fn func()) {
	g.syscall("SyscallBlock", (*Sched).entersyscallblock, fn)
}

// lockOSThread sets m.lockedg and g.lockedm: g runs on m.
func (s *Sched) lockOSThread(m *M, g *G) {
	s.emitAction(spec.ActLockOSThread, m, pidOf(m.p.Load()), g)
	m.lockedg = g
	g.x.lockedm.Store(m)
}

// unlockOSThread clears both.
func (s *Sched) unlockOSThread(m *M, g *G) {
	s.emitAction(spec.ActUnlockOSThread, m, pidOf(m.p.Load()), g)
	m.lockedg = nil
	g.x.lockedm.Store(nil)
}

// entersyscallblock: the running G enters a system call that will block,
// so its M gives up its P now (handoffp), where entersyscall keeps it for
// sysmon to retake. The P is released before the G is marked in its
// syscall, so that sysmon, which retakes the P of a G in a syscall, never
// sees this one with a P.
func (s *Sched) entersyscallblock(m *M) {
	g := m.curg.Load()
	pp := m.p.Load()
	s.emitAction(spec.ActEnterSyscallBlock, m, pp.id, g)
	pp.syscalltick.Add(1)
	releasep(m)
	pp.status.Store(uint32(spec.PIdle))
	if !g.casStatus(Grunning, Gsyscall) {
		panic(fmt.Sprintf("entersyscallblock: bad g status %v", g.Status()))
	}
	s.emitStatus(g, Grunning, Gsyscall)
	s.handoffpOr(pp, spec.BugSyscallBlockNoHandoff)
}

// handoffpOr is handoffp, or with the seeded bug b the P straight onto
// the idle list, local work and all.
func (s *Sched) handoffpOr(pp *P, b spec.Bug) {
	if !s.bugOn(b) {
		s.handoffp(pp)
		return
	}
	s.glob.Lock()
	s.pidleputUnchecked(pp)
	s.glob.Unlock()
}

// pidleputUnchecked is pidleput without its checks: only seeded bugs
// strand a queue on an idle P, and New and Shutdown's startm put Ps on
// the list outside the running scheduler. sched.lock held.
func (s *Sched) pidleputUnchecked(pp *P) {
	pp.m.Store(nil)
	pp.status.Store(uint32(spec.PIdle))
	s.ps().idlep.set(int(pp.id))
	s.pidle = append(s.pidle, pp)
	s.npidle.Add(1)
}

// dispatch is schedule's last test: a G locked to another M is not run
// here but handed to that M, in the M's next step (pc MStartLocked,
// startlockedmStep); any other G is executed.
func (s *Sched) dispatch(m *M, g *G, inheritTime bool) stepResult {
	if lm := g.x.lockedm.Load(); lm != nil && lm != m && !s.bugOn(spec.BugLockedRunsAnywhere) {
		m.curg.Store(g)
		m.pc = spec.MStartLocked
		return stepAgain
	}
	s.execute(m, g, inheritTime)
	return stepRun
}

// startlockedmStep is startlockedm: m found its curg (runnable) locked to
// another M, lm. m gives lm its P and the G and goes to stopm. If lm is
// parked in stoplockedm it runs the G now, on a fresh time slice;
// otherwise it has not got there yet and will find the P in lm.nextp.
func (s *Sched) startlockedmStep(m *M) stepResult {
	g := m.curg.Load()
	lm := g.x.lockedm.Load()
	if lm == nil || lm == m {
		panic(fmt.Sprintf("startlockedm: %v is not locked to another M", g))
	}
	pp := releasep(m)
	s.emitAction(spec.ActStartLockedM, m, pp.id, g)
	m.curg.Store(nil)
	m.pc = spec.MStop
	s.glob.Lock()
	if lm.lockedWait {
		lm.lockedWait = false
		s.nmidlelocked--
		if s.dead.Load() {
			s.clearDead()
		}
		acquirep(lm, pp)
		s.execute(lm, g, false)
		s.wakeM(lm)
	} else {
		if lm.nextp != nil {
			panic("startlockedm: m.nextp already set")
		}
		lm.nextp = pp
	}
	s.glob.Unlock()
	return stepAgain
}

// stoplockedmStep is schedule for a locked M whose G stopped running: the
// M hands its P off and parks until startlockedm hands it the G with a P,
// or, if startlockedm came first (m.nextp), runs the G at once.
func (s *Sched) stoplockedmStep(m *M) stepResult {
	pp := releasep(m)
	s.emitAction(spec.ActStopLockedM, m, pp.id, m.lockedg)
	pp.status.Store(uint32(spec.PIdle))
	s.handoffpOr(pp, spec.BugStopLockedNoHandoff)
	s.glob.Lock()
	if np := m.nextp; np != nil {
		m.nextp = nil
		s.glob.Unlock()
		acquirep(m, np)
		s.execute(m, m.lockedg, false)
		return stepRun
	}
	r := s.parkLockedLocked(m)
	s.glob.Unlock()
	return r
}

// parkLockedLocked parks the locked M m, which holds no P, in stoplockedm
// (or ends it if the scheduler is stopping). sched.lock held.
func (s *Sched) parkLockedLocked(m *M) stepResult {
	if s.stopping.Load() {
		return stepExit
	}
	m.lockedWait = true
	m.pc = spec.MLockedWait
	s.nmidlelocked++
	s.checkdead()
	return stepPark
}

// mexit ends m, whose locked G has just exited: its P is handed off and
// its slot is marked free for newm. A newm inside that handoffp, with no
// M idle and the thread limit reached, takes m's slot: its thread replaces
// the exiting one, as the spec's newm slot does; in Go 1.10 and 1.11 it
// was cloned from it (exiting, newm).
func (s *Sched) mexit(m *M) {
	pp := releasep(m)
	pp.status.Store(uint32(spec.PIdle))
	s.glob.Lock()
	s.exiting = m
	s.glob.Unlock()
	s.handoffp(pp)
	s.glob.Lock()
	s.exiting = nil
	if s.allm[m.id] == m { // else a new M has its slot already
		m.dead = true
		m.pc = spec.MIdle
		s.nmdead++
	}
	s.checkdead()
	s.glob.Unlock()
}

// allMsIdleLocked reports whether no M is running: each is idle, parked in
// stoplockedm, or gone. sched.lock held.
func (s *Sched) allMsIdleLocked() bool {
	return int(s.nmidle+s.nmidlelocked+s.nmdead) == len(s.allm)
}
