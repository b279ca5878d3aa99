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
)

// schedStep is one step of the schedule loop of an M without a G: one group
// of findRunnable (pc MSched) or of its no-P recheck (pc MRecheck). The
// steps are the spec's actions; each emits one EvAction naming it. A step
// never blocks, which is what lets the Driver run it directly.
func (s *Sched) schedStep(m *M) stepResult {
	switch m.pc {
	case spec.MSched:
		return s.findRunnableStep(m)
	case spec.MRecheck:
		return s.recheckStep(m)
	}
	panic(fmt.Sprintf("schedule: m%d in state %v", m.id, m.pc))
}

// findRunnableStep is findRunnable for an M holding a P, in the runtime's
// order: the 1-in-61 global check, the local queue, a batch from the global
// queue, then (spinning) a steal, else give the P back.
func (s *Sched) findRunnableStep(m *M) stepResult {
	pp := m.p.Load()
	if m.spinning && !pp.runq.Empty() && s.bug == spec.BugNone {
		panic("schedule: spinning with local work")
	}
	// Fairness: two Gs that keep readying each other through runnext
	// could otherwise keep the global queue waiting forever.
	if s.bug != spec.BugNo61 && pp.schedtick.Load()%s.period == 0 {
		s.glob.Lock()
		g := s.glob.get()
		s.glob.Unlock()
		if g != nil {
			s.emitAction(spec.ActGlobal61, m, pp.id, g)
			s.run(m, g, false)
			return stepRun
		}
	}
	if g, inherit := pp.runq.Get(); g != nil {
		s.emitAction(spec.ActRunqGet, m, pp.id, g)
		s.run(m, g, inherit)
		return stepRun
	}
	s.glob.Lock()
	if g := s.globrunqgetbatch(pp); g != nil {
		s.glob.Unlock()
		s.emitAction(spec.ActGlobRunqGetBatch, m, pp.id, g)
		s.run(m, g, false)
		return stepRun
	}
	s.glob.Unlock()
	if !m.spinning {
		// At most half of the busy Ps get a spinning M: with many Ps and
		// little parallelism, spinning would only burn CPU.
		if spinOK(s.nmspinning.Load(), s.gomaxprocs, s.npidle.Load()) {
			s.becomeSpinning(m)
			s.emitAction(spec.ActBecomeSpinning, m, pp.id, nil)
			return stepAgain
		}
	} else if g, victim := s.stealWork(m); g != nil {
		s.counters.Steals.Add(1)
		s.emit(Event{Kind: EvAction, Action: spec.ActSteal, M: m.id, P: pp.id, Victim: victim, G: g.goid})
		s.run(m, g, false)
		return stepRun
	}
	// Nothing to do: give the P back, re-checking the global queue under
	// the lock so that a G put there concurrently is not stranded.
	s.glob.Lock()
	if g := s.globrunqgetbatch(pp); g != nil {
		s.glob.Unlock()
		s.emitAction(spec.ActGlobRunqGetBatch, m, pp.id, g)
		s.run(m, g, false)
		return stepRun
	}
	releasep(m)
	s.pidleput(pp)
	s.glob.Unlock()
	s.emitAction(spec.ActReleaseP, m, pp.id, nil)
	if m.spinning {
		// Delicate: drop nmspinning first, then look at every source of
		// work again. Whoever adds work after our last look sees
		// nmspinning == 0 and wakes an M itself.
		m.spinning = false
		s.emit(Event{Kind: EvSpinning, M: m.id, P: -1, On: false})
		if s.nmspinning.Add(-1) < 0 {
			panic("findRunnable: negative nmspinning")
		}
		m.pc = spec.MRecheck
		return stepAgain
	}
	if !s.stopm(m) {
		return stepExit
	}
	return stepPark
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
	g, q := s.glob.getBatch(s.half, s.gomaxprocs)
	if g == nil {
		return nil
	}
	if n := q.Len(); n > 0 {
		pp.runq.PutBatch(&q)
		if !q.Empty() {
			panic("Couldn't put Gs into empty local runq")
		}
		s.emit(Event{Kind: EvGlobBatch, P: pp.id, G: g.goid, N: int32(n)})
	}
	return g
}

// recheckStep is the end of findRunnable for an M that was spinning and has
// given up its P and nmspinning: any work that appeared meanwhile (global
// queue, or a busy P's local queue) brings it back spinning on an idle P;
// otherwise it stops.
func (s *Sched) recheckStep(m *M) stepResult {
	s.glob.Lock()
	if s.glob.runq.Len() != 0 {
		if pp := s.pidleget(); pp != nil {
			acquirep(m, pp)
			g := s.globrunqgetbatch(pp)
			s.glob.Unlock()
			m.pc = spec.MSched
			s.becomeSpinning(m)
			s.emitAction(spec.ActRecheckGlobal, m, pp.id, g)
			s.run(m, g, false)
			return stepRun
		}
	}
	s.glob.Unlock()
	if pp := s.checkRunqsNoP(); pp != nil {
		acquirep(m, pp)
		m.pc = spec.MSched
		s.becomeSpinning(m)
		s.emitAction(spec.ActRecheckRunqs, m, pp.id, nil)
		return stepAgain
	}
	s.emitAction(spec.ActStopM, m, -1, nil)
	if !s.stopm(m) {
		return stepExit
	}
	return stepPark
}

// checkRunqsNoP looks for a busy P with local work; if there is one and an
// idle P to steal it with, it returns that idle P.
func (s *Sched) checkRunqsNoP() *P {
	for i, p2 := range s.allp {
		if !s.idlep.read(i) && !p2.runq.Empty() {
			s.glob.Lock()
			pp := s.pidleget()
			s.glob.Unlock()
			return pp
		}
	}
	return nil
}
