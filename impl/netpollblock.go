package impl

import (
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The blocking poller, for timers. An M that gives up its P with no work
// found but with a timer in view (m.pollUntil) does not park for good: if
// no other M is in the poller (sched.lastpoll != 0, claimed by swapping it
// to 0) it sleeps there until the timer is due (sched.pollUntil), then
// takes an idle P, if one is left, and looks for work again. An M that
// finds the poller taken but sleeping past its own timer breaks the
// sleep (netpollBreak), so that the sleeper looks again; so does whoever
// adds a timer earlier than every other on its P (wakeNetPoller), or, with
// nobody in the poller, wakes a spinning M (wakep) to take care of it.
//
// The poller sleeps only while timers exist: without them an M parks in
// stopm as before, and the netpoller's ready list keeps its stand-ins
// (netpoll.go), so that runs without timers are step for step what they
// were. An event that NetpollReady delivers while an M sleeps in the
// poller breaks the sleep too; the woken M injects the ready Gs.

// mNetpoll is the pc of an M asleep in the poller. It is not one of the
// spec's M PCs: spec/ has no blocking poller (yet), and the Driver never
// reaches it (it has no timers).
const mNetpoll = spec.MPC(0x40)

// pollerState is the blocking poller's shared state.
type pollerState struct {
	// brk is netpollBreak's wake-up (capacity 1: one pending break is
	// enough, a spurious one costs a look).
	brk chan struct{}
	// stop is closed by Shutdown: a sleeper must not outlive it.
	stop chan struct{}
}

// netpollBlockStep is the decision at stopm's door of an M with a timer in
// view (m.pollUntil != 0): claim the poller and sleep there (stepPoll,
// NetpollBlock), or, if another M has it and sleeps past this M's timer,
// break its sleep. ok is false when the M goes on to stopm.
func (s *Sched) netpollBlockStep(m *M) (r stepResult, ok bool) {
	if s.lastpoll.Swap(0) != 0 {
		s.pollUntil.Store(m.pollUntil)
		m.pc = mNetpoll
		m.pollWait = true
		s.emit(Event{Kind: EvNetpollBlock, M: m.id, P: -1, Victim: -1, N: clampMicros(m.pollUntil - s.nanotime()), On: true})
		return stepPoll, true
	}
	if pu := s.pollUntil.Load(); pu == 0 || pu > m.pollUntil {
		s.netpollBreak(m)
	}
	return stepAgain, false
}

// netpollWait is the shell's sleep in the poller (netpoll(delay)): until
// m's timer is due, a netpollBreak, or Shutdown.
func (s *Sched) netpollWait(m *M) {
	m.pollWait = false
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

// netpollReturnStep follows the sleep: the poller is free again, the ready
// list's Gs (if NetpollReady delivered some) are injected, and the M takes
// an idle P and goes back to findRunnable's top (spinning again if it was)
// or, with none idle, on to stopm.
func (s *Sched) netpollReturnStep(m *M) stepResult {
	s.pollUntil.Store(0)
	s.lastpoll.Store(s.nanotime())
	m.pollUntil = 0
	s.glob.Lock()
	s.netpollInjectNoPLocked()
	pp := s.pidleget()
	s.glob.Unlock()
	if pp == nil {
		m.pc = spec.MStop
		m.wasSpinning = false
		s.emit(Event{Kind: EvNetpollBlock, M: m.id, P: -1, Victim: -1})
		return stepAgain
	}
	acquirep(m, pp)
	m.pc = spec.MSched
	s.emit(Event{Kind: EvNetpollBlock, M: m.id, P: pp.id, Victim: -1})
	if m.wasSpinning {
		m.wasSpinning = false
		s.becomeSpinning(m)
	}
	return stepAgain
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
	s.emit(Event{Kind: EvNetpollBreak, M: mid, P: mpid(m), Victim: -1})
}

// wakeNetPoller makes sure an M will be awake at when, a timer just added
// or a P with timers just gone idle: the M asleep in the poller if it would
// sleep past when, else, with nobody in the poller, a spinning M (wakep).
// m is the calling M (nil: none).
func (s *Sched) wakeNetPoller(m *M, when int64) {
	if s.lastpoll.Load() == 0 {
		if pu := s.pollUntil.Load(); pu == 0 || pu > when {
			s.netpollBreak(m)
		}
		return
	}
	s.wakep(m)
}

// mpid is the id of m's P, -1 if m or its P is nil.
func mpid(m *M) int32 {
	if m == nil {
		return -1
	}
	return pidOf(m.p.Load())
}
