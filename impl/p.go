package impl

import (
	"sync/atomic"

	"github.com/gmpcheck/gmpcheck/spec"
)

// P is a processor: the right to run Go code, with its local run queue. An
// M must hold a P to run a G; there are exactly GOMAXPROCS of them.
type P struct {
	id     int32
	status atomic.Uint32 // spec.PIdle or spec.PRunning
	m      atomic.Pointer[M]
	runq   *Runq
	// timers is the P's timer heap (timers.go): sleeping Gs' wake-ups.
	timers timers

	// schedtick counts executes with a fresh time slice; sysmon reads it to
	// see whether the P has been running the same slice for too long.
	schedtick atomic.Uint32
	// syscalltick counts syscall entries and retakes, for sysmon.
	syscalltick atomic.Uint32

	// gFree is the per-P free list of dead Gs (gfput/gfget). Only the
	// goroutine holding the P touches it.
	gFree GQueue

	sysmontick sysmontick // sysmon's private view of this P
}

// ID is the P's index in allp.
func (pp *P) ID() int { return int(pp.id) }

// pMask is a bitmap with one bit per P (the runtime's idlepMask). Bits are
// set and cleared under sched.lock and read atomically by thieves, which
// skip idle Ps.
type pMask []atomic.Uint64

func newPMask(n int) pMask { return make(pMask, (n+63)/64) }

func (p pMask) read(i int) bool { return p[i/64].Load()&(1<<(uint(i)%64)) != 0 }
func (p pMask) set(i int)       { p[i/64].Or(1 << (uint(i) % 64)) }
func (p pMask) clear(i int)     { p[i/64].And(^uint64(1 << (uint(i) % 64))) }

// pidleput puts pp on the idle list. sched.lock held. An idle P must have an
// empty run queue: a G left there would wait until some M happened to
// acquire this P. (Empty as the release's runqempty says: go1.5dev's missed
// a G in runnext, and so let such a P go idle, golang/go#10573.)
func (s *Sched) pidleput(pp *P) {
	if !s.runqempty(pp) {
		panic("pidleput: P has non-empty run queue")
	}
	if s.world.gcwaiting.Load() {
		panic("pidleput: P goes idle while the world stops")
	}
	s.pidleputUnchecked(pp)
}

// pidleget pops the P idled last, or returns nil. sched.lock held. The
// order is the runtime's and the spec's: idle Ps differ in their schedtick
// and timers, so which one wakes is part of the behaviour the driver
// compares.
func (s *Sched) pidleget() *P {
	n := len(s.pidle)
	if n == 0 {
		return nil
	}
	pp := s.pidle[n-1]
	s.pidle[n-1] = nil
	s.pidle = s.pidle[:n-1]
	s.ps().idlep.clear(int(pp.id))
	pp.status.Store(uint32(spec.PRunning))
	s.npidle.Add(-1)
	return pp
}

// acquirep wires pp to m.
func acquirep(m *M, pp *P) {
	pp.m.Store(m)
	m.p.Store(pp)
}

// releasep unwires m's P and returns it.
func releasep(m *M) *P {
	pp := m.p.Load()
	if pp == nil {
		panic("releasep: m has no p")
	}
	m.p.Store(nil)
	pp.m.Store(nil)
	return pp
}
