package impl

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The netpoller. A G that waits for I/O parks on the poller (NetpollPark);
// when its event arrives (NetpollReady, the kernel's part) it joins the
// poller's ready list, still waiting. Nobody runs it yet: the Gs on the
// ready list are what the next netpoll(0) returns. Three places poll:
//
//   - findRunnable, after the local and global queues (pc MPoll): one G
//     runs on the polling M (Netpoll); with more, the first runs and the
//     rest go through injectglist with the M's P, one step per spec action
//     (NetpollInject, InjectGlobrunq, InjectStartIdle, InjectRunqput,
//     InjectWakep);
//   - sysmon, when the list has waited a sysmon period of 10 ms (the
//     runtime's lastpoll rule), injectglist without a P (InjectGList);
//   - the M blocked in the poller (netpollblock.go): NetpollReady breaks
//     its sleep, and it runs the first G (NetpollReady, NetpollPidleget)
//     or, with no idle P, injects them without a P (NetpollNoP);
//   - the M that goes idle last, and NetpollReady when every M is idle:
//     the stand-in for the poller where nobody sleeps in it (the last M
//     may be on its way to stopm). They inject without a P too.
//
// Gs parked on the poller do not make a deadlock: an event may come.

// netpoller is the poller's state.
type netpoller struct {
	mu     sync.Mutex
	ready  GQueue       // Gs whose event arrived, in arrival order; under mu
	nready atomic.Int32 // ready.Len(): findRunnable's lock-free first look
	nwait  atomic.Int32 // Gs parked on the poller whose event has not come
}

// NetpollPark parks the G on the poller until NetpollReady names it, and
// releases l (if not nil) once the G is waiting, so that whoever finds the
// G under l may pass it to NetpollReady without racing the park. A G
// parked on the poller must be readied by NetpollReady only.
func (g *G) NetpollPark(l sync.Locker) {
	g.mustRun("NetpollPark")
	g.x.s.netpollWaitOn(g)
	g.x.reason = "IO wait"
	g.x.unlock = l
	g.yield(reqPark)
}

// netpollWaitOn counts g, about to park, as waiting on the poller
// (netpollAnyWaiters), which is then in use.
func (s *Sched) netpollWaitOn(g *G) {
	s.useNetpoll()
	s.poll.mu.Lock()
	g.x.pollWait = true
	s.poll.nwait.Add(1)
	s.poll.mu.Unlock()
}

// netpollUnwait forgets that g waits on the poller, if it does: the
// Driver's readying of a parked G by another way (a G's Ready, netpoll(0),
// sysmon's poll).
func (s *Sched) netpollUnwait(g *G) {
	s.poll.mu.Lock()
	if g.x.pollWait {
		g.x.pollWait = false
		s.poll.nwait.Add(-1)
	}
	s.poll.mu.Unlock()
}

// NetpollReady delivers the I/O events of the Gs ts, each parked on the
// poller (NetpollPark): they join the poller's ready list in that order,
// for the next netpoll to return together. It fails, readying none, if one
// of them is not parked on the poller.
func (s *Sched) NetpollReady(ts ...Task) error {
	if s.stopping.Load() {
		return ErrShutdown
	}
	gs := make([]*G, len(ts))
	for i, t := range ts {
		g, ok := t.(*G)
		if !ok || g == nil || g.x.s != s {
			return errors.New("gmpcheck: NetpollReady of a goroutine not created by this scheduler")
		}
		gs[i] = g
	}
	s.poll.mu.Lock()
	for i, g := range gs {
		if !g.x.pollWait || g.Status() != Gwaiting {
			for _, h := range gs[:i] {
				h.x.pollWait = true
			}
			s.poll.mu.Unlock()
			return fmt.Errorf("gmpcheck: NetpollReady of %v, which is not parked on the poller", g)
		}
		g.x.pollWait = false // also catches a G named twice
	}
	for _, g := range gs {
		s.poll.ready.PushBack(g)
	}
	s.poll.nready.Add(int32(len(gs)))
	s.poll.nwait.Add(-int32(len(gs)))
	s.poll.mu.Unlock()
	if s.lastpoll.Load() == 0 {
		s.netpollBreak(nil) // an M asleep in the poller takes them
	}
	// With every M idle nobody would poll: inject the list now.
	s.glob.Lock()
	if s.allMsIdleLocked() {
		s.netpollInjectNoPLocked()
	}
	s.glob.Unlock()
	return nil
}

// netpollAdd puts waiting Gs on the ready list as their events arrive (the
// Driver's netpoll: the spec says which waiting Gs the poll returns).
func (s *Sched) netpollAdd(gs ...*G) {
	s.poll.mu.Lock()
	for _, g := range gs {
		s.poll.ready.PushBack(g)
	}
	s.poll.nready.Add(int32(len(gs)))
	s.poll.mu.Unlock()
}

// netpoll is netpoll(0): it takes the whole ready list without blocking.
func (s *Sched) netpoll() GQueue {
	var q GQueue
	if s.poll.nready.Load() == 0 {
		return q
	}
	s.poll.mu.Lock()
	q, s.poll.ready = s.poll.ready, GQueue{}
	s.poll.nready.Store(0)
	s.poll.mu.Unlock()
	return q
}

// pollStep is findRunnable's netpoll(0), after the local and global
// queues (pc MPoll). Nothing there: the spinning decision (spinLimitStep).
// One G: the M runs it (Netpoll). More: the first runs, the rest go to
// injectglist with the M's P; this step marks them all runnable, holds
// them on the M (m.curg, m.inj) and loads npidle, which splits the list
// (NetpollInject).
func (s *Sched) pollStep(m *M) stepResult {
	q := s.netpoll()
	if q.Empty() {
		return s.spinLimitStep(m)
	}
	g := q.Pop()
	s.readyPolled(g)
	n := q.Len()
	s.counters.Netpolled.Add(int64(1 + n))
	if n == 0 {
		s.emitAction(spec.ActNetpoll, m, pidOf(m.p.Load()), g)
		return s.run(m, g, false)
	}
	for h := q.head; h != nil; h = h.schedlink {
		s.readyPolled(h)
	}
	m.curg.Store(g)
	first := q.head
	m.inj = q
	// Gs for the idle Ps (as many as were idle) go to the global queue,
	// each with an M started for it; the rest to this P's queue.
	m.injGlob = min(s.npidle.Load(), int32(n))
	m.pc = spec.MInjectLocal
	if m.injGlob > 0 {
		m.pc = spec.MInjectGlob
	}
	if s.trace != nil {
		s.trace(Event{Kind: EvAction, Action: spec.ActNetpollInject, M: m.id, P: pidOf(m.p.Load()), G: g.goid, Inj: first.goid, N: int32(n)})
	}
	return stepAgain
}

// readyPolled makes a G that netpoll returned runnable.
func (s *Sched) readyPolled(g *G) {
	if !g.casStatus(Gwaiting, Grunnable) {
		panic(fmt.Sprintf("netpoll: %v has status %v, want waiting", g, g.Status()))
	}
	s.emitStatus(g, Gwaiting, Grunnable)
}

// injectGlobStep is injectglist's global part: the Gs for the idle Ps join
// sched.runq in one lock section (InjectGlobrunq).
func (s *Sched) injectGlobStep(m *M) stepResult {
	var batch GQueue
	for range m.injGlob {
		batch.PushBack(m.inj.Pop())
	}
	s.glob.Lock()
	s.glob.putBatch(&batch)
	s.glob.Unlock()
	s.counters.Injected.Add(int64(m.injGlob))
	m.pc = spec.MInjectStart
	s.emitAction(spec.ActInjectGlobrunq, m, pidOf(m.p.Load()), nil)
	return stepAgain
}

// injectStartStep is one round of injectglist's startIdle: under
// sched.lock, an idle P (pidlegetSpinning) gets a non-spinning M for one
// of the Gs just queued; with none, needspinning is set and startIdle ends
// (InjectStartIdle). Then the local part, or the final wakep.
func (s *Sched) injectStartStep(m *M) stepResult {
	s.glob.Lock()
	if pp := s.pidlegetSpinning(); pp != nil {
		s.startm(pp, false, true)
		m.injGlob--
	} else {
		m.injGlob = 0
	}
	s.glob.Unlock()
	if m.injGlob == 0 {
		m.pc = spec.MInjectWake
		if !m.inj.Empty() {
			m.pc = spec.MInjectLocal
		}
	}
	s.emitAction(spec.ActInjectStartIdle, m, pidOf(m.p.Load()), nil)
	return stepAgain
}

// injectLocalStep is injectglist's local part: the rest go on the M's own
// P (runqputbatch), and what does not fit on sched.runq (InjectRunqput).
func (s *Sched) injectLocalStep(m *M) stepResult {
	pp := m.p.Load()
	s.counters.Injected.Add(int64(m.inj.Len()))
	pp.runq.PutBatch(&m.inj)
	if !m.inj.Empty() {
		s.glob.Lock()
		s.glob.putBatch(&m.inj)
		s.glob.Unlock()
	}
	m.pc = spec.MInjectWake
	s.emitAction(spec.ActInjectRunqput, m, pp.id, nil)
	return stepAgain
}

// injectWakeStep ends injectglist and findRunnable: the G netpoll gave the
// M runs (a spinning M first takes resetspinning), and, from Go 1.23 on,
// wakep: a P that went idle after the npidle load found none of the
// injected Gs, and nobody else may be looking (golang/go#63555)
// (InjectWakep).
func (s *Sched) injectWakeStep(m *M) stepResult {
	g := m.curg.Load()
	m.curg.Store(nil)
	r := s.run(m, g, false)
	s.emitAction(spec.ActInjectWakep, m, pidOf(m.p.Load()), g)
	if s.cfg.Go == spec.Go126 {
		s.wakep(m)
	}
	return r
}

// netpollInjectNoPLocked takes the ready list and injects each G without a
// P (injectglist's no-P way, InjectGList), as sysmon or an M blocked in
// netpoll would. sched.lock held.
func (s *Sched) netpollInjectNoPLocked() {
	q := s.netpoll()
	for g := q.Pop(); g != nil; g = q.Pop() {
		s.readyPolled(g)
		s.injectOneLocked(g)
	}
}

// sysmonNetpoll is sysmon's poll: a ready list that has waited since
// sysmon's last look at least 10 ms ago is injected without a P. since is
// when sysmon first saw the list non-empty (0: not seen); it returns the
// new value.
func (s *Sched) sysmonNetpoll(now, since time.Duration) time.Duration {
	if s.poll.nready.Load() == 0 {
		return 0
	}
	if since == 0 {
		return now
	}
	if !lasted(since, now, sysmonLongNS) {
		return since
	}
	s.glob.Lock()
	s.netpollInjectNoPLocked()
	s.glob.Unlock()
	return 0
}
