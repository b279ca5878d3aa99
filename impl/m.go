package impl

import (
	"fmt"
	"sync/atomic"

	"github.com/gmpcheck/gmpcheck/spec"
)

// M is a worker: in the runtime an OS thread, here a goroutine (optionally
// locked to an OS thread). It runs the schedule loop while holding a P and
// hands control to one G at a time.
type M struct {
	id   int32
	p    atomic.Pointer[P]
	curg atomic.Pointer[G]
	oldp *P // the P held when the current syscall began

	// pc is where the M is in the scheduler (the spec's M PC): idle in
	// stopm, in findRunnable holding a P, in the no-P recheck, or running
	// its curg. Only the M itself changes it, except that startm moves an
	// idle M to MSched under sched.lock.
	pc       spec.MPC
	spinning bool      // m.spinning: looking for work to steal
	scan     stealScan // pc MSteal: where stealWork is
	victim   *P        // pc MStealNext: the P whose ring runqgrab read empty; its runnext is next
	rpos     int       // pc MRecheckRunqs: the next P checkRunqsNoP looks at
	snap     *procSet  // the Ps as they were when the M released its P (allpSnapshot), for the no-P recheck
	walk     []*P      // go1.10dev: the live allp as the no-P recheck's first step read it (recheckLiveAllpStep)
	// lockCheck is go1.17dev's G that exitsyscall put on sched.runq, whose
	// lockedm an unlocked M reads in its next step (pc MExitLockCheck).
	lockCheck *G
	// pollUntil is the earliest timer the M saw in findRunnable (0:
	// none): with no work found it sleeps in the poller until then
	// instead of parking. wasSpinning says it released its P spinning
	// (it then looks at every P's timers, and spins again after the
	// poller). pollWait: the shell must sleep in the poller before the
	// M's next step.
	pollUntil   int64
	wasSpinning bool
	pollWait    bool
	inj         GQueue // pcs MInjectGlob, MInjectLocal: the Gs netpoll gave injectglist, runnable, not yet queued
	injGlob     int32  // pc MInjectGlob: how many of inj go to sched.runq; MInjectStart: Ms startIdle may still start
	idle        bool   // on sched.midle; under sched.lock
	// lockedg is m.lockedg: the G that LockOSThread wired to this M (nil:
	// none). Only that G, while it runs here, sets and clears it; the M
	// reads it in its own steps.
	lockedg *G
	// nextp is m.nextp: the P startlockedm handed this locked M before it
	// parked in stoplockedm, which then returns at once with it. Under
	// sched.lock.
	nextp      *P
	lockedWait bool // parked in stoplockedm until startlockedm; under sched.lock
	dead       bool // ended by mexit (its locked G exited); under sched.lock
	// tainted: cloned from the thread a locked G exited on, by go1.11's
	// newm inside that G's mexit (spec.MState.Tainted).
	tainted bool
	kill    bool // Shutdown: exit instead of scheduling

	park chan struct{} // stopm sleeps here (m.park note)
	back chan struct{} // the running G yields control back here

	rng uint64 // per-M random state for the steal order (cheaprand)

	// checked: at findRunnable's top (pc MSched), checkTimers has run a
	// timer in this pass (its own step); the top's next step does not
	// check again. inherit (pc MResetSpin) is the inheritTime of the G a
	// spinning M took: true only for a G a timer it ran put on runnext.
	checked bool
	inherit bool
}

// ID is the M's number (m.id).
func (m *M) ID() int { return int(m.id) }

// mput puts m on the idle list. sched.lock held.
func (s *Sched) mput(m *M) {
	m.idle = true
	m.pc = spec.MIdle
	// stopm returns to findRunnable's top, whose checkTimers runs
	// afresh: nothing of the last pass survives the idle list.
	m.checked, m.inherit = false, false
	s.nmidle++
	s.checkdead()
}

// mget takes an idle M, or returns nil. sched.lock held. It takes the
// lowest-numbered one, the spec's canonical choice (idle Ms are equal
// values, so unlike pidleget's order it changes nothing); a free slot
// (an M that mexit ended) before it means nil, so that newm fills the slot
// as the spec's startm does.
func (s *Sched) mget() *M {
	for _, m := range s.allm {
		if m.dead {
			return nil
		}
		if m.idle {
			m.idle = false
			s.nmidle--
			return m
		}
	}
	return nil
}

// startm gives pp to an idle M, or a new one, and sets it running the
// schedule loop; spinning means the caller already counted it in
// nmspinning. lockHeld says whether the caller holds sched.lock.
func (s *Sched) startm(pp *P, spinning, lockHeld bool) {
	if !lockHeld {
		s.glob.Lock()
	}
	if s.stopping.Load() {
		// No new work after Shutdown: give the P back, undo the count.
		if spinning {
			s.nmspinning.Add(-1)
		}
		s.pidleputUnchecked(pp)
		if !lockHeld {
			s.glob.Unlock()
		}
		return
	}
	if spinning && !s.strandsQueues() && !s.runqempty(pp) {
		panic("startm: p has runnable gs")
	}
	m := s.mget()
	created := m == nil
	if created {
		m = s.newm()
	}
	m.spinning = spinning
	m.pc = spec.MSched
	pp.status.Store(uint32(spec.PRunning)) // a P handed off by takeP is _Pidle
	acquirep(m, pp)
	if s.dead.Load() {
		s.clearDead()
	}
	// The M has its P: emit here, under sched.lock and before the M can
	// run, so that the event precedes every event of the started M and
	// any later startm of the same P (emitted after the unlock, a
	// descheduled caller's EvStartM could follow both).
	s.emit(Event{Kind: EvStartM, M: m.id, P: pp.id, On: spinning})
	// Give the M its goroutine while still holding sched.lock, so that
	// Shutdown (which takes the lock after setting stopping) either sees
	// this M carried or makes us see stopping above.
	if created {
		s.launchM(m)
	} else {
		s.wakeM(m)
	}
	if !lockHeld {
		s.glob.Unlock()
	}
}

// mSeed is M slot's cheaprand state under the scheduler's Seed: distinct
// per slot, so that thieves started together do not visit the Ps in the
// same order (the runtime seeds each M's cheaprand on its own), and fixed
// by Seed, so that the Driver's runs repeat.
func mSeed(seed uint64, slot int) uint64 {
	return seed*0x9e3779b97f4a7c15 + uint64(slot)*0xbf58476d1ce4e5b9 + 1
}

// newm allocates the next M: in the lowest slot that an M ended by mexit
// left free (the new M takes its number), else a new slot, else, at the
// thread limit inside a mexit, the slot of the M it is ending. sched.lock
// held. startm launches its goroutine once the M has its P.
func (s *Sched) newm() *M {
	slot := len(s.allm)
	if s.nmdead > 0 {
		for i, m := range s.allm {
			if m.dead {
				slot = i
				break
			}
		}
	}
	if slot == len(s.allm) && len(s.allm) >= s.cfg.MaxMs {
		if s.exiting == nil {
			panic(fmt.Sprintf("runtime: program exceeds %d-thread limit", s.cfg.MaxMs))
		}
		slot = int(s.exiting.id) // its thread is ending: the new one replaces it
	}
	m := &M{
		id:   int32(slot),
		pc:   spec.MIdle,
		park: make(chan struct{}, 1),
		back: make(chan struct{}, 1),
		rng:  mSeed(s.cfg.Seed, slot),
	}
	if slot < len(s.allm) {
		if s.allm[slot] == s.exiting {
			// Go 1.10 and 1.11 cleared the exiting M's lock mark before
			// mexit, so newm cloned its thread instead of asking the
			// template thread (golang/go#28979).
			m.tainted = s.cfg.Go == spec.Go111
		} else {
			s.nmdead--
		}
		s.allm[slot] = m
		return m
	}
	s.allm = append(s.allm, m)
	s.mcount.Store(int32(len(s.allm)))
	return m
}

// stopm parks m on the idle list; the shell then blocks until startm hands
// it a P. sched.lock must not be held. It reports false if the scheduler is
// stopping, in which case m must exit instead.
func (s *Sched) stopm(m *M) bool {
	if m.p.Load() != nil {
		panic("stopm holding p")
	}
	if m.spinning {
		panic("stopm spinning")
	}
	s.glob.Lock()
	if s.stopping.Load() {
		s.glob.Unlock()
		return false
	}
	s.mput(m)
	s.glob.Unlock()
	return true
}

// wakep starts a spinning M on an idle P, unless some M is already spinning
// (it will find the new work, and wake another if it finds some): at most
// one M at a time is woken to look for work. m is the M that calls it, at
// the end of newproc, ready, goschedImpl or resetspinning, or nil when
// nobody in the scheduler calls it (StartTheWorld, a timer on a P sysmon
// handed off to the idle list). Its steps are the
// spec's: the load and CAS of nmspinning (WakepSkip or Wakep), then the
// sched.lock section (WakepStartM or WakepNoP).
func (s *Sched) wakep(m *M) {
	if s.nmspinning.Load() != 0 || !s.nmspinning.CompareAndSwap(0, 1) {
		s.emitAction(spec.ActWakepSkip, m, mpid(m), nil)
		return
	}
	s.emitAction(spec.ActWakep, m, mpid(m), nil)
	s.glob.Lock()
	pp := s.pidlegetSpinning()
	if pp == nil {
		s.nmspinning.Add(-1)
		s.emitAction(spec.ActWakepNoP, m, mpid(m), nil)
		s.glob.Unlock()
		return
	}
	s.emitAction(spec.ActWakepStartM, m, mpid(m), nil)
	s.startm(pp, true, true)
	s.glob.Unlock()
}

// pidlegetSpinning is pidleget for an M that has found work (or must make
// sure some M will): with no idle P it sets needspinning (Go 1.20 on), so
// that a non-spinning M about to release its P becomes spinning instead and
// finds the work. sched.lock held.
func (s *Sched) pidlegetSpinning() *P {
	pp := s.pidleget()
	if pp == nil && s.cfg.Go != spec.Go119 {
		s.needspinning.Store(1)
	}
	return pp
}

// resetspinningStep is the step after a spinning M found work (its G in
// hand, m.curg, still runnable): it stops spinning and, since the work it
// found may not be the only work, wakes another spinning M; then it runs
// the G.
func (s *Sched) resetspinningStep(m *M) stepResult {
	if !m.spinning {
		panic("resetspinning: not a spinning m")
	}
	m.spinning = false
	s.emit(Event{Kind: EvSpinning, M: m.id, P: pidOf(m.p.Load()), On: false})
	if !s.bugOn(spec.BugSpinNoDec) {
		if s.nmspinning.Add(-1) < 0 {
			panic("findRunnable: negative nmspinning")
		}
	}
	s.emitAction(spec.ActResetSpinning, m, pidOf(m.p.Load()), m.curg.Load())
	s.wakep(m)
	inherit := m.inherit
	m.inherit = false
	return s.dispatch(m, m.curg.Load(), inherit)
}

// becomeSpinning marks m spinning and counts it; a spinning M now exists to
// find whatever work made someone set needspinning, so it is cleared.
func (s *Sched) becomeSpinning(m *M) {
	m.spinning = true
	s.nmspinning.Add(1)
	s.needspinning.Store(0)
	s.emit(Event{Kind: EvSpinning, M: m.id, P: pidOf(m.p.Load()), On: true})
}

// runqempty is the runtime's runqempty as the release has it: from Go 1.5
// on it counts runnext; the Go 1.5 development tree (spec.Go15dev) looked
// at the ring alone, so a P whose only G sat in runnext had no local work
// for handoffp and startm (golang/go#10573).
func (s *Sched) runqempty(pp *P) bool {
	if s.cfg.Go == spec.Go15dev {
		return pp.runq.ringEmpty()
	}
	return pp.runq.Empty()
}

// handoffp finds a home for a P whose M cannot use it (retaken from a
// syscall): an M right away if there is work for it (its own queue or the
// global one), a spinning M if nobody else is spinning or idle to pick up
// future work, otherwise the idle list. The conditions mirror findRunnable's:
// whenever findRunnable would find a G on pp, handoffp starts an M.
func (s *Sched) handoffp(pp *P) {
	s.counters.Handoffs.Add(1)
	local := !s.runqempty(pp) && !s.bugOn(spec.BugRetakeIgnoresLocal)
	if local || s.globNonEmpty() {
		s.emit(Event{Kind: EvHandoff, P: pp.id, On: true})
		s.startm(pp, false, false)
		return
	}
	if s.nmspinning.Load()+s.npidle.Load() == 0 && s.nmspinning.CompareAndSwap(0, 1) {
		s.needspinning.Store(0)
		s.emit(Event{Kind: EvHandoff, P: pp.id, On: true})
		s.startm(pp, true, false)
		return
	}
	s.glob.Lock()
	if s.world.gcwaiting.Load() {
		// The world is stopping: the P stops here.
		pp.m.Store(nil)
		pp.status.Store(pGCStop)
		s.stopOneLocked()
		s.emit(Event{Kind: EvGCStopP, M: -1, P: pp.id})
		s.glob.Unlock()
		return
	}
	if s.glob.runq.Len() != 0 || s.handoffpKeepsPoller() {
		s.glob.Unlock()
		s.emit(Event{Kind: EvHandoff, P: pp.id, On: true})
		s.startm(pp, false, false)
		return
	}
	if s.bugOn(spec.BugRetakeIgnoresLocal) && !pp.runq.Empty() {
		// The seeded bug's consequence: a P with local work goes idle
		// (pidleput would refuse it); leave it held by no M instead.
		s.pidleputUnchecked(pp)
	} else {
		s.pidleput(pp)
	}
	when := pp.timers.wakeTime()
	// Emitted under sched.lock, as startm's EvStartM is: the P is on the
	// idle list, and whoever takes it from there (and may hand it off
	// again) needs the lock, so in a recorded stream this event precedes
	// every later handoff of the P. Trace validation pairs a RetakeHandoff
	// with the first EvHandoff of its P; emitted after the unlock, a
	// descheduled sysmon's event could follow another M's handoff of the
	// same P, and the retake's would be read as a startm.
	s.emit(Event{Kind: EvHandoff, P: pp.id, On: false})
	s.glob.Unlock()
	if when != 0 {
		// Somebody must wake up for the idle P's timers.
		s.wakeNetPoller(nil, when)
	}
}

// globNonEmpty reports whether the global queue holds a G.
func (s *Sched) globNonEmpty() bool {
	s.glob.Lock()
	n := s.glob.runq.Len()
	s.glob.Unlock()
	return n != 0
}

func pidOf(pp *P) int32 {
	if pp == nil {
		return -1
	}
	return pp.id
}

func gidOf(g *G) uint64 {
	if g == nil {
		return 0
	}
	return g.goid
}
