package interleave

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Backend is a run-queue implementation the explorer drives: impl's queues
// by default (RunOptions.Backend nil), or another one with yield points of
// its own, such as a Go release's run-queue code extracted by internal/rtq.
// Its queues are numbered 0..n-1 as the scenario's; every atomic access
// must first call the yield function installed by SetYield, naming the
// access as impl does (impl.Op) and the queue (GlobalObj for the global
// queue's lock). The yield function may block, and may panic to abandon an
// execution: the backend must let that panic through.
type Backend interface {
	// Reset discards every queue and makes n empty local queues of
	// capacity c and an empty global queue, with no yield function.
	Reset(n, c int) error
	Put(q int, g spec.GID, next bool)
	Get(q int) (g spec.GID, inheritTime bool)
	Drain(q int) []spec.GID
	Steal(thief, victim int, stealRunNext bool) spec.GID
	Empty(q int) bool
	// Contents and GlobalContents read a queue without yield points.
	Contents(q int) (runnext spec.GID, ring []spec.GID)
	GlobalPut(g spec.GID)
	GlobalContents() []spec.GID
	SetYield(f func(op impl.Op, obj int)) error
}

// implBackend is impl's Runq and GlobalRunq.
type implBackend struct {
	glob   *impl.GlobalRunq
	queues []*impl.Runq
	gs     map[spec.GID]*impl.G
}

func (b *implBackend) Reset(n, c int) error {
	b.glob = impl.NewGlobalRunq()
	b.queues = nil
	b.gs = map[spec.GID]*impl.G{}
	for range n {
		q, err := impl.NewRunq(c, b.glob)
		if err != nil {
			return err
		}
		b.queues = append(b.queues, q)
	}
	return nil
}

func (b *implBackend) g(id spec.GID) *impl.G {
	g := b.gs[id]
	if g == nil {
		g = impl.NewG(uint64(id))
		b.gs[id] = g
	}
	return g
}

func (b *implBackend) Put(q int, g spec.GID, next bool) { b.queues[q].Put(b.g(g), next) }

func (b *implBackend) Get(q int) (spec.GID, bool) {
	g, inherit := b.queues[q].Get()
	return gid(g), inherit
}

func (b *implBackend) Drain(q int) []spec.GID {
	gq := b.queues[q].Drain()
	var out []spec.GID
	for _, g := range gq.Slice() {
		out = append(out, gid(g))
	}
	return out
}

func (b *implBackend) Steal(thief, victim int, stealRunNext bool) spec.GID {
	return gid(b.queues[thief].Steal(b.queues[victim], stealRunNext))
}

func (b *implBackend) Empty(q int) bool { return b.queues[q].Empty() }

func (b *implBackend) Contents(q int) (spec.GID, []spec.GID) {
	next, ring := b.queues[q].Contents()
	var out []spec.GID
	for _, g := range ring {
		out = append(out, gid(g))
	}
	return gid(next), out
}

func (b *implBackend) GlobalPut(g spec.GID) { b.glob.Put(b.g(g)) }

func (b *implBackend) GlobalContents() []spec.GID {
	var out []spec.GID
	for _, g := range b.glob.Contents() {
		out = append(out, gid(g))
	}
	return out
}

func (b *implBackend) SetYield(f func(op impl.Op, obj int)) error {
	var y impl.YieldFunc
	if f != nil {
		y = func(op impl.Op, obj any) { f(op, b.objIndex(obj)) }
	}
	for _, q := range b.queues {
		if err := q.SetYield(y); err != nil {
			return fmt.Errorf("interleave: %w", err)
		}
	}
	if err := b.glob.SetYield(y); err != nil {
		return fmt.Errorf("interleave: %w", err)
	}
	return nil
}

func (b *implBackend) objIndex(obj any) int {
	switch o := obj.(type) {
	case *impl.GlobalRunq:
		return GlobalObj
	case *impl.Runq:
		for i, q := range b.queues {
			if q == o {
				return i
			}
		}
	}
	panic(fmt.Sprintf("interleave: yield on an object outside the scenario: %T", obj))
}
