package harness

import "github.com/gmpcheck/gmpcheck/impl"

// Impl is Queues over impl's own Runq and GlobalRunq (the 1.25+ shape) at
// the given ring capacity: the checks run on the real queue code through
// it, and the harness's own tests use it to check the checks. A capacity
// NewRunq rejects panics at Reset.
func Impl(capacity int) Queues { return &implQueues{c: capacity} }

// implQueues is Queues over impl's Runq and GlobalRunq (the 1.25+ shape),
// so the harness's checks can be tested without generating a release.
type implQueues struct {
	c    int
	glob *impl.GlobalRunq
	ps   []*impl.Runq
	gs   []*impl.G // by id (ids are dense from 1); made by one goroutine at a time (the owner)
}

func (q *implQueues) Cap() int { return q.c }
func (q *implQueues) Reset(n int) {
	q.glob, q.ps, q.gs = impl.NewGlobalRunq(), nil, nil
	for range n {
		r, err := impl.NewRunq(q.c, q.glob)
		if err != nil {
			panic(err)
		}
		q.ps = append(q.ps, r)
	}
}
func (q *implQueues) g(id uint64) *impl.G {
	for uint64(len(q.gs)) <= id {
		q.gs = append(q.gs, nil)
	}
	if q.gs[id] == nil {
		q.gs[id] = impl.NewG(id)
	}
	return q.gs[id]
}
func (q *implQueues) Put(p int, g uint64, next bool) { q.ps[p].Put(q.g(g), next) }
func (q *implQueues) Get(p int) (uint64, bool) {
	g, inherit := q.ps[p].Get()
	return implID(g), inherit
}
func (q *implQueues) Steal(t, v int, srn bool) uint64 { return implID(q.ps[t].Steal(q.ps[v], srn)) }
func (q *implQueues) Empty(p int) bool                { return q.ps[p].Empty() }
func (q *implQueues) Contents(p int) (uint64, []uint64) {
	next, ring := q.ps[p].Contents()
	return implID(next), implIDs(ring)
}
func (q *implQueues) HasPutBatch() bool { return true }
func (q *implQueues) PutBatch(p int, gs []uint64) ([]uint64, bool) {
	var gq impl.GQueue
	for _, g := range gs {
		gq.PushBack(q.g(g))
	}
	q.ps[p].PutBatch(&gq)
	return implIDs(gq.Slice()), false
}
func (q *implQueues) HasDrain() bool       { return true }
func (q *implQueues) Drain(p int) []uint64 { gq := q.ps[p].Drain(); return implIDs(gq.Slice()) }
func (q *implQueues) GlobPut(g uint64)     { q.glob.Put(q.g(g)) }
func (q *implQueues) HasGlobPutHead() bool { return true }
func (q *implQueues) GlobPutHead(g uint64) { q.glob.PutHead(q.g(g)) }
func (q *implQueues) GlobPutBatch(gs []uint64) {
	var gq impl.GQueue
	for _, g := range gs {
		gq.PushBack(q.g(g))
	}
	q.glob.PutBatch(&gq)
}
func (q *implQueues) GlobGetLocal() bool { return false }
func (q *implQueues) GlobGet() uint64    { return implID(q.glob.Get()) }
func (q *implQueues) GlobGetBatch(n, procs int) (uint64, []uint64) {
	g, gq := q.glob.GetBatch(int32(n), int32(procs))
	return implID(g), implIDs(gq.Slice())
}
func (q *implQueues) GlobGetInto(int, int, int) uint64 { panic("not this shape") }
func (q *implQueues) GlobContents() ([]uint64, int) {
	gs := implIDs(q.glob.Contents())
	return gs, len(gs)
}
func (q *implQueues) SetYield(f func(op impl.Op, obj int)) {
	if !impl.HooksEnabled() {
		return
	}
	var y impl.YieldFunc
	if f != nil {
		y = func(op impl.Op, o any) {
			obj := -1
			for i, r := range q.ps {
				if r == o {
					obj = i
				}
			}
			f(op, obj)
		}
	}
	for _, r := range q.ps {
		_ = r.SetYield(y)
	}
	_ = q.glob.SetYield(y)
}
func (q *implQueues) SetBackoff(func()) {}
