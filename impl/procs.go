package impl

// maxProcs bounds GOMAXPROCS here: New's Procs, SetProcs' n and the GM
// baseline's procs are each in 1..maxProcs. The bound is this package's,
// not the runtime's: it turns an absurd count into an error rather than
// an allocation of millions of Ps.
const maxProcs = 1 << 16

// validProcs reports whether n Ps is a GOMAXPROCS this package accepts.
func validProcs(n int) bool { return n >= 1 && n <= maxProcs }

// procSet is allp together with everything sized by it: gomaxprocs, the idle
// mask (idlepMask) and the steal order. procresize (SetProcs) replaces the
// whole set at once, under stop-the-world and sched.lock, so that a reader
// that holds no lock (a thief scanning victims, sysmon's retake, an M's
// no-P recheck) sees a consistent set: it loads the pointer once per step,
// as the runtime's Ms take an allp snapshot before dropping their P. A
// snapshot may outlive its set; the Ps it names that procresize destroyed
// are dead and empty, so a late look at them finds nothing.
type procSet struct {
	allp  []*P
	n     int32 // gomaxprocs: len(allp)
	idlep pMask // idlepMask: written under sched.lock, read by thieves
	order randomOrder
}

// newProcSet makes the set for allp (whose Ps are already built).
func newProcSet(allp []*P) *procSet {
	return &procSet{
		allp:  allp,
		n:     int32(len(allp)),
		idlep: newPMask(len(allp)),
		order: newRandomOrder(uint32(len(allp))),
	}
}

// ps is the current set of Ps.
func (s *Sched) ps() *procSet { return s.procs.Load() }
