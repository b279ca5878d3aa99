package impl

import "fmt"

// GOMAXPROCS at run time: SetProcs stops the world, procresize builds the
// new set of Ps, and the world starts again on it.

// SetProcs changes GOMAXPROCS to n, as runtime.GOMAXPROCS(n) does, and
// returns the previous setting. Under stop-the-world, the Ps beyond n are
// destroyed (their run queues, runnext first, go to the head of the global
// queue in order, their free Gs to the global free list, their timers to
// p0) and the Ps missing below n are created; then the world restarts on
// the new Ps. No G is lost: procresize checks that the runnable Gs queued
// before and after are as many. Like StopTheWorld it must be called from
// outside the scheduler; n must be in 1..65536 and at most Config.MaxMs.
func (s *Sched) SetProcs(n int) (int, error) {
	if !validProcs(n) {
		return 0, fmt.Errorf("impl: SetProcs(%d): want 1..%d", n, maxProcs)
	}
	if n > s.cfg.MaxMs {
		return 0, fmt.Errorf("impl: SetProcs(%d) > MaxMs %d", n, s.cfg.MaxMs)
	}
	if err := s.stopTheWorld(0); err != nil {
		return 0, err
	}
	old := s.Procs()
	s.startTheWorld(int32(n))
	return old, nil
}

// procresize replaces the set of Ps with n of them: the first min(n, old)
// are kept, the rest destroyed or created. Every P of the new set is left
// stopped (_Pgcstop) for startTheWorld to restart. sched.lock held, the
// world stopped.
func (s *Sched) procresize(n int32) {
	old := s.ps()
	before := s.queuedLocked(old)
	allp := make([]*P, n)
	copy(allp, old.allp[:min(n, old.n)])
	for i := old.n; i < n; i++ {
		allp[i] = s.newP(i)
	}
	// The runtime moves a destroyed P's timers to the P of the G that
	// resized; here the caller has none, so p0 takes them.
	for i := n; i < old.n; i++ {
		s.destroyP(old.allp[i], allp[0])
	}
	ps := newProcSet(allp)
	s.procs.Store(ps)
	after := s.queuedLocked(ps)
	if after != before && !s.implBugOn(ImplBugProcresizeDropsRunq) {
		panic(fmt.Sprintf("procresize: %d runnable Gs queued before, %d after: Gs lost", before, after))
	}
	s.emit(Event{Kind: EvProcResize, P: -1, Victim: old.n, N: n})
}

// newP builds P number id, stopped (startTheWorld restarts it).
func (s *Sched) newP(id int32) *P {
	q, err := NewRunq(s.cfg.QueueCapacity, s.glob)
	if err != nil {
		panic("procresize: " + err.Error()) // the capacity was checked by New
	}
	pp := &P{id: id, runq: q}
	if !s.det {
		q.SetStealBackoff(s.stealBackoff(pp))
	}
	pp.status.Store(pGCStop)
	return pp
}

// destroyP is p.destroy: pp's runnable Gs go to the head of the global
// queue (runnext first, then the ring in order, so that they run before
// the Gs that were already waiting there), its free Gs to the global free
// list (gfpurge) and its timers to heir. pp is dead afterwards. sched.lock
// held, the world stopped (nobody else touches pp's queue).
func (s *Sched) destroyP(pp, heir *P) {
	q := pp.runq.Drain()
	if !s.implBugOn(ImplBugProcresizeDropsRunq) {
		gs := q.Slice()
		for i := len(gs) - 1; i >= 0; i-- {
			s.glob.putHead(gs[i])
		}
	}
	if !pp.gFree.Empty() {
		s.gfree.Lock()
		s.gfree.q.PushBackAll(&pp.gFree)
		s.gfree.Unlock()
	}
	heir.timers.take(&pp.timers)
	pp.status.Store(pDead)
}

// queuedLocked counts the runnable Gs in the global queue and in the run
// queues of ps's Ps. sched.lock held, the world stopped.
func (s *Sched) queuedLocked(ps *procSet) int {
	n := s.glob.runq.Len()
	for _, pp := range ps.allp {
		n += pp.runq.Len()
	}
	return n
}

// liveAllp is allp as the Go 1.10 development tree's no-P recheck read it:
// during a go1.10dev procresize that grows it (Driver.ProcResizeGrow),
// one slot longer than gomaxprocs, the new slot nil until the restart makes
// its P; else the current Ps.
func (s *Sched) liveAllp() []*P {
	if g := s.world.grown.Load(); g != nil {
		return *g
	}
	return s.ps().allp
}
