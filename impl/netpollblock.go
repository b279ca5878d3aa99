package impl

import (
	"sync/atomic"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The blocking poller. An M that gives up its P and finds no work does not
// always park in stopm: once the poller is in use (a G has waited on it, or
// a timer was added: the runtime's netpollinited), if a G waits on the
// network or the M has a timer in view (m.pollUntil), and no other M is in
// the poller (sched.lastpoll != 0, claimed by swapping it to 0), it sleeps
// there until the network readies a G, a netpollBreak, or its timer
// (sched.pollUntil); then it takes an idle P, if one is left, and runs the
// readied G or looks for work again. An M that finds the poller taken but
// sleeping past its own timer breaks the sleep (netpollBreak), so that the
// sleeper looks again; so does whoever adds a timer earlier than every
// other on its P (wakeNetPoller), or, with nobody in the poller, wakes a
// spinning M (wakep) to take care of it. handoffp keeps an M for the
// poller when the last running P goes idle.
//
// Each step is one of the spec's (spec/poller.go), at the spec's pcs:
// MTimersNoP (checkTimersNoP, once the program has timers), MPollCheck
// (the swap, or the break, or stopm), MNetpoll (asleep: the shell's
// netpollWait, which ends at MNetpollRet), MNetpollRet (the stores of
// sched.pollUntil and sched.lastpoll, with the Gs netpoll returned),
// MNetpollLock (pidleget under sched.lock).
//
// Before the poller is in use the M goes from MPollCheck straight to
// stopm, and the netpoller's ready list keeps its stand-ins (netpoll.go),
// so that runs without timers and without Gs parked on the poller are step
// for step what they were.

// pollerState is the blocking poller's shared state.
type pollerState struct {
	// brk is netpollBreak's wake-up (capacity 1: one pending break is
	// enough, a spurious one costs a look).
	brk chan struct{}
	// stop is closed by Shutdown: a sleeper must not outlive it.
	stop chan struct{}
	// inited is the runtime's netpollinited: set once a G parks on the
	// poller or a timer is added. Until then no M sleeps in the poller
	// and handoffp keeps no M for it.
	inited atomic.Bool
	// timers is set once a timer was added: from then on an M that gave
	// its P up spinning looks at every P's timers in a step of its own
	// (checkTimersNoP); before, there is nothing to look at.
	timers atomic.Bool
	// clock is the Driver's clock (Config.deterministic), in ticks of 1
	// ns; the concurrent scheduler's is time.Since(start).
	clock atomic.Int64
}

// useTimers marks the poller in use with timers (the first timer added;
// or the Driver of a program with timers, from the start).
func (s *Sched) useTimers() {
	if !s.poller.timers.Load() {
		s.poller.timers.Store(true)
		s.poller.inited.Store(true)
	}
}

// useNetpoll marks the poller in use (netpollGenericInit: a G parked on it).
func (s *Sched) useNetpoll() {
	if !s.poller.inited.Load() {
		s.poller.inited.Store(true)
	}
}

// netpollAnyWaiters is netpollAnyWaiters: some G waits on the network,
// parked on the poller or with its event arrived and not yet polled.
func (s *Sched) netpollAnyWaiters() bool {
	return s.poll.nwait.Load() != 0 || s.poll.nready.Load() != 0
}

// findRunnableTail is where an M goes once it has no P and has found
// nothing: checkTimersNoP if it was spinning and the program has timers
// (Go 1.16 on), else the netpoll decision (pollCheckStep).
func (s *Sched) findRunnableTail(m *M) {
	m.pc = spec.MPollCheck
	if m.wasSpinning && s.poller.timers.Load() && s.cfg.Go != spec.Go115 {
		m.pc = spec.MTimersNoP
	}
}

// checkTimersNoPStep is checkTimersNoP: the earliest timer of any P (in the
// snapshot the M took with its P) into pollUntil, so that the last
// spinning M to stop knows when to wake up (CheckTimersNoP).
func (s *Sched) checkTimersNoPStep(m *M) stepResult {
	m.pollUntil = checkTimersNoP(m.snap, m.pollUntil)
	m.pc = spec.MPollCheck
	s.emitAction(spec.ActCheckTimersNoP, m, -1, nil)
	return stepAgain
}

// pollCheckStep is findRunnable's tail (pc MPollCheck): with a G waiting
// on the network or a timer in view, claim the poller and sleep there
// (NetpollBlock); or, if another M has it and sleeps past this M's timer,
// break its sleep (NetpollBreak, then stopm in a step of its own); else
// stopm (StopM).
func (s *Sched) pollCheckStep(m *M) stepResult {
	inited := s.poller.inited.Load()
	if inited && (m.pollUntil != 0 || s.netpollAnyWaiters()) && s.lastpoll.Swap(0) != 0 {
		s.pollUntil.Store(m.pollUntil)
		m.pc = spec.MNetpoll
		m.pollWait = true
		if s.trace != nil {
			n := int32(-1) // no timeout
			if m.pollUntil != 0 {
				n = clampMicros(m.pollUntil - s.nanotime())
			}
			s.emit(Event{Kind: EvNetpollBlock, M: m.id, P: -1, N: n, On: true})
			s.emitAction(spec.ActNetpollBlock, m, -1, nil)
		}
		return stepPoll
	}
	if inited && m.pollUntil != 0 {
		if pu := s.pollUntil.Load(); pu == 0 || pu > m.pollUntil {
			s.netpollBreak(m)
			m.pollUntil, m.wasSpinning = 0, false
			m.pc = spec.MStop
			s.emitAction(spec.ActNetpollBreak, m, -1, nil)
			return stepAgain
		}
	}
	return s.stopmStep(m)
}

// stopmStep is stopm at the end of findRunnable (StopM).
func (s *Sched) stopmStep(m *M) stepResult {
	m.pollUntil, m.wasSpinning = 0, false
	s.emitAction(spec.ActStopM, m, -1, nil)
	if !s.stopm(m) {
		return stepExit
	}
	return stepPark
}

// netpollWait is the shell's sleep in the poller (netpoll(delay)): until
// m's timer is due (none: no timeout), a netpollBreak, or Shutdown. The
// M's next step is the poller's return (pc MNetpollRet).
func (s *Sched) netpollWait(m *M) {
	m.pollWait = false
	defer func() { m.pc = spec.MNetpollRet }()
	if s.poll.nready.Load() != 0 {
		// Events arrived before the sleep (NetpollReady saw the poller
		// still free and did not break it): netpoll returns at once.
		return
	}
	if m.pollUntil == 0 {
		select {
		case <-s.poller.brk:
		case <-s.poller.stop:
		}
		return
	}
	d := time.Duration(m.pollUntil - s.nanotime())
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-s.poller.brk:
	case <-s.poller.stop:
	}
	t.Stop()
}

// netpollWakeStep is the poller's return (pc MNetpollRet): the Gs netpoll
// returned (whose events arrived: NetpollReady) become runnable, held by
// the M (m.curg, the rest in m.inj); sched.pollUntil is cleared and
// sched.lastpoll stored, so that the poller is free again (NetpollWake,
// or NetpollReady with the first G).
func (s *Sched) netpollWakeStep(m *M) stepResult {
	q := s.netpoll()
	s.pollUntil.Store(0)
	s.lastpoll.Store(s.nanotime())
	m.pollUntil = 0
	m.pc = spec.MNetpollLock
	g := q.Pop()
	if g == nil {
		s.emitAction(spec.ActNetpollWake, m, -1, nil)
		return stepAgain
	}
	s.readyPolled(g)
	for h := q.head; h != nil; h = h.schedlink {
		s.readyPolled(h)
	}
	s.counters.Netpolled.Add(int64(1 + q.Len()))
	m.curg.Store(g)
	m.inj = q
	s.emitAction(spec.ActNetpollReady, m, -1, g)
	return stepAgain
}

// netpollLockStep follows the poller's return (pc MNetpollLock): pidleget
// under sched.lock. With a P the M runs the first G netpoll returned
// (injecting the rest), or, with none, goes back to findRunnable's top,
// spinning again if it was (NetpollPidleget). With no P every G goes to
// sched.runq (injectglist without a P: startIdle finds no P and sets
// needspinning) and the M goes on to stopm (NetpollNoP).
func (s *Sched) netpollLockStep(m *M) stepResult {
	g := m.curg.Load()
	m.curg.Store(nil)
	was := m.wasSpinning
	m.wasSpinning = false
	s.glob.Lock()
	pp := s.pidleget()
	if pp == nil {
		if g != nil {
			m.inj.Push(g)
		}
		s.injectNoPLocked(m, &m.inj)
		s.glob.Unlock()
		m.pc = spec.MStop
		s.emit(Event{Kind: EvNetpollBlock, M: m.id, P: -1})
		s.emitAction(spec.ActNetpollNoP, m, -1, g)
		return stepAgain
	}
	s.injectNoPLocked(m, &m.inj)
	s.glob.Unlock()
	acquirep(m, pp)
	s.emit(Event{Kind: EvNetpollBlock, M: m.id, P: pp.id})
	s.emitAction(spec.ActNetpollPidleget, m, pp.id, g)
	if g != nil {
		return s.run(m, g, false)
	}
	m.pc = spec.MSched
	if was {
		m.pc = spec.MRecheckSpin // becomeSpinning, a step of its own
	}
	return stepAgain
}

// injectNoPLocked is injectglist without a P for the runnable Gs of q,
// which m, back from the poller with no P, brought: sched.runq, then
// startIdle, an M for an idle P per G while there is one
// (pidlegetSpinning sets needspinning when there is none). sched.lock
// held; q is left empty.
func (s *Sched) injectNoPLocked(m *M, q *GQueue) {
	n := q.Len()
	if n == 0 {
		return
	}
	s.counters.Injected.Add(int64(n))
	if s.trace != nil {
		for h := q.head; h != nil; h = h.schedlink {
			s.emit(Event{Kind: EvGlobPut, M: m.id, P: -1, G: h.goid})
		}
	}
	s.glob.putBatch(q)
	*q = GQueue{}
	for ; n > 0; n-- {
		pp := s.pidlegetSpinning()
		if pp == nil {
			break
		}
		s.startm(pp, false, true)
	}
}

// netpollBreak wakes the M asleep in the poller, if any (a break with
// nobody asleep is kept for the next sleeper, which then looks again at
// once: spurious, never missed).
func (s *Sched) netpollBreak(m *M) {
	select {
	case s.poller.brk <- struct{}{}:
	default:
	}
	mid := int32(-1)
	if m != nil {
		mid = m.id
	}
	s.emit(Event{Kind: EvNetpollBreak, M: mid, P: mpid(m)})
}

// wakeNetPoller makes sure an M will be awake at when, a timer just added
// or a P with timers just gone idle: the M asleep in the poller if it would
// sleep past when, else, with nobody in the poller, a spinning M (wakep;
// Go 1.16 on).
// m is the calling M (nil: handoffp's caller, which may have none; its
// wakep is then part of its step, as the spec takes it).
func (s *Sched) wakeNetPoller(m *M, when int64) {
	if s.lastpoll.Load() == 0 {
		if pu := s.pollUntil.Load(); pu == 0 || pu > when {
			s.netpollBreak(m)
		}
		return
	}
	if s.cfg.Go == spec.Go115 {
		return // nobody polls, and before 1.16 nobody is woken
	}
	if m == nil {
		s.wakepNoM()
		return
	}
	s.wakep(m)
}

// wakepNoM is wakep called where no M of the scheduler takes its steps
// (handoffp's wakeNetPoller, the stopper's restart): the same load, CAS
// and lock section, with no EvAction of its own.
func (s *Sched) wakepNoM() {
	if s.nmspinning.Load() != 0 || !s.nmspinning.CompareAndSwap(0, 1) {
		return
	}
	s.glob.Lock()
	if pp := s.pidlegetSpinning(); pp != nil {
		s.startm(pp, true, true)
	} else {
		s.nmspinning.Add(-1)
	}
	s.glob.Unlock()
}

// handoffpKeepsPoller is handoffp's "this was the last running P and
// nobody is polling the network": the P gets an M, which will block in
// the poller. Only once the poller is in use: before, that M would find
// nothing to wait for and stop (the spec without PollBlock leaves the
// clause out, and so does the impl then). sched.lock held.
func (s *Sched) handoffpKeepsPoller() bool {
	return s.poller.inited.Load() && !s.implBugOn(ImplBugHandoffIgnoresPoller) &&
		s.npidle.Load() == s.ps().n-1 && s.lastpoll.Load() != 0
}

// mpid is the id of m's P, -1 if m or its P is nil.
func mpid(m *M) int32 {
	if m == nil {
		return -1
	}
	return pidOf(m.p.Load())
}
