package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
)

// implQueues is Queues over impl's Runq and GlobalRunq (the 1.25+ shape),
// so the harness's checks can be tested without generating a release.
type implQueues struct {
	c    int
	glob *impl.GlobalRunq
	ps   []*impl.Runq
	gs   map[uint64]*impl.G // made by one goroutine at a time (the owner)
}

func (q *implQueues) Cap() int { return q.c }
func (q *implQueues) Reset(n int) {
	q.glob, q.ps, q.gs = impl.NewGlobalRunq(), nil, map[uint64]*impl.G{}
	for range n {
		r, err := impl.NewRunq(q.c, q.glob)
		if err != nil {
			panic(err)
		}
		q.ps = append(q.ps, r)
	}
}
func (q *implQueues) g(id uint64) *impl.G {
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

// wrongInherit reports runnext Gs as starting a fresh time slice.
type wrongInherit struct{ *implQueues }

func (w wrongInherit) Get(p int) (uint64, bool) {
	g, inherit := w.implQueues.Get(p)
	return g, inherit && false
}

// dropsPut loses every 1000th G put.
type dropsPut struct{ *implQueues }

func (d dropsPut) Put(p int, g uint64, next bool) {
	if g%1000 != 0 {
		d.implQueues.Put(p, g, next)
	}
}

// alwaysEmpty says every queue is empty.
type alwaysEmpty struct{ *implQueues }

func (alwaysEmpty) Empty(int) bool { return true }

func TestChecksPassOnImpl(t *testing.T) {
	ctx := context.Background()
	for _, c := range []int{4, 8, 256} {
		q := &implQueues{c: c}
		if _, err := RunDiff(ctx, q, 20, 100, 1); err != nil {
			t.Errorf("diff at %d: %v", c, err)
		}
		if _, err := RunRapid(q, 20, 100, 1); err != nil {
			t.Errorf("rapid at %d: %v", c, err)
		}
	}
	q := &implQueues{c: 4}
	if _, err := Stress(ctx, q, 2, 20000, 1); err != nil {
		t.Errorf("stress: %v", err)
	}
	if _, err := Lin(ctx, q, 20, 2, 12, 1, 10*time.Second); err != nil {
		t.Errorf("porcupine: %v", err)
	}
}

func TestChecksBite(t *testing.T) {
	ctx := context.Background()
	if _, err := RunDiff(ctx, wrongInherit{&implQueues{c: 4}}, 20, 100, 1); err == nil || !strings.Contains(err.Error(), "runqget") {
		t.Errorf("diff on a runqget with a wrong inheritTime: %v, want a runqget failure", err)
	}
	if _, err := RunRapid(wrongInherit{&implQueues{c: 4}}, 50, 100, 1); err == nil || !strings.Contains(err.Error(), "runqget") {
		t.Errorf("rapid on a runqget with a wrong inheritTime: %v, want a runqget failure", err)
	}
	if _, err := Stress(ctx, dropsPut{&implQueues{c: 4}}, 1, 20000, 1); err == nil || !strings.Contains(err.Error(), "taken 0 times") {
		t.Errorf("stress on a queue that loses Gs: %v, want a lost G", err)
	}
	if _, err := Lin(ctx, alwaysEmpty{&implQueues{c: 4}}, 50, 2, 12, 1, 10*time.Second); err == nil || !strings.Contains(err.Error(), "not linearizable") {
		t.Errorf("porcupine on a runqempty that is always true: %v, want not linearizable", err)
	}
}

// The explorer needs impl's yield points (-tags gmpcheck_hooks).
func TestExploreOnImpl(t *testing.T) {
	if !impl.HooksEnabled() {
		t.Skip("impl's yield points are compiled out; run with -tags gmpcheck_hooks")
	}
	count, err := Explore(context.Background(), &implQueues{c: 4}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	// impl's queue, like go1.18+'s, has 1,290 classes in the built-in
	// scenarios; stale-grab adds its own.
	if !strings.Contains(count, "9 scenarios") {
		t.Errorf("explored %s, want 9 scenarios", count)
	}
	t.Log(count)
}
