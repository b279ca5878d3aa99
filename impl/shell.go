package impl

import (
	"fmt"
	"runtime"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The shell: the only code that blocks. It comes in two forms.
//
// With Config.HandoffShell or PinThreads ("hand-off" shell), each M is one
// goroutine (with PinThreads, wired to an OS thread). It loops over
// schedStep; when a step chooses a G it hands that G's goroutine control
// and sleeps until the G hands it back with a request; when a step parks
// the M it sleeps on m.park until startm (or startlockedm) wakes it.
//
// By default ("carrier" shell, carrier.go), an M is a role that whichever
// goroutine is free carries: a G that has never blocked runs directly on
// its M's goroutine, as a function call, and only when it blocks does its
// goroutine stay behind as the G's stack while the M moves on. Either way a
// G runs only while its M lets it, so at most one G runs per M, and an M
// runs a G only while it holds a P (or is in a syscall, where the G is not
// running Go code).

// wakeM wakes an M parked in stopm (or starts a new M's goroutine, which
// newm already launched and which begins with a step). In the
// deterministic driver it does nothing: the driver steps the M itself.
func (s *Sched) wakeM(m *M) {
	if s.det {
		return
	}
	if !s.handoff {
		s.handM(m)
		return
	}
	select {
	case m.park <- struct{}{}:
	default:
	}
}

// launchM starts a new M's goroutine (newm's thread creation).
func (s *Sched) launchM(m *M) {
	if s.det {
		return
	}
	if !s.handoff {
		s.handM(m)
		return
	}
	s.mwg.Add(1)
	s.wg.Add(1)
	go s.mstart(m)
}

// mstart is an M's goroutine.
func (s *Sched) mstart(m *M) {
	defer s.wg.Done()
	defer s.mwg.Done()
	if s.cfg.PinThreads {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	// A new M was created by startm with its P; it has not been "woken".
	for {
		var r stepResult
		if m.pollWait {
			s.netpollWait(m)
		}
		if m.pc == spec.MRun {
			r = s.runG(m)
		} else {
			if s.stopping.Load() {
				return
			}
			r = s.schedStep(m)
		}
		switch r {
		case stepPark:
			<-m.park
			if m.kill {
				return
			}
		case stepExit:
			return
		}
	}
}

// runG hands control to m's current G until it yields, then carries out
// what the G asked for (the runtime's mcall continuations).
func (s *Sched) runG(m *M) stepResult {
	g := m.curg.Load()
	if !g.x.started {
		g.x.started = true
		s.wg.Add(1)
		go s.gmain(g)
	} else {
		g.x.wake <- struct{}{}
	}
	<-m.back
	if g.x.req == reqExit {
		if s.goexit0(m) {
			return stepExit // the G exited locked: its M is gone
		}
		return stepAgain
	}
	return s.mcallReq(m, g, g.x.req)
}

// mcallReq carries out on m what its G g asked for when it blocked or
// yielded (gosched_m, gopreempt_m, park_m, exitsyscallNoP), in either
// shell. An exit is not among them: each shell ends a G its own way.
func (s *Sched) mcallReq(m *M, g *G, r gReq) stepResult {
	switch r {
	case reqGosched:
		s.goschedImpl(m, false)
	case reqPreempt:
		s.goschedImpl(m, true)
	case reqPark:
		l := g.x.unlock
		g.x.unlock = nil
		s.parkm(m, l)
	case reqExitSyscallNoP:
		return s.exitsyscallNoP(m)
	case reqGoyield:
		s.goyieldm(m)
	default:
		panic(fmt.Sprintf("gmpcheck: G yielded without a valid request (%d)", r))
	}
	return stepAgain
}

// gmain is a G's goroutine. It outlives the G: after goexit the descriptor
// and its goroutine wait on the free list to be reused by a later Go, like
// the runtime reusing a dead G's stack.
func (s *Sched) gmain(g *G) {
	defer s.wg.Done()
	for {
		g.x.fn(g)
		g.yield(reqExit)
	}
}

// yield hands control back to g's M with a request and waits to be resumed.
// A G resumed by Shutdown ends its goroutine (deferred calls run).
func (g *G) yield(r gReq) {
	if !g.x.s.handoff {
		g.yieldCarried(r)
		return
	}
	g.x.req = r
	g.x.m.back <- struct{}{}
	<-g.x.wake
	if g.x.kill {
		runtime.Goexit()
	}
}
