package impl

import (
	"fmt"
	"runtime"

	"github.com/gmpcheck/gmpcheck/spec"
)

// gscan is the runtime's _Gscan bit: sysmon sets it on a G in a syscall
// while it takes the G's P, and exitsyscall waits for it to clear. It
// serialises retake with the syscall's exit without a lock on the fast path.
const gscan Gstatus = 0x1000

// entersyscall: the running G is about to block outside the scheduler. It
// keeps its M and, for now, its P; sysmon takes the P if the call lasts.
func (s *Sched) entersyscall(m *M) {
	g := m.curg.Load()
	pp := m.p.Load()
	s.emitAction(spec.ActEnterSyscall, m, pp.id, g)
	m.oldp = pp
	if !g.casStatus(Grunning, Gsyscall) {
		panic(fmt.Sprintf("entersyscall: bad g status %v", g.Status()))
	}
	s.emitStatus(g, Grunning, Gsyscall)
	s.entersyscallGCWait(m, pp)
	if s.sysmonOn.Load() {
		s.wakeSysmon()
	}
}

// exitsyscall is the G's return from a syscall, run by the G itself. It
// reports true if the G may go on running: the fast path (its M still holds
// its P) or an idle P it could take. Otherwise the G must give its M back
// (exitsyscallNoP).
func (s *Sched) exitsyscall(m *M) bool {
	g := m.curg.Load()
	// Wait out a retake in progress (the scan bit), then claim the G.
	for !g.casStatus(Gsyscall, Grunning) {
		switch st := g.Status(); st {
		case Gsyscall | gscan:
			runtime.Gosched()
		case Gsyscall: // the scan bit was just released: retry
		default:
			panic(fmt.Sprintf("exitsyscall: bad g status %v", st))
		}
	}
	oldp := m.oldp
	m.oldp = nil
	if pp := m.p.Load(); pp != nil {
		pp.syscalltick.Add(1)
		s.emitAction(spec.ActExitSyscallFast, m, pp.id, g)
		s.emitStatus(g, Gsyscall, Grunning)
		return true
	}
	if oldp != nil && s.takeOldP(m, oldp) {
		oldp.syscalltick.Add(1)
		s.emitAction(spec.ActExitSyscallOldP, m, oldp.id, g)
		s.emitStatus(g, Gsyscall, Grunning)
		return true
	}
	if s.npidle.Load() > 0 {
		s.glob.Lock()
		pp := s.pidleget()
		s.glob.Unlock()
		if pp != nil {
			acquirep(m, pp)
			pp.syscalltick.Add(1)
			if s.sysmonOn.Load() {
				s.wakeSysmon()
			}
			s.emitAction(spec.ActExitSyscallIdleP, m, pp.id, g)
			s.emitStatus(g, Gsyscall, Grunning)
			return true
		}
	}
	return false
}

// takeOldP is exitsyscallTryGetP's first try: the P m entered its syscall
// with, taken back from the M holding it now if that M is itself in a
// syscall (setBlockOnExitSyscall, takeP, resume), and acquired. The M it
// was taken from finds it gone when it leaves its own syscall, as after
// a retake.
func (s *Sched) takeOldP(m *M, oldp *P) bool {
	if oldp.status.Load() != uint32(spec.PRunning) {
		return false
	}
	m2, g2, ok := holdInSyscall(oldp)
	if !ok {
		return false
	}
	m2.p.Store(nil)
	oldp.m.Store(nil)
	oldp.status.Store(uint32(spec.PIdle))
	oldp.syscalltick.Add(1)
	g2.casStatus(Gsyscall|gscan, Gsyscall)
	oldp.status.Store(uint32(spec.PRunning))
	acquirep(m, oldp)
	return true
}

// exitsyscallNoP runs on the M after its G found no P: the G becomes
// runnable, still in the M's hand (curg) until the M's next step, the sched.lock
// section exitsyscallNoPLocked.
func (s *Sched) exitsyscallNoP(m *M) stepResult {
	g := m.curg.Load()
	if !g.casStatus(Grunning, Grunnable) {
		panic(fmt.Sprintf("exitsyscallNoP: bad g status %v", g.Status()))
	}
	m.pc = spec.MSyscallNoP
	s.emitAction(spec.ActExitSyscallNoP, m, -1, g)
	s.emitStatus(g, Gsyscall, Grunnable)
	return stepAgain
}

// exitsyscallNoPLocked is exitsyscallNoP's sched.lock section: if a P went
// idle since exitsyscall looked, the M takes it and executes the G (a fresh
// time slice: schedtick counts it); else the G goes to the global queue,
// for any M with a P, and the M goes on to stopm, or, if the G is locked
// to it, parks in stoplockedm.
func (s *Sched) exitsyscallNoPLocked(m *M) stepResult {
	g := dropg(m)
	s.glob.Lock()
	if pp := s.pidleget(); pp != nil {
		s.glob.Unlock()
		acquirep(m, pp)
		if s.sysmonOn.Load() {
			s.wakeSysmon()
		}
		s.emitAction(spec.ActExitSyscallLateP, m, pp.id, g)
		s.execute(m, g, false)
		return stepRun
	}
	s.glob.put(g)
	s.emitAction(spec.ActExitSyscallGlobrunq, m, -1, g)
	s.emit(Event{Kind: EvGlobPut, M: m.id, P: -1, G: g.goid})
	if s.cfg.Go == spec.Go117dev {
		// The G is published, for any M with a P to take and run;
		// whether it is locked is read in the M's next step, after the
		// unlock (exitLockCheckStep). An unlocked M keeps the G to read
		// (the spec keeps it in MState.Inj).
		if m.lockedg == nil {
			m.lockCheck = g
		}
		m.pc = spec.MExitLockCheck
		s.glob.Unlock()
		return stepAgain
	}
	r := stepAgain
	m.pc = spec.MStop
	if m.lockedg != nil {
		// A locked M does not stopm: it waits in stoplockedm (it has no
		// P to hand off) for whoever finds its G to hand both back. In
		// the same lock section as the put, so that nobody finds the G
		// before the M is parked.
		r = s.parkLockedLocked(m)
	}
	s.glob.Unlock()
	return r
}

// exitLockCheckStep is the Go 1.17 development tree's end of
// exitsyscall's slow path (spec.Go117dev): having put its G on sched.runq
// and released the lock, the M reads whether the G is locked. If it is,
// to this M or by now, run elsewhere, to another, the M parks in
// stoplockedm, which throws when the M has no locked G of its own: the
// builders' "stoplockedm: inconsistent locking" (golang/go#46524). Else
// the M goes on to stopm.
func (s *Sched) exitLockCheckStep(m *M) stepResult {
	g := m.lockedg
	if g == nil {
		g, m.lockCheck = m.lockCheck, nil
	}
	s.emitAction(spec.ActExitSyscallLockCheck, m, -1, nil)
	s.glob.Lock()
	defer s.glob.Unlock()
	if g.x.lockedm.Load() == nil {
		m.pc = spec.MStop
		return stepAgain
	}
	if m.lockedg == nil || m.lockedg.x.lockedm.Load() != m {
		panic("stoplockedm: inconsistent locking")
	}
	return s.parkLockedLocked(m)
}

// retakeSyscallOK is sysmon's rule for taking the P of an M blocked in a
// syscall that has lasted at least one sysmon tick: take it if the P has
// local work (it is stranded), or if no M is spinning and no P idle (nobody
// else could pick up new work), or once the syscall has lasted 10 ms
// (long enough that the P is better used elsewhere).
func retakeSyscallOK(runqEmpty bool, nmspinning, npidle int32, long bool) bool {
	return !runqEmpty || nmspinning+npidle == 0 || long
}

// holdInSyscall is setBlockOnExitSyscall: if pp's M has its G in a
// syscall on pp, it holds the G there with the scan bit (m.p cannot change
// while it is set) and returns both; the caller clears the bit with
// g.casStatus(Gsyscall|gscan, Gsyscall). Retake and the stop-the-world
// both take a syscall's P this way.
func holdInSyscall(pp *P) (*M, *G, bool) {
	m := pp.m.Load()
	if m == nil {
		return nil, nil, false
	}
	return holdSeen(pp, m, m.curg.Load())
}

// holdSeen is holdInSyscall past its two reads, pp.m (m) and m.curg (g).
// Those race with the Ms, so g may since have left that syscall and
// entered another on another M, while m runs a new G on pp: the scan bit
// is won all the same, and taking pp would pull the P from under a running
// G. So, with g held (it cannot leave its syscall, so its M cannot
// change), the M that g itself names must still be m, and m's P still pp.
// Reading g.x.m is ordered by the CAS: the M wrote it before g's status
// became Gsyscall, and writes it again only after exitsyscall, which waits
// for the scan bit.
func holdSeen(pp *P, m *M, g *G) (*M, *G, bool) {
	if g == nil || !g.casStatus(Gsyscall, Gsyscall|gscan) {
		return nil, nil, false
	}
	if g.x.m != m || m.p.Load() != pp {
		g.casStatus(Gsyscall|gscan, Gsyscall)
		return nil, nil, false
	}
	return m, g, true
}

// retakeSyscall takes pp from its M if that M's G is in a syscall and the
// decide function, given whether pp's queue is empty, agrees; then hands pp
// off. It reports whether it took the P. The two halves are the spec's
// Retake and RetakeHandoff: the M, resumed by the first, may leave its
// syscall (without the P) before the second.
func (s *Sched) retakeSyscall(pp *P, decide func(runqEmpty bool) bool) bool {
	if !s.retakeTakeP(pp, decide) {
		return false
	}
	s.retakeHandoff(pp)
	return true
}

// retakeTakeP is retake up to its handoffp: setBlockOnExitSyscall, the
// decision, takeP and resume. On success sysmon holds pp: unwired, _Pidle
// in its status but on no idle list, until retakeHandoff.
func (s *Sched) retakeTakeP(pp *P, decide func(runqEmpty bool) bool) bool {
	m, g, ok := holdInSyscall(pp)
	if !ok {
		return false
	}
	empty := pp.runq.Empty() || s.bugOn(spec.BugRetakeIgnoresLocal)
	if !decide(empty) {
		g.casStatus(Gsyscall|gscan, Gsyscall)
		return false
	}
	// While sysmon holds the P (taken, not yet handed off) checkdead must
	// not conclude anything: the M leaving the syscall may go idle and see
	// runnable Gs with every M idle (the runtime's incidlelocked(-1)).
	s.sysmonHeld.Add(1)
	s.retakeP.Store(pp.id + 1)
	// takeP: the P is unwired and _Pidle (though not yet on the idle list)
	// before handoffp finds it a home, as the runtime's releaseP stores it.
	m.p.Store(nil)
	pp.m.Store(nil)
	pp.status.Store(uint32(spec.PIdle))
	pp.syscalltick.Add(1)
	g.casStatus(Gsyscall|gscan, Gsyscall)
	s.counters.Retakes.Add(1)
	s.emitAction(spec.ActRetake, nil, pp.id, g)
	return true
}

// retakeHandoff is the rest of retake for the P retakeTakeP took: its
// handoffp, after which checkdead may look again.
func (s *Sched) retakeHandoff(pp *P) {
	s.retakeP.Store(0)
	// Emitted before handoffp's reads: the step's effects follow it (its
	// EvHandoff, and its startm's EvStartM, end them).
	s.emitAction(spec.ActRetakeHandoff, nil, pp.id, nil)
	s.handoffp(pp)
	s.glob.Lock()
	s.sysmonHeld.Add(-1)
	s.checkdead()
	s.glob.Unlock()
}
