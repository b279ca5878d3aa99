package impl

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Timers: a G's Sleep. The G parks and a timer for it goes on its P's
// timer heap; when the timer is due, whichever M runs it readies the G onto
// that M's own P (runnext, as goready does) and the G runs. Three places
// run timers, as in the runtime:
//
//   - findRunnable's top runs the M's own P's due timers (checkTimers);
//   - stealWork's last round runs the due timers of every other P, idle or
//     not, before it looks at their runnext (stealTimers), so that a P
//     whose G never yields does not keep its timers waiting;
//   - nobody else: an M that finds no work but knows of a timer (pollUntil,
//     the earliest it saw; a spinning M looks at every P: checkTimersNoP)
//     sleeps in the poller until then (netpollblock.go) instead of parking
//     for good, and a timer added earlier than the poller's wake-up breaks
//     its sleep (wakeNetPoller, netpollBreak).

// timer is a sleeping G's wake-up.
type timer struct {
	when int64 // nanotime at which it is due
	g    *G
	seq  uint64 // g.x.sleepSeq when it slept: a stale timer readies nothing
}

// timers is a P's timer heap (p.timers): a min-heap on when under its own
// lock, which other Ps' Ms take to steal. minWhen mirrors the earliest
// when (0: empty) for looks without the lock (wakeTime).
type timers struct {
	mu      sync.Mutex
	heap    []timer
	minWhen atomic.Int64
}

// wakeTime is the earliest timer's when, 0 if there is none.
func (ts *timers) wakeTime() int64 { return ts.minWhen.Load() }

// add puts t on the heap and reports whether it is earlier than every
// timer the heap held (maybeAdd's wake: when < wakeTime, strictly; a tie
// needs no new wake-up). ts.mu held.
func (ts *timers) add(t timer) bool {
	old := ts.minWhen.Load()
	ts.heap = append(ts.heap, t)
	for i := len(ts.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if ts.heap[p].when <= ts.heap[i].when {
			break
		}
		ts.heap[p], ts.heap[i] = ts.heap[i], ts.heap[p]
		i = p
	}
	ts.minWhen.Store(ts.heap[0].when)
	return old == 0 || t.when < old
}

// pop removes the earliest timer. ts.mu held, the heap not empty.
func (ts *timers) pop() timer {
	h := ts.heap
	t := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = timer{}
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].when < h[m].when {
			m = l
		}
		if r < len(h) && h[r].when < h[m].when {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	ts.heap = h
	if len(h) == 0 {
		ts.minWhen.Store(0)
	} else {
		ts.minWhen.Store(h[0].when)
	}
	return t
}

// take moves every timer of from to ts (procresize: a destroyed P's timers).
func (ts *timers) take(from *timers) {
	from.mu.Lock()
	moved := from.heap
	from.heap = nil
	from.minWhen.Store(0)
	from.mu.Unlock()
	if len(moved) == 0 {
		return
	}
	ts.mu.Lock()
	for _, t := range moved {
		ts.add(t)
	}
	ts.mu.Unlock()
}

// nanotime is the scheduler's clock: nanoseconds since New, never 0 (0
// means "no time" in when and pollUntil).
// Under the Driver it is the Driver's clock (Driver.TimerTick), which
// moves only when the Driver says.
func (s *Sched) nanotime() int64 {
	if s.det {
		return s.poller.clock.Load()
	}
	return int64(time.Since(s.start)) + 1
}

// TimerTask is the Task of the G/M/P scheduler (*G) with the calls that
// need its timers; the GM baseline has none.
type TimerTask interface {
	Task
	// Sleep parks the goroutine for at least d (time.Sleep). A d of zero
	// or less returns at once. A sleeping goroutine must not be readied
	// by Ready: its timer does that.
	Sleep(d time.Duration)
}

var _ TimerTask = (*G)(nil)

// Sleep parks g until a timer d from now readies it (see TimerTask).
func (g *G) Sleep(d time.Duration) {
	g.mustRun("Sleep")
	if d <= 0 {
		return
	}
	g.x.sleepWhen = g.x.s.nanotime() + int64(d)
	g.x.reason = "sleep"
	g.yield(reqPark)
}

// addTimer is the end of a Sleep's park (resetForSleep, run once the G is
// waiting so that its timer cannot ready it before): the timer goes on the
// heap of the P m holds, and if it is that P's earliest, wakeNetPoller
// makes sure some M will be awake for it.
func (s *Sched) addTimer(m *M, g *G, when int64) {
	pp := m.p.Load()
	t := timer{when: when, g: g, seq: g.x.sleepSeq.Add(1)}
	s.useTimers()
	pp.timers.mu.Lock()
	first := pp.timers.add(t)
	pp.timers.mu.Unlock()
	s.emit(Event{Kind: EvTimerSleep, M: m.id, P: pp.id, G: g.goid, N: clampMicros(when - s.nanotime())})
	if first {
		s.wakeNetPoller(m, when)
	}
}

// clampMicros is a duration in ns as microseconds, for Event.N.
func clampMicros(ns int64) int32 { return clampN(ns / 1000) }

// clampN fits a non-negative count into Event.N: below 0 is 0 (a time
// already past), above MaxInt32 is MaxInt32 (a conversion would wrap it
// negative).
func clampN(v int64) int32 { return int32(min(max(v, 0), math.MaxInt32)) }

// runTimers runs the due timers of ts on m (ts.check): each sleeping G
// whose timer is due becomes runnable on runnext of m's P, then wakep
// looks for an idle P for what that displaced. It returns the earliest
// timer left (0: none) and how many ran, with the first G readied. ts.mu
// is taken only when a timer is due.
func (s *Sched) runTimers(m *M, ts *timers, now int64) (next int64, ran int32, first *G) {
	next = ts.wakeTime()
	if next == 0 || next > now {
		return next, 0, nil
	}
	pp := m.p.Load()
	ts.mu.Lock()
	var due []*G
	for len(ts.heap) > 0 && ts.heap[0].when <= now {
		t := ts.pop()
		if t.g.x.sleepSeq.Load() == t.seq && t.g.casStatus(Gwaiting, Grunnable) {
			due = append(due, t.g)
		}
	}
	next = ts.wakeTime()
	ts.mu.Unlock()
	for _, g := range due {
		s.emitStatus(g, Gwaiting, Grunnable)
		pp.runq.Put(g, true)
		s.emit(Event{Kind: EvRunqPut, M: m.id, P: pp.id, G: g.goid, On: true})
	}
	if len(due) > 0 {
		first = due[0]
	}
	return next, int32(len(due)), first
}

// checkTimersStep is findRunnable's checkTimers of m's own P, at the top:
// it records the P's next timer in m.pollUntil (for a sleep in the poller
// if no work turns up) and reports whether a timer readied a G, which is
// then on m's runnext. A check that ran a timer is a step of its own
// (CheckTimers, with ready's wakep); one that ran none is part of the
// top's next step.
func (s *Sched) checkTimersStep(m *M) bool {
	pp := m.p.Load()
	if pp.timers.wakeTime() == 0 {
		m.pollUntil = 0
		return false
	}
	next, ran, g := s.runTimers(m, &pp.timers, s.nanotime())
	m.pollUntil = next
	if ran == 0 {
		return false
	}
	if s.trace != nil {
		s.emit(Event{Kind: EvCheckTimers, M: m.id, P: pp.id, Victim: pp.id, G: gidOf(g), N: ran})
		s.emit(Event{Kind: EvAction, Action: spec.ActCheckTimers, M: m.id, P: pp.id, Victim: pp.id, G: gidOf(g), N: ran})
	}
	s.wakep(m)
	return true
}

// stealTimers is stealWork's look at a victim's timers in its last round:
// it runs p2's due timers on m and folds p2's next timer into m.pollUntil.
// It reports whether a timer readied a G (on m's runnext), which the
// caller takes at once (StealTimers). Unlike checkTimers it calls no
// wakep: the thief is spinning, so nmspinning is not 0 and wakep would
// return at once.
func (s *Sched) stealTimers(m *M, p2 *P) bool {
	if p2.timers.wakeTime() == 0 || s.implBugOn(ImplBugTimersNotStolen) {
		return false
	}
	next, ran, g := s.runTimers(m, &p2.timers, s.nanotime())
	if next != 0 && (m.pollUntil == 0 || next < m.pollUntil) {
		m.pollUntil = next
	}
	if ran == 0 {
		return false
	}
	s.emit(Event{Kind: EvStealTimers, M: m.id, P: m.p.Load().id, Victim: p2.id, G: gidOf(g), N: ran})
	return true
}

// checkTimersNoP is the last look of an M that was spinning and gave its P
// up: the earliest timer of any P (in the snapshot it took with its P)
// earlier than pollUntil, so that the last spinning M to stop knows when
// to wake up.
func checkTimersNoP(ps *procSet, pollUntil int64) int64 {
	for _, p2 := range ps.allp {
		if w := p2.timers.wakeTime(); w != 0 && (pollUntil == 0 || w < pollUntil) {
			pollUntil = w
		}
	}
	return pollUntil
}

// timersPendingLocked reports whether any P has a timer.
func (s *Sched) timersPendingLocked() bool {
	for _, pp := range s.ps().allp {
		if pp.timers.wakeTime() != 0 {
			return true
		}
	}
	return false
}
