package impl

import (
	"runtime"

	"github.com/gmpcheck/gmpcheck/spec"
)

// stealTries is the number of passes stealWork makes over the Ps; only the
// last may take a victim's runnext.
const stealTries = 4

// randomOrder enumerates 0..count-1 starting anywhere, with a stride
// coprime to count, so every P is visited exactly once per pass and thieves
// starting at the same time spread over different victims.
type randomOrder struct {
	count    uint32
	coprimes []uint32
}

func newRandomOrder(count uint32) randomOrder {
	ord := randomOrder{count: count}
	for i := uint32(1); i <= count; i++ {
		if gcd(i, count) == 1 {
			ord.coprimes = append(ord.coprimes, i)
		}
	}
	return ord
}

type randomEnum struct {
	i, count, pos, inc uint32
}

func (ord *randomOrder) start(r uint32) randomEnum {
	return randomEnum{
		count: ord.count,
		pos:   r % ord.count,
		inc:   ord.coprimes[r/ord.count%uint32(len(ord.coprimes))],
	}
}

func (e *randomEnum) done() bool       { return e.i == e.count }
func (e *randomEnum) position() uint32 { return e.pos }
func (e *randomEnum) next() {
	e.i++
	e.pos = (e.pos + e.inc) % e.count
}

func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// cheaprand is a per-M splitmix64 step: no shared state, so thieves do not
// contend on a random source, and a fixed Seed makes the Driver repeatable.
func (m *M) cheaprand() uint32 {
	m.rng += cheaprandStep
	z := m.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return uint32((z ^ z>>31) >> 32)
}

// stealScan is an M's progress through stealWork: the pass it is in, its
// random enumeration of the Ps, and (for the spec's view) which victims it
// has looked at in the last pass and how many.
type stealScan struct {
	pass int
	e    randomEnum
	seen uint64 // victims looked at in the last pass (ids below 64)
	n    int32  // how many
}

// stealStep is one victim of stealWork: stealTries passes over the other
// Ps in a random order, skipping idle ones (their queues are empty),
// stealing half of the first non-empty ring found; runnext is taken only
// in the last pass, because the victim is probably about to run it. A
// visit that finds nothing before the last pass changes nothing and is
// folded into the next one; a miss in the last pass is the spec's
// StealMiss, and once every other P was missed there the scan has failed
// and the M goes on to release its P.
func (s *Sched) stealStep(m *M) stepResult {
	pp := m.p.Load()
	ps := s.ps()
	for {
		if m.scan.e.done() {
			m.scan.pass++
			m.scan.e = ps.order.start(m.cheaprand())
		}
		p2 := ps.allp[m.scan.e.position()]
		m.scan.e.next()
		if p2 == pp {
			continue
		}
		last := m.scan.pass == stealTries-1
		if last && s.stealTimers(m, p2) {
			// A timer readied a G onto this P's runnext: run it,
			// inheriting the time slice as runqget says.
			if g, inherit := pp.runq.Get(); g != nil {
				m.scan = stealScan{}
				if s.trace != nil {
					s.emit(Event{Kind: EvAction, Action: spec.ActStealTimers, M: m.id, P: pp.id, Victim: p2.id, G: g.goid})
				}
				return s.run(m, g, inherit)
			}
		}
		// A P stopped for stop-the-world has no M to run what is on it
		// until the restart: it is not stolen from (the runtime's thief
		// meets gcwaiting first and stops; the spec's steals only from a
		// running P).
		if !ps.idlep.read(int(p2.id)) && p2.status.Load() != pGCStop {
			if !last {
				if g := pp.runq.Steal(p2.runq, false); g != nil {
					return s.stole(m, p2, g, spec.ActSteal)
				}
				continue
			}
			// The last pass: runqgrab's loads of head and tail, then
			// (the spec's next step, the owner free to act between)
			// runnext.
			g, empty := pp.runq.StealRing(p2.runq)
			if !empty {
				return s.stole(m, p2, g, spec.ActSteal)
			}
			if p2.id < 64 {
				m.scan.seen |= 1 << p2.id
			}
			m.pc, m.victim = spec.MStealNext, p2
			if s.trace != nil {
				s.emit(Event{Kind: EvAction, Action: spec.ActStealEmptyRing, M: m.id, P: pp.id, Victim: p2.id})
			}
			return stepAgain
		}
		if !last {
			continue
		}
		return s.stealMissed(m, p2)
	}
}

// stealNextStep is runqgrab's runnext half for the victim whose ring its
// last step read empty: the load of runnext and its CAS. A lost CAS
// (runnext changed since its load) starts runqgrab over from the ring, in
// this step, as the runtime's loop does.
func (s *Sched) stealNextStep(m *M) stepResult {
	pp, p2 := m.p.Load(), m.victim
	m.victim = nil
	m.pc = spec.MSteal
	for {
		g, retry := pp.runq.StealNext(p2.runq)
		if !retry {
			if g != nil {
				return s.stole(m, p2, g, spec.ActStealRunnext)
			}
			return s.stealMissed(m, p2)
		}
		// The CAS lost: runqgrab starts over from head and tail.
		if g, empty := pp.runq.StealRing(p2.runq); !empty {
			return s.stole(m, p2, g, spec.ActSteal)
		}
	}
}

// stole runs g, taken from p2 by the step act (Steal or StealRunnext).
func (s *Sched) stole(m *M, p2 *P, g *G, act spec.ActionKind) stepResult {
	pp := m.p.Load()
	m.scan = stealScan{}
	s.counters.Steals.Add(1)
	if s.trace != nil {
		s.emit(Event{Kind: EvSteal, M: m.id, P: pp.id, Victim: p2.id, G: g.goid, N: int32(pp.runq.Len() + 1)})
		s.emit(Event{Kind: EvAction, Action: act, M: m.id, P: pp.id, Victim: p2.id, G: g.goid})
	}
	return s.run(m, g, false)
}

// stealMissed is the last pass's miss at p2: once every other P was
// missed there, the scan has failed and the M goes on to release its P.
func (s *Sched) stealMissed(m *M, p2 *P) stepResult {
	pp, ps := m.p.Load(), s.ps()
	if p2.id < 64 {
		m.scan.seen |= 1 << p2.id
	}
	m.scan.n++
	if m.scan.n == ps.n-1 {
		m.pc = spec.MDrop
		m.scan = stealScan{}
	}
	if s.trace != nil {
		s.emit(Event{Kind: EvAction, Action: spec.ActStealMiss, M: m.id, P: pp.id, Victim: p2.id})
	}
	return stepAgain
}

// stealBackoff is installed on each P's queue and runs before a thief takes
// that P's runnext: if the P is running a G (not in a syscall), that G has
// probably just readied runnext and is about to block, so the thief yields
// once to let the owner run it instead of bouncing it between Ps. The
// runtime sleeps 3µs (or yields the thread where timers are coarse); a
// goroutine yield is the user-space equivalent.
func (s *Sched) stealBackoff(pp *P) func() {
	return func() {
		if pp.status.Load() != uint32(spec.PRunning) {
			return
		}
		m := pp.m.Load()
		if m == nil {
			return
		}
		if g := m.curg.Load(); g == nil || g.Status() != Gsyscall {
			runtime.Gosched()
		}
	}
}

// cheaprandStep is splitmix64's increment, the golden ratio in 64 bits:
// each cheaprand call advances the M's state by it, so the number of draws
// between two states is the number of steps between them.
const cheaprandStep = 0x9e3779b97f4a7c15
