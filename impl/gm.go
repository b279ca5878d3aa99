package impl

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// GM is the baseline: the scheduler before Go 1.1 introduced P. There is
// one global run queue under one lock (sched.lock); up to Procs Ms run Go
// code at once (sched.mcpu <= sched.mcpumax); every go statement, ready,
// yield and dispatch goes through that lock, and an M that blocks in a
// syscall gives up its "CPU" so another M can run. There are no local
// queues, no runnext, no stealing, no spinning Ms, no free-G caches per P,
// and no preemption (Checkpoint is a no-op: Go 1.0 had none). It satisfies
// the same Scheduler/Task API as Sched so that the benchmarks run the same
// workloads on both.
type GM struct {
	procs int32

	mu      sync.Mutex // sched.lock: everything below
	cond    sync.Cond  // idle Ms wait here
	runq    gmQueue
	free    *gmG // dead Gs for reuse
	mcpu    int32
	nm      int32 // Ms created
	nidle   int32 // Ms waiting on cond
	allgs   []*gmG
	goidgen uint64

	nlive    atomic.Int64
	waitCond sync.Cond
	deadErr  error
	stopping atomic.Bool
	shutOnce sync.Once
	mwg, wg  sync.WaitGroup
}

type gmQueue struct {
	head, tail *gmG
	n          int
}

func (q *gmQueue) push(g *gmG) {
	g.next = nil
	if q.tail == nil {
		q.head = g
	} else {
		q.tail.next = g
	}
	q.tail = g
	q.n++
}

func (q *gmQueue) pop() *gmG {
	g := q.head
	if g != nil {
		q.head = g.next
		if q.head == nil {
			q.tail = nil
		}
		g.next = nil
		q.n--
	}
	return g
}

// gmG is a goroutine of the GM scheduler.
type gmG struct {
	id      uint64
	s       *GM
	next    *gmG
	status  atomic.Uint32 // Gstatus
	fn      func(Task)
	wake    chan struct{}
	m       *gmM
	req     gReq
	unlock  sync.Locker
	started bool
	kill    bool
}

type gmM struct{ back chan struct{} }

var (
	_ Task      = (*gmG)(nil)
	_ Scheduler = (*GM)(nil)
)

// NewGM builds the baseline with procs "CPUs" (GOMAXPROCS).
func NewGM(procs int) (*GM, error) {
	if procs == 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	if !validProcs(procs) {
		return nil, fmt.Errorf("impl: GM procs %d: want 1..%d", procs, maxProcs)
	}
	s := &GM{procs: int32(procs)}
	s.cond.L = &s.mu
	s.waitCond.L = &s.mu
	s.mu.Lock()
	for range procs {
		s.newm()
	}
	s.mu.Unlock()
	return s, nil
}

// newm starts an M. s.mu held.
func (s *GM) newm() {
	s.nm++
	s.mwg.Add(1)
	go s.mloop(&gmM{back: make(chan struct{}, 1)})
}

// mloop is an M: take the head of the global queue whenever a CPU is free.
func (s *GM) mloop(m *gmM) {
	defer s.mwg.Done()
	s.mu.Lock()
	for {
		for s.runq.n == 0 || s.mcpu >= s.procs {
			if s.stopping.Load() {
				s.nm--
				s.mu.Unlock()
				return
			}
			s.nidle++
			if s.nidle == s.nm && s.nlive.Load() > 0 && s.runq.n == 0 {
				s.deadErr = ErrDeadlock
				s.waitCond.Broadcast()
			}
			s.cond.Wait()
			s.nidle--
		}
		g := s.runq.pop()
		s.mcpu++
		s.mu.Unlock()

		g.m = m
		g.status.Store(uint32(Grunning))
		if !g.started {
			g.started = true
			s.wg.Add(1)
			go s.gmain(g)
		} else {
			g.wake <- struct{}{}
		}
		<-m.back

		s.mu.Lock()
		if g.req != reqExitSyscallNoP {
			s.mcpu--
		}
		switch g.req {
		case reqExit:
			g.status.Store(uint32(Gdead))
			g.fn = nil
			g.next = s.free
			s.free = g
			if s.nlive.Add(-1) == 0 {
				s.waitCond.Broadcast()
			}
		case reqGosched, reqPreempt, reqExitSyscallNoP:
			g.status.Store(uint32(Grunnable))
			s.runq.push(g)
		case reqPark:
			// Take the lock to release before publishing the G: once
			// it is waiting it may be readied, run and park again.
			l := g.unlock
			g.unlock = nil
			g.status.Store(uint32(Gwaiting))
			if l != nil {
				l.Unlock()
			}
		}
	}
}

func (s *GM) gmain(g *gmG) {
	defer s.wg.Done()
	for {
		g.fn(g)
		g.yield(reqExit)
	}
}

func (g *gmG) yield(r gReq) {
	g.req = r
	g.m.back <- struct{}{}
	<-g.wake
	if g.kill {
		runtime.Goexit()
	}
}

// newproc puts a new G on the global queue and wakes an idle M.
func (s *GM) newproc(fn func(Task)) error {
	if fn == nil {
		return errors.New("gmpcheck: Go of nil func")
	}
	if s.stopping.Load() {
		return ErrShutdown
	}
	s.mu.Lock()
	// Counted under s.mu, with the push and the verdict's reset: an M
	// idling between the count and the push would otherwise see a live G,
	// an empty queue and every M idle, and declare a deadlock that a
	// concurrent Wait could report.
	s.nlive.Add(1)
	g := s.free
	if g != nil {
		s.free = g.next
	} else {
		s.goidgen++
		g = &gmG{id: s.goidgen, s: s, wake: make(chan struct{}, 1)}
		s.allgs = append(s.allgs, g)
	}
	g.fn = fn
	g.status.Store(uint32(Grunnable))
	s.runq.push(g)
	s.deadErr = nil
	if s.nidle > 0 {
		s.cond.Signal()
	}
	s.mu.Unlock()
	return nil
}

// Go starts fn from outside.
func (s *GM) Go(fn func(Task)) error { return s.newproc(fn) }

// Ready makes a parked G runnable.
func (s *GM) Ready(t Task) error {
	g, ok := t.(*gmG)
	if !ok || g == nil || g.s != s {
		return errors.New("gmpcheck: Ready of a goroutine not created by this scheduler")
	}
	if s.stopping.Load() {
		return ErrShutdown
	}
	if !g.status.CompareAndSwap(uint32(Gwaiting), uint32(Grunnable)) {
		return fmt.Errorf("bad g->status in ready: g%d is %v, not waiting", g.id, Gstatus(g.status.Load()))
	}
	s.mu.Lock()
	s.runq.push(g)
	s.deadErr = nil
	if s.nidle > 0 {
		s.cond.Signal()
	}
	s.mu.Unlock()
	return nil
}

// Wait blocks until every G exited or all are parked.
func (s *GM) Wait() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.nlive.Load() == 0 {
			return nil
		}
		if s.deadErr != nil {
			return s.deadErr
		}
		if s.stopping.Load() {
			return ErrShutdown
		}
		s.waitCond.Wait()
	}
}

// Shutdown stops the Ms (after their running Gs yield) and ends the G
// goroutines.
func (s *GM) Shutdown() {
	s.shutOnce.Do(func() {
		s.stopping.Store(true)
		s.mu.Lock()
		s.cond.Broadcast()
		s.waitCond.Broadcast()
		s.mu.Unlock()
		s.mwg.Wait()
		s.mu.Lock()
		gs := s.allgs
		s.allgs = nil
		s.mu.Unlock()
		for _, g := range gs {
			if g.started {
				g.kill = true
				g.wake <- struct{}{}
			}
		}
		s.wg.Wait()
	})
}

// ID is the G's id.
func (g *gmG) ID() uint64 { return g.id }

func (g *gmG) mustRun(op string) {
	if Gstatus(g.status.Load()) != Grunning {
		panic(fmt.Sprintf("gmpcheck: %s on g%d, which is %v, not running", op, g.id, Gstatus(g.status.Load())))
	}
}

// Go starts fn: onto the global queue, like every other G.
func (g *gmG) Go(fn func(Task)) error {
	g.mustRun("Go")
	return g.s.newproc(fn)
}

// Gosched puts the G at the tail of the global queue.
func (g *gmG) Gosched() { g.mustRun("Gosched"); g.yield(reqGosched) }

// Park blocks the G until a Ready.
func (g *gmG) Park(reason string) { g.mustRun("Park"); g.yield(reqPark) }

// ParkUnlock parks and then releases l.
func (g *gmG) ParkUnlock(reason string, l sync.Locker) {
	g.mustRun("ParkUnlock")
	g.unlock = l
	g.yield(reqPark)
}

// Ready makes t runnable (global queue).
func (g *gmG) Ready(t Task) error { g.mustRun("Ready"); return g.s.Ready(t) }

// Syscall gives up the G's CPU while fn blocks (entersyscall: mcpu--, and
// another M takes over if there is work and no idle M); on return it takes
// a CPU back if one is free, else it queues itself and its M goes idle.
func (g *gmG) Syscall(fn func()) {
	g.mustRun("Syscall")
	s := g.s
	s.mu.Lock()
	s.mcpu--
	if s.runq.n > 0 {
		if s.nidle > 0 {
			s.cond.Signal()
		} else {
			s.newm()
		}
	}
	s.mu.Unlock()
	g.status.Store(uint32(Gsyscall))
	fn()
	s.mu.Lock()
	if s.mcpu < s.procs {
		s.mcpu++
		s.mu.Unlock()
		g.status.Store(uint32(Grunning))
		return
	}
	s.mu.Unlock()
	g.status.Store(uint32(Grunning))
	g.yield(reqExitSyscallNoP)
}

// Checkpoint does nothing: the GM scheduler had no preemption.
func (g *gmG) Checkpoint() {}
