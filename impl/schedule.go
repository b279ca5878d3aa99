package impl

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// stepResult tells the shell what to do after one scheduler step.
type stepResult uint8

const (
	stepAgain stepResult = iota // take another step
	stepRun                     // m.curg was chosen: hand it control
	stepPark                    // m is on the idle list: sleep until startm
	stepExit                    // the scheduler is stopping: end the M
	stepPoll                    // m sleeps in the poller (m.pollWait) until its timer or a netpollBreak
)

// schedStep is one step of the schedule loop of an M without a running G:
// one of findRunnable's synchronization steps (a sched.lock section, a
// read-modify-write of nmspinning or needspinning, one victim of the steal
// scan, one P of the no-P recheck), stopm, or the lock section of
// exitsyscallNoP. The M's pc says where it is; each step emits one EvAction
// naming the spec action it took (reads that change nothing, such as a
// steal pass before the last, are folded into the step that follows them).
// A step never blocks, which is what lets the Driver run it directly.
func (s *Sched) schedStep(m *M) stepResult {
	if m.lockedg != nil && m.pc == spec.MSched {
		// A locked M looks for no work: its G is all it runs.
		return s.stoplockedmStep(m)
	}
	if s.world.gcwaiting.Load() && gcStopPoint(m.pc) {
		return s.gcstopmStep(m)
	}
	switch m.pc {
	case spec.MSched, spec.MLocal:
		return s.findRunnableStep(m)
	case spec.MPoll:
		return s.pollStep(m)
	case spec.MInjectGlob:
		return s.injectGlobStep(m)
	case spec.MInjectStart:
		return s.injectStartStep(m)
	case spec.MInjectLocal:
		return s.injectLocalStep(m)
	case spec.MInjectWake:
		return s.injectWakeStep(m)
	case spec.MSpin:
		return s.becomeSpinningStep(m)
	case spec.MRecheckSpin:
		return s.recheckSpinStep(m)
	case spec.MResetSpin:
		return s.resetspinningStep(m)
	case spec.MStartLocked:
		return s.startlockedmStep(m)
	case spec.MSteal:
		return s.stealStep(m)
	case spec.MStealNext:
		return s.stealNextStep(m)
	case spec.MDrop:
		return s.dropStep(m)
	case spec.MDropSpin:
		return s.dropSpinningStep(m)
	case spec.MRecheck:
		return s.recheckStep(m)
	case spec.MRecheckP:
		return s.recheckPStep(m)
	case spec.MRecheckRunqs:
		return s.recheckRunqsStep(m)
	case spec.MStop:
		return s.stopmStep(m)
	case spec.MTimersNoP:
		return s.checkTimersNoPStep(m)
	case spec.MPollCheck:
		return s.pollCheckStep(m)
	case spec.MNetpollRet:
		return s.netpollWakeStep(m)
	case spec.MNetpollLock:
		return s.netpollLockStep(m)
	case spec.MSyscallNoP:
		return s.exitsyscallNoPLocked(m)
	case spec.MExitLockCheck:
		return s.exitLockCheckStep(m)
	}
	panic(fmt.Sprintf("schedule: m%d in state %v", m.id, m.pc))
}

// findRunnableStep is the top of findRunnable for an M holding a P, in the
// runtime's order and one shared read per step: the 1-in-61 global check
// (a step of its own when schedtick calls for it, pc MSched), then the
// local queue and a batch from the global queue (pc MLocal). With nothing
// there the M goes on to netpoll(0) (pollStep), then the spinning limit
// (spinLimitStep).
func (s *Sched) findRunnableStep(m *M) stepResult {
	pp := m.p.Load()
	// (Timers ready Gs onto a spinning M's own P: CheckTimers.)
	if m.spinning && !pp.runq.Empty() && !s.anyBug() && !s.poller.timers.Load() {
		panic("schedule: spinning with local work")
	}
	// Due timers first: their Gs go to runnext, in a step of its own
	// (CheckTimers); the top's next step finds them there (pollUntil
	// notes the next timer). A check that runs nothing is part of this
	// step.
	if m.pc == spec.MSched && !m.checked && s.checkTimersStep(m) {
		m.checked = true
		return stepAgain
	}
	m.checked = false
	// Fairness: two Gs that keep readying each other through runnext
	// could otherwise keep the global queue waiting forever.
	if m.pc == spec.MSched && !s.bugOn(spec.BugNo61) && pp.schedtick.Load()%s.period == 0 {
		s.glob.Lock()
		g := s.glob.get()
		s.glob.Unlock()
		if g != nil {
			s.emitAction(spec.ActGlobal61, m, pp.id, g)
			return s.run(m, g, false)
		}
		// The global queue may fill before the M reads it again below.
		m.pc = spec.MLocal
		s.emitAction(spec.ActGlobal61Miss, m, pp.id, nil)
		return stepAgain
	}
	// Only this M puts Gs on pp's queue, so finding it empty stays true
	// until the global queue is read.
	if g, inherit := pp.runq.Get(); g != nil {
		s.emitAction(spec.ActRunqGet, m, pp.id, g)
		return s.run(m, g, inherit)
	}
	s.glob.Lock()
	if g := s.globrunqgetbatch(pp); g != nil {
		s.glob.Unlock()
		s.emitAction(spec.ActGlobRunqGetBatch, m, pp.id, g)
		return s.run(m, g, false)
	}
	s.glob.Unlock()
	m.pc = spec.MPoll
	s.emitAction(spec.ActGlobRunqMiss, m, pp.id, nil)
	return stepAgain
}

// spinLimitStep follows the top's misses and an empty poll: a spinning M
// goes on to stealWork; a non-spinning one reads nmspinning and npidle for
// the spinning limit, and becomes spinning in a step of its own
// (becomeSpinningStep), so two Ms may both pass the limit.
func (s *Sched) spinLimitStep(m *M) stepResult {
	if m.spinning {
		return s.startSteal(m)
	}
	pp := m.p.Load()
	// At most half of the busy Ps get a spinning M: with many Ps and
	// little parallelism, spinning would only burn CPU.
	if !spinOK(s.nmspinning.Load(), s.ps().n, s.npidle.Load()) {
		m.pc = spec.MDrop
		s.emitAction(spec.ActSpinLimit, m, pp.id, nil)
		return stepAgain
	}
	m.pc = spec.MSpin
	s.emitAction(spec.ActSpinOK, m, pp.id, nil)
	return stepAgain
}

// becomeSpinningStep is becomeSpinning after the limit allowed it, then
// the start of stealWork's scan.
func (s *Sched) becomeSpinningStep(m *M) stepResult {
	pp := m.p.Load()
	s.becomeSpinning(m)
	s.emitAction(spec.ActBecomeSpinning, m, pp.id, nil)
	m.pc = spec.MSteal
	m.scan = stealScan{}
	if ps := s.ps(); ps.n == 1 {
		m.pc = spec.MDrop // no victim: stealWork returns at once
	} else {
		m.scan.e = ps.order.start(m.cheaprand())
	}
	return stepAgain
}

// recheckSpinStep is becomeSpinning for an M that the no-P recheck (or
// the poller's return) gave a P under sched.lock: findRunnable calls it
// after the unlock and acquirep, so between the two the M holds a P and
// does not count in nmspinning (a wakep or handoffp then sees neither an
// idle P nor a spinning M). Then back to the top, or, with the G
// RecheckGlobal took in hand, resetspinning.
func (s *Sched) recheckSpinStep(m *M) stepResult {
	pp := m.p.Load()
	s.becomeSpinning(m)
	s.emitAction(spec.ActBecomeSpinning, m, pp.id, nil)
	if g := m.curg.Load(); g != nil {
		return s.run(m, g, false)
	}
	m.pc = spec.MSched
	return stepAgain
}

// startSteal begins stealWork for an M that was already spinning when it
// reached the top of findRunnable; the first victim is looked at in the
// same step.
func (s *Sched) startSteal(m *M) stepResult {
	ps := s.ps()
	if ps.n == 1 {
		m.pc = spec.MDrop
		return s.dropStep(m)
	}
	m.pc = spec.MSteal
	m.scan = stealScan{e: ps.order.start(m.cheaprand())}
	return s.stealStep(m)
}

// spinOK is the spinning-M limit: an M may start spinning while fewer than
// half of the busy Ps have a spinning M.
func spinOK(nmspinning, gomaxprocs, npidle int32) bool {
	return 2*nmspinning < gomaxprocs-npidle
}

// globrunqgetbatch takes the global queue's head plus a batch for pp's
// empty ring (globrunqgetbatch(len(pp.runq)/2) + runqputbatch). sched.lock
// held.
func (s *Sched) globrunqgetbatch(pp *P) *G {
	g, q := s.glob.getBatch(s.half, s.ps().n)
	if g == nil {
		return nil
	}
	if n := q.Len(); n > 0 {
		pp.runq.PutBatch(&q)
		if !q.Empty() {
			if !s.strandsQueues() {
				panic("Couldn't put Gs into empty local runq")
			}
			// A seeded bug left Gs on this P while it was idle: the
			// rest goes back to the global queue.
			s.glob.putBatch(&q)
		}
		s.emit(Event{Kind: EvGlobBatch, P: pp.id, G: g.goid, N: int32(n)})
	}
	return g
}

// dropStep is the sched.lock section that ends findRunnable's search with
// a P: a batch from the global queue if it has one; else, for a
// non-spinning M, become spinning if needspinning is set (some M found
// work it could get no P for, and this M's P is the one it needs); else
// give the P back. A spinning M keeps m.spinning until its next step.
func (s *Sched) dropStep(m *M) stepResult {
	pp := m.p.Load()
	s.glob.Lock()
	if s.world.gcwaiting.Load() {
		r := s.gcstopmLocked(m)
		s.glob.Unlock()
		return r
	}
	if g := s.globrunqgetbatch(pp); g != nil {
		s.glob.Unlock()
		s.emitAction(spec.ActGlobRunqGetBatch, m, pp.id, g)
		return s.run(m, g, false)
	}
	if !m.spinning && s.needspinning.Load() == 1 {
		s.becomeSpinning(m)
		s.glob.Unlock()
		m.pc = spec.MSched
		s.emitAction(spec.ActNeedSpinning, m, pp.id, nil)
		return stepAgain
	}
	m.snap = s.ps()
	m.wasSpinning = m.spinning
	releasep(m)
	s.pidleput(pp)
	s.glob.Unlock()
	s.findRunnableTail(m)
	if m.spinning {
		m.pc = spec.MDropSpin
	}
	s.emitAction(spec.ActReleaseP, m, pp.id, nil)
	return stepAgain
}

// dropSpinningStep is the "delicate dance": a spinning M that gave its P
// back drops nmspinning first and only then (next steps) looks at every
// source of work again. Whoever adds work after that look sees nmspinning
// lower and wakes an M itself.
func (s *Sched) dropSpinningStep(m *M) stepResult {
	m.spinning = false
	s.emit(Event{Kind: EvSpinning, M: m.id, P: -1, On: false})
	if s.nmspinning.Add(-1) < 0 {
		panic("findRunnable: negative nmspinning")
	}
	m.pc = spec.MRecheck
	s.emitAction(spec.ActDropSpinning, m, -1, nil)
	return stepAgain
}

// recheckStep is the no-P recheck of the global queue under sched.lock:
// with work there and an idle P (pidlegetSpinning), the M takes both, the
// G in hand, and becomes spinning in its next step (recheckSpinStep) to
// run it as a spinning M would; with work but no P, needspinning is set and
// the M goes on to the run queues; with no work it looks at the first P's
// run queue in the same step.
func (s *Sched) recheckStep(m *M) stepResult {
	if s.cfg.Go == spec.Go121 { // no global recheck before 1.22
		m.pc, m.rpos = spec.MRecheckRunqs, 0
		return s.recheckRunqsStep(m)
	}
	s.glob.Lock()
	if s.glob.runq.Len() != 0 {
		if pp := s.pidlegetSpinning(); pp != nil {
			acquirep(m, pp)
			g := s.globrunqgetbatch(pp)
			s.glob.Unlock()
			// The G stays runnable in hand until the M, spinning by
			// then, resetspinning runs it.
			m.curg.Store(g)
			m.pc = spec.MRecheckSpin
			s.emitAction(spec.ActRecheckGlobal, m, pp.id, g)
			return stepAgain
		}
		s.glob.Unlock()
		m.pc, m.rpos = spec.MRecheckRunqs, 0
		s.emitAction(spec.ActRecheckGlobalNoP, m, -1, nil)
		return stepAgain
	}
	s.glob.Unlock()
	m.pc, m.rpos = spec.MRecheckRunqs, 0
	return s.recheckRunqsStep(m)
}

// recheckRunqsStep is checkRunqsNoP, one P per step in allp order: a P that
// is not idle and has local work sends the M on to pidlegetSpinning
// (recheckPStep); any other P is passed over.
//
// The Go 1.10 development tree (spec.Go110dev) walked the live allp, with
// no snapshot and no idle mask: a procresize growing allp while the M
// walks it (ProcResizeGrow) leaves a slot nil until it makes the P, and
// the walk dereferences it (golang/go#23098).
func (s *Sched) recheckRunqsStep(m *M) stepResult {
	allp, live := m.snap.allp, s.cfg.Go == spec.Go110dev
	if live {
		// The live allp, as the walk read it at its first step (a range
		// reads the slice header once); a slot procresize grew it by and
		// has not filled yet is nil (liveAllp), and is dereferenced.
		if m.walk == nil {
			m.walk = s.liveAllp()
		}
		allp = m.walk
	}
	i := m.rpos
	p2 := allp[i]
	ev := Event{Kind: EvAction, M: m.id, P: -1, Victim: p2.id}
	// go1.10dev had no idle mask: an idle P's queue is empty anyway.
	if (live || !m.snap.idlep.read(i)) && !p2.runq.Empty() {
		m.pc, m.rpos = spec.MRecheckP, 0 // a live walk is kept to recheckPStep, as the spec keeps SnapPs
		ev.Action = spec.ActRecheckFound
		s.emit(ev)
		return stepAgain
	}
	m.rpos++
	m.pc = spec.MRecheckRunqs
	if m.rpos == len(allp) {
		m.rpos, m.walk = 0, nil
		s.findRunnableTail(m)
	}
	ev.Action = spec.ActRecheckMiss
	s.emit(ev)
	return stepAgain
}

// recheckPStep is checkRunqsNoP's sched.lock section after it saw work on
// a P: pidlegetSpinning gets the M an idle P (it becomes spinning in its
// next step, recheckSpinStep, and goes back to the top to steal that work,
// which may be gone by now) or sets needspinning and ends
// the recheck.
func (s *Sched) recheckPStep(m *M) stepResult {
	m.walk = nil
	s.glob.Lock()
	pp := s.pidlegetSpinning()
	s.glob.Unlock()
	if pp == nil {
		s.findRunnableTail(m)
		s.emitAction(spec.ActRecheckRunqsNoP, m, -1, nil)
		return stepAgain
	}
	acquirep(m, pp)
	m.pc = spec.MRecheckSpin
	s.emitAction(spec.ActRecheckRunqs, m, pp.id, nil)
	return stepAgain
}
