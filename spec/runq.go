package spec

// The explorer steps millions of states, so the scheduler works on the
// fixed-array queues of State rather than on LocalQueue/GlobalQueue, whose
// value semantics allocate on every operation. The functions here are the same
// operations, one for one (runq_test.go checks them against the reference
// values with rapid):
//
//	runqput      ↔ LocalQueue.Put (spill appended to sched.runq = GlobalQueue.PutBatch)
//	runqget      ↔ LocalQueue.Get
//	runqputbatch ↔ LocalQueue.PutBatch
//	runqsteal    ↔ LocalQueue.Steal(true)
//	globrunqput  ↔ GlobalQueue.Put
//	globrunqget  ↔ GlobalQueue.Get
//	globrunqgetbatch ↔ GlobalQueue.GetBatch

func (ps *PState) empty() bool { return ps.N == 0 && ps.RunNext == NoG }

// runqput puts g on P p (runnext if next); a full ring spills its first half
// and the G being put onto the tail of the global queue.
func (s *State) runqput(p int, g GID, next bool, capacity int) {
	ps := &s.P[p]
	if next {
		old := ps.RunNext
		ps.RunNext = g
		if old == NoG {
			return
		}
		g = old
	}
	if int(ps.N) < capacity {
		ps.Ring[ps.N] = g
		ps.N++
		return
	}
	half := capacity / 2
	for i := 0; i < half; i++ {
		s.globrunqput(ps.Ring[i])
	}
	s.globrunqput(g)
	copy(ps.Ring[:], ps.Ring[half:ps.N])
	for i := int(ps.N) - half; i < int(ps.N); i++ {
		ps.Ring[i] = NoG
	}
	ps.N -= uint8(half)
}

// runqget takes runnext (inheriting the time slice) or else the ring's head.
func (ps *PState) runqget() (g GID, inheritTime bool) {
	if ps.RunNext != NoG {
		g = ps.RunNext
		ps.RunNext = NoG
		return g, true
	}
	if ps.N == 0 {
		return NoG, false
	}
	g = ps.Ring[0]
	ps.popFront(1)
	return g, false
}

func (ps *PState) popFront(k int) {
	copy(ps.Ring[:], ps.Ring[k:ps.N])
	for i := int(ps.N) - k; i < int(ps.N); i++ {
		ps.Ring[i] = NoG
	}
	ps.N -= uint8(k)
}

// runqputbatch puts gs on the ring's tail; it reports false if they do not
// all fit (the callers only use it on an empty ring with at most Cap/2 Gs).
func (ps *PState) runqputbatch(gs []GID, capacity int) bool {
	if int(ps.N)+len(gs) > capacity {
		return false
	}
	for _, g := range gs {
		ps.Ring[ps.N] = g
		ps.N++
	}
	return true
}

// runqsteal is the sequential steal with stealRunNext set: the ring's first
// ceil(n/2) Gs, or runnext alone when the ring is empty. It writes the batch
// into buf and returns its length.
func (ps *PState) runqsteal(buf *[MaxCap]GID) int {
	if ps.N > 0 {
		k := int(ps.N) - int(ps.N)/2
		copy(buf[:k], ps.Ring[:k])
		ps.popFront(k)
		return k
	}
	if ps.RunNext != NoG {
		buf[0] = ps.RunNext
		ps.RunNext = NoG
		return 1
	}
	return 0
}

// stealable reports whether runqsteal would take anything.
func (ps *PState) stealable() bool { return ps.N > 0 || ps.RunNext != NoG }

func (s *State) globrunqput(g GID) {
	s.Runq.Gs[s.Runq.N] = g
	s.Runq.N++
}

// globrunqputhead puts g at the head of sched.runq (procresize's move of
// a destroyed P's queue).
func (s *State) globrunqputhead(g GID) {
	copy(s.Runq.Gs[1:s.Runq.N+1], s.Runq.Gs[:s.Runq.N])
	s.Runq.Gs[0] = g
	s.Runq.N++
}

func (q *GlobalRunq) popFront(k int) {
	copy(q.Gs[:], q.Gs[k:q.N])
	for i := int(q.N) - k; i < int(q.N); i++ {
		q.Gs[i] = NoG
	}
	q.N -= uint8(k)
}

func (s *State) globrunqget() GID {
	if s.Runq.N == 0 {
		return NoG
	}
	g := s.Runq.Gs[0]
	s.Runq.popFront(1)
	return g
}

// globrunqgetbatch takes min(n, size, size/gomaxprocs+1) Gs (at least one):
// the first to run, the rest copied into buf.
func (s *State) globrunqgetbatch(n, gomaxprocs int, buf *[MaxCap]GID) (g GID, rest int) {
	size := int(s.Runq.N)
	if size == 0 {
		return NoG, 0
	}
	k := max(GetBatchSize(n, size, gomaxprocs), 1)
	g = s.Runq.Gs[0]
	copy(buf[:k-1], s.Runq.Gs[1:k])
	s.Runq.popFront(k)
	return g, k - 1
}
