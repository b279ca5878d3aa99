package impl

import (
	"runtime"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The carrier shell. A goroutine "carries" an M when it runs that M's
// schedule loop. The G an M chooses runs on the carrying goroutine itself,
// as a plain call of its function, unless the G already has a goroutine of
// its own (it blocked before), in which case the carrier hands the M to
// that goroutine and leaves. When a G blocks (park, yield, preemption, a
// syscall exit without a P), its goroutine does the M's part right there
// (the runtime's mcall to g0: park_m, goschedImpl, ...) and keeps taking
// schedule steps for the M until the M either chooses a G that has a
// goroutine (handed over directly: one goroutine switch per hand-off),
// chooses a fresh G (handed to an idle carrier, which runs it), or parks
// (an idle M has no goroutine at all; startm finds it one).
//
// So a G that never blocks costs no goroutine switch and no goroutine of its
// own, and the number of goroutines is about the number of blocked Gs plus
// the carriers.

// handM gives an M that has no goroutine (new, or woken from stopm) one:
// an idle carrier if there is one, else a new goroutine.
func (s *Sched) handM(m *M) {
	s.cmu.Lock()
	s.carried++
	s.cmu.Unlock()
	s.passM(m)
}

// passM hands an M that is being carried to another (idle or new) carrier.
func (s *Sched) passM(m *M) {
	select {
	case s.carriers <- m:
	default:
		s.wg.Add(1)
		go s.carrier(m)
	}
}

// carryEnd records that the calling goroutine stopped carrying an M
// without handing it on (it parked, or the scheduler is stopping).
func (s *Sched) carryEnd() {
	s.cmu.Lock()
	s.carried--
	if s.carried == 0 {
		s.ccond.Broadcast()
	}
	s.cmu.Unlock()
}

// carrier is a carrier goroutine: it carries Ms until the scheduler stops.
func (s *Sched) carrier(m *M) {
	defer s.wg.Done()
	for {
		s.carry(m)
		if s.stopping.Load() {
			return
		}
		select {
		case m = <-s.carriers:
		case <-s.carrierStop:
			return
		}
	}
}

// carry runs m's schedule loop on this goroutine, running fresh Gs directly,
// until m is handed on, parks, or the scheduler stops.
func (s *Sched) carry(m *M) {
	for {
		if s.stopping.Load() {
			s.carryEnd()
			return
		}
		if m.pc != spec.MRun {
			if m.pollWait {
				s.netpollWait(m)
				continue
			}
			if r := s.schedStep(m); r == stepPark || r == stepExit {
				s.carryEnd()
				return
			}
			continue
		}
		g := m.curg.Load()
		if g.x.hasStack {
			g.x.wake <- struct{}{}
			return
		}
		g.x.hasStack = true
		g.x.fn(g)
		// g may have blocked and been resumed by another M: this
		// goroutine now carries whichever M runs g.
		m = g.x.m
		g.x.hasStack = false
		if s.goexit0(m) {
			// g exited locked to m, which is gone with it.
			s.carryEnd()
			return
		}
	}
}

// continueM keeps m going on the goroutine of a G that just blocked, before
// that goroutine waits: schedule steps until the M chooses a G, which gets
// the M directly if it has a goroutine, or through a carrier if it is fresh
// (it cannot run here, on top of the blocked G's stack).
func (s *Sched) continueM(m *M, r stepResult) {
	for {
		if r == stepPark || r == stepExit || s.stopping.Load() {
			s.carryEnd()
			return
		}
		if m.pollWait {
			// A blocked G's goroutine must not sleep for its M: a
			// carrier takes the M into the poller.
			s.passM(m)
			return
		}
		if m.pc != spec.MRun {
			r = s.schedStep(m)
			continue
		}
		g := m.curg.Load()
		if g.x.hasStack {
			g.x.wake <- struct{}{}
			return
		}
		s.passM(m)
		return
	}
}

// yieldCarried is yield in the carrier shell: the G does its M's part of
// the request, passes the M on, and waits to be resumed by some M.
func (g *G) yieldCarried(r gReq) {
	s := g.x.s
	m := g.x.m
	res := s.mcallReq(m, g, r)
	// From here on g may be resumed at any moment (wake is buffered): only
	// m, which this goroutine still carries, may be touched.
	s.continueM(m, res)
	<-g.x.wake
	if g.x.kill {
		runtime.Goexit()
	}
}
