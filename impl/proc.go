package impl

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gmpcheck/gmpcheck/spec"
)

// gsched is the scheduler's per-G state, embedded in G as G.x.
type gsched struct {
	s        *Sched
	m        *M // the M running this G (set by execute)
	fn       func(Task)
	wake     chan struct{} // the M resumes the G's goroutine here
	req      gReq          // what the G asked its M to do when it yielded
	unlock   sync.Locker   // ParkUnlock: released after the G is waiting
	reason   string        // wait reason of a parked G
	pollWait bool          // parked on the poller, its event not yet come; under poll.mu
	preempt  atomic.Bool   // sysmon's preemption request (gp.preempt)
	started  bool          // hand-off shell: the G's goroutine exists
	hasStack bool          // carrier shell: a goroutine is this G's stack
	kill     bool          // Shutdown: the goroutine must end
	// lockedm is g.lockedm: the M that LockOSThread wired this G to. The G
	// sets and clears it while it runs; other Ms read it when they find
	// the G in a queue (dispatch).
	lockedm   atomic.Pointer[M]
	lockCount uint32 // LockOSThread calls not yet undone; only the G touches it
	// sleepWhen is when a Sleep's timer is due, set by the G and read by
	// its M in parkm, which puts the timer on its P; sleepSeq numbers the
	// G's sleeps, so that a timer left from an earlier one readies nothing.
	sleepWhen int64
	sleepSeq  atomic.Uint64
}

// gReq is what a G asks of its M when it hands control back (the runtime's
// mcall continuation: goexit0, gosched_m, gopreempt_m, park_m,
// exitsyscallNoP).
type gReq uint8

const (
	reqNone gReq = iota
	reqExit
	reqGosched
	reqPreempt
	reqPark
	reqExitSyscallNoP
	reqGoyield
)

// newproc1 makes a runnable G for fn: a dead G from pp's free list (or the
// global one), else a new one. pp is nil when called from outside the
// scheduler.
func (s *Sched) newproc1(pp *P, fn func(Task)) *G {
	var g *G
	if pp != nil {
		g = s.gfget(pp)
	} else {
		s.gfree.Lock()
		g = s.gfree.q.Pop()
		s.gfree.Unlock()
	}
	old := Gdead
	if g == nil {
		g = NewG(s.goidgen.Add(1))
		g.x.s = s
		g.x.wake = make(chan struct{}, 1)
		s.allgs.Lock()
		s.allgs.gs = append(s.allgs.gs, g)
		s.allgs.Unlock()
		old = Gidle
	}
	g.x.fn = fn
	g.x.preempt.Store(false)
	s.nlive.Add(1)
	s.counters.Spawned.Add(1)
	if !g.casStatus(old, Grunnable) {
		panic(fmt.Sprintf("newproc1: %v has status %v, want %v", g, g.Status(), old))
	}
	s.emitStatus(g, old, Grunnable)
	return g
}

// newproc is the go statement of the G running on m: the new G goes to
// runnext of the creator's P (it is likely to be needed soon and its
// creator's cache is warm), then wakep looks for an idle P to run the rest.
func (s *Sched) newproc(m *M, fn func(Task)) *G {
	pp := m.p.Load()
	g := s.newproc1(pp, fn)
	s.emit(Event{Kind: EvAction, Action: spec.ActNewProc, M: m.id, P: pp.id, G: g.goid})
	pp.runq.Put(g, true)
	s.emit(Event{Kind: EvRunqPut, M: m.id, P: pp.id, G: g.goid, On: true})
	s.wakep(m)
	return g
}

// gfput puts a dead G on pp's free list; past 64 it moves half to the
// global list, so that Ps that create Gs can reuse those that others freed.
func (s *Sched) gfput(pp *P, g *G) {
	if g.Status() != Gdead {
		panic("gfput: bad status (not Gdead)")
	}
	pp.gFree.Push(g)
	if pp.gFree.Len() >= 64 {
		var q GQueue
		for pp.gFree.Len() >= 32 {
			q.Push(pp.gFree.Pop())
		}
		s.gfree.Lock()
		s.gfree.q.PushBackAll(&q)
		s.gfree.Unlock()
	}
}

// gfget takes a dead G from pp's free list, refilling it with up to 32
// from the global list when it is empty.
func (s *Sched) gfget(pp *P) *G {
	if pp.gFree.Empty() {
		s.gfree.Lock()
		for pp.gFree.Len() < 32 {
			g := s.gfree.q.Pop()
			if g == nil {
				break
			}
			pp.gFree.Push(g)
		}
		s.gfree.Unlock()
	}
	return pp.gFree.Pop()
}

// execute makes g the running G of m: the end of schedule. A fresh time
// slice (not inherited through runnext) counts a schedtick, which is what
// both the 1-in-61 global check and sysmon's preemption measure.
func (s *Sched) execute(m *M, g *G, inheritTime bool) {
	m.curg.Store(g)
	g.x.m = m
	if !g.casStatus(Grunnable, Grunning) {
		panic(fmt.Sprintf("execute: %v has status %v, want runnable", g, g.Status()))
	}
	s.emitStatus(g, Grunnable, Grunning)
	g.x.preempt.Store(false)
	m.pollUntil = 0
	if !inheritTime {
		m.p.Load().schedtick.Add(1)
	}
	m.pc = spec.MRun
}

// run is the end of schedule. A spinning M that found g holds it, still
// runnable, and takes resetspinning as its next step (resetspinningStep):
// until then it counts in nmspinning, which other Ms may read. Any other M
// executes g at once.
func (s *Sched) run(m *M, g *G, inheritTime bool) stepResult {
	if m.spinning {
		// A spinning M's own queue is empty, so runnext is not its to
		// inherit, unless a timer it ran put the G there.
		if inheritTime && !s.strandsQueues() && !s.poller.timers.Load() {
			panic("schedule: a spinning M inherits a time slice")
		}
		m.curg.Store(g)
		m.inherit = inheritTime
		m.pc = spec.MResetSpin
		return stepAgain
	}
	return s.dispatch(m, g, inheritTime)
}

// dropg detaches m's current G.
func dropg(m *M) *G {
	g := m.curg.Load()
	m.curg.Store(nil)
	g.x.m = nil
	return g
}

// goexit0 ends the running G: dead, onto the free list, and m goes back to
// the schedule loop. A G that exits locked to m ends m too (mexit): then
// goexit0 reports true, and the caller must stop carrying m.
func (s *Sched) goexit0(m *M) (mgone bool) {
	g := m.curg.Load()
	pp := m.p.Load()
	s.emit(Event{Kind: EvAction, Action: spec.ActGoExit, M: m.id, P: pp.id, G: g.goid})
	if !g.casStatus(Grunning, Gdead) {
		panic(fmt.Sprintf("goexit0: %v has status %v", g, g.Status()))
	}
	s.emitStatus(g, Grunning, Gdead)
	dropg(m)
	g.x.fn = nil
	locked := m.lockedg == g
	if g.x.lockCount != 0 || g.x.lockedm.Load() != nil {
		m.lockedg = nil
		g.x.lockedm.Store(nil)
		g.x.lockCount = 0
	}
	s.gfput(pp, g)
	m.pc = spec.MSched
	s.counters.Exited.Add(1)
	last := s.nlive.Add(-1) == 0
	if locked {
		// After the G stops counting as live (else mexit's checkdead
		// would see it live with every M idle), but before a Wait for
		// it returns, so that the M is gone by then.
		s.mexit(m)
	}
	if last {
		s.broadcastWait()
	}
	return locked
}

// goschedImpl deschedules the running G onto the global queue (Gosched,
// or a preemption: both are about fairness, so the G goes behind every
// other runnable G instead of back to its own P), then wakes an idle P for
// it.
func (s *Sched) goschedImpl(m *M, preempted bool) {
	g := m.curg.Load()
	pp := m.p.Load()
	act := spec.ActGosched
	if preempted {
		act = spec.ActPreempt
		s.counters.Preempts.Add(1)
	}
	s.emit(Event{Kind: EvAction, Action: act, M: m.id, P: pp.id, G: g.goid})
	if !g.casStatus(Grunning, Grunnable) {
		panic(fmt.Sprintf("goschedImpl: bad g status %v", g.Status()))
	}
	s.emitStatus(g, Grunning, Grunnable)
	dropg(m)
	m.pc = spec.MSched
	switch {
	case preempted && s.world.gcwaiting.Load():
		// Preempted for stop-the-world: the G keeps its P's runnext,
		// so that it runs first when the world starts again.
		pp.runq.Put(g, true)
		s.emit(Event{Kind: EvRunqPut, M: m.id, P: pp.id, G: g.goid, On: true})
	case s.bugOn(spec.BugGoschedLocal):
		pp.runq.Put(g, true)
	default:
		s.glob.Put(g)
		s.emit(Event{Kind: EvGlobPut, M: m.id, P: pp.id, G: g.goid})
	}
	if s.cfg.Go != spec.Go121 { // 1.22 added this wakep (golang/go#55160)
		s.wakep(m)
	}
}

// parkm parks the running G: waiting until some Ready. unlock, if set, is
// released only once the G is waiting, so that whoever finds the G through
// the data the lock protects can Ready it without racing the park.
func (s *Sched) parkm(m *M, unlock sync.Locker) {
	g := m.curg.Load()
	pp := m.p.Load()
	if s.trace != nil {
		e := Event{Kind: EvAction, Action: spec.ActPark, M: m.id, P: pp.id, G: g.goid}
		if w := g.x.sleepWhen; w != 0 {
			// A Sleep's park: N is the sleep in the clock's ns (the
			// Driver's ticks).
			e.Action, e.N = spec.ActTimerSleep, clampN(w-s.nanotime())
		}
		s.emit(e)
	}
	if !g.casStatus(Grunning, Gwaiting) {
		panic(fmt.Sprintf("park_m: bad g status %v", g.Status()))
	}
	s.emitStatus(g, Grunning, Gwaiting)
	dropg(m)
	if w := g.x.sleepWhen; w != 0 {
		g.x.sleepWhen = 0
		s.addTimer(m, g, w)
	}
	m.pc = spec.MSched
	if unlock != nil {
		unlock.Unlock()
	}
}

// ready makes the waiting G gp runnable from the G running on m: gp goes to
// runnext of m's P, so that a G that wakes a partner and then blocks hands
// its P (and its remaining time slice) straight to the partner; wakep finds
// an idle P for the work this G may have displaced.
func (s *Sched) ready(m *M, gp *G) error { return s.readyAs(m, gp, spec.ActReady) }

// readyAs is ready, reported as act: Ready, or ReadyHandoff when it is
// semrelease's hand-off, whose goyield follows.
func (s *Sched) readyAs(m *M, gp *G, act spec.ActionKind) error {
	if !gp.casStatus(Gwaiting, Grunnable) {
		return readyErr(gp)
	}
	pp := m.p.Load()
	s.emit(Event{Kind: EvAction, Action: act, M: m.id, P: pp.id, G: gp.goid})
	s.emitStatus(gp, Gwaiting, Grunnable)
	pp.runq.Put(gp, true)
	s.emit(Event{Kind: EvRunqPut, M: m.id, P: pp.id, G: gp.goid, On: true})
	if !s.bugOn(spec.BugReadyNoWakep) {
		s.wakep(m)
	}
	return nil
}

// goyieldm is goyield_m: the G to the tail of its P's local run queue (a
// full ring spills half of it to the global queue), then schedule. No
// wakep: the hand-off's ready that came before made one.
func (s *Sched) goyieldm(m *M) {
	g := m.curg.Load()
	pp := m.p.Load()
	s.emit(Event{Kind: EvAction, Action: spec.ActGoyield, M: m.id, P: pp.id, G: g.goid})
	if !g.casStatus(Grunning, Grunnable) {
		panic(fmt.Sprintf("goyield: bad g status %v", g.Status()))
	}
	s.emitStatus(g, Grunning, Grunnable)
	dropg(m)
	m.pc = spec.MSched
	pp.runq.Put(g, false)
	s.emit(Event{Kind: EvRunqPut, M: m.id, P: pp.id, G: g.goid})
}

// injectglist puts a runnable G made without a P (Go or Ready from outside
// the scheduler) on the global queue and starts an M on an idle P, if any
// (with none, pidlegetSpinning sets needspinning).
func (s *Sched) injectglist(g *G) {
	s.glob.Lock()
	s.injectOneLocked(g)
	s.glob.Unlock()
	// Work from outside the scheduler is this implementation's stand-in
	// for the runtime's timers and netpoller, whose next event bounds
	// sysmon's deep sleep (timeSleepUntil): wake it, so that the G has a
	// time slice.
	if s.sysmonOn.Load() {
		s.wakeSysmon()
	}
}

// injectOneLocked is injectglist without a P for one runnable G: the
// global queue, and an M for an idle P if there is one. sched.lock held.
func (s *Sched) injectOneLocked(g *G) {
	s.glob.put(g)
	s.emit(Event{Kind: EvAction, Action: spec.ActInjectGList, M: -1, P: -1, G: g.goid})
	s.emit(Event{Kind: EvGlobPut, M: -1, P: -1, G: g.goid})
	if pp := s.pidlegetSpinning(); pp != nil {
		s.startm(pp, false, true)
	}
}

// checkdead runs when an M goes idle (sched.lock held): if that was the
// last one and Gs are still alive, nothing can run them. Every live G is
// then parked (a deadlock of the program) unless some runnable G was left
// in a queue, which would be a lost wakeup in the scheduler.
func (s *Sched) checkdead() {
	if !s.allMsIdleLocked() || s.nlive.Load() == 0 || s.det || s.sysmonHeld.Load() != 0 {
		return
	}
	if s.world.gcwaiting.Load() {
		return // the world is stopped on purpose: StartTheWorld restarts it
	}
	if s.poll.nready.Load() != 0 {
		// The last M would block in netpoll and find these: inject them.
		s.netpollInjectNoPLocked()
		return
	}
	if s.poll.nwait.Load() != 0 {
		return // Gs wait for I/O, not for each other
	}
	queued := s.queuedLocked(s.ps())
	err := ErrDeadlock
	if queued > 0 {
		err = fmt.Errorf("gmpcheck: scheduler stuck: %d runnable Gs queued while every M is idle (lost wakeup)", queued)
	} else if s.timersPendingLocked() {
		err = fmt.Errorf("gmpcheck: scheduler stuck: timers pending while every M is idle, none in the poller (lost wakeup)")
	}
	s.dead.Store(true)
	s.waitMu.Lock()
	s.deadErr = err
	s.waitCond.Broadcast()
	s.waitMu.Unlock()
}

// clearDead forgets a reported deadlock once an M starts again (an outside
// Ready revived the program). sched.lock held.
func (s *Sched) clearDead() {
	s.dead.Store(false)
	s.waitMu.Lock()
	s.deadErr = nil
	s.waitMu.Unlock()
}
