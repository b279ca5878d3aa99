package impl

import (
	"sync"
	"sync/atomic"
	"testing"
)

// mutexRunq is the baseline the lock-free queue is measured against: the
// same operations on a slice under a mutex, as a first attempt at a
// per-P queue would write them. It is a benchmark fixture, not checked code.
type mutexRunq struct {
	mu      sync.Mutex
	runnext *G
	ring    []*G
	cap     int
}

func newMutexRunq(c int) *mutexRunq { return &mutexRunq{ring: make([]*G, 0, c), cap: c} }

func (q *mutexRunq) Put(g *G, next bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if next {
		g, q.runnext = q.runnext, g
		if g == nil {
			return
		}
	}
	if len(q.ring) == q.cap {
		panic("mutexRunq: full (the benchmarks never overflow)")
	}
	q.ring = append(q.ring, g)
}

func (q *mutexRunq) Get() (*G, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if g := q.runnext; g != nil {
		q.runnext = nil
		return g, true
	}
	if len(q.ring) == 0 {
		return nil, false
	}
	g := q.ring[0]
	q.ring = append(q.ring[:0], q.ring[1:]...)
	return g, false
}

// Steal moves half of victim's ring into q and returns its last G.
func (q *mutexRunq) Steal(victim *mutexRunq) *G {
	var buf [128]*G
	victim.mu.Lock()
	n := len(victim.ring) - len(victim.ring)/2
	batch := buf[:n]
	copy(batch, victim.ring[:n])
	victim.ring = append(victim.ring[:0], victim.ring[n:]...)
	victim.mu.Unlock()
	if n == 0 {
		return nil
	}
	q.mu.Lock()
	q.ring = append(q.ring, batch[:n-1]...)
	q.mu.Unlock()
	return batch[n-1]
}

// benchQueue is what the benchmarks need of either queue.
type benchQueue[Q any] interface {
	Put(*G, bool)
	Get() (*G, bool)
	Steal(Q) *G
}

type lockFree struct{ *Runq }

func (q lockFree) Steal(v lockFree) *G { return q.Runq.Steal(v.Runq, false) }

type mutexed struct{ *mutexRunq }

func (q mutexed) Steal(v mutexed) *G { return q.mutexRunq.Steal(v.mutexRunq) }

func newLockFree(b *testing.B, c int) lockFree { return lockFree{mustRunq(b, c, NewGlobalRunq())} }
func newMutexed(_ *testing.B, c int) mutexed   { return mutexed{newMutexRunq(c)} }

func benchPutGet[Q benchQueue[Q]](b *testing.B, q Q, next bool) {
	g := NewG(1)
	b.ReportAllocs()
	for b.Loop() {
		q.Put(g, next)
		if got, _ := q.Get(); got != g {
			b.Fatal("lost the G")
		}
	}
}

// BenchmarkRunqPutGet is the owner's put+get pair, through the ring.
func BenchmarkRunqPutGet(b *testing.B) {
	b.Run("impl=lockfree", func(b *testing.B) { benchPutGet(b, newLockFree(b, 256), false) })
	b.Run("impl=mutex", func(b *testing.B) { benchPutGet(b, newMutexed(b, 256), false) })
}

// BenchmarkRunqPutNextGet is the put(next)+get pair, through runnext.
func BenchmarkRunqPutNextGet(b *testing.B) {
	b.Run("impl=lockfree", func(b *testing.B) { benchPutGet(b, newLockFree(b, 256), true) })
	b.Run("impl=mutex", func(b *testing.B) { benchPutGet(b, newMutexed(b, 256), true) })
}

func benchStealFull[Q benchQueue[Q]](b *testing.B, victim, thief Q, c int) {
	gs := make([]*G, c)
	for i := range gs {
		gs[i] = NewG(uint64(i + 1))
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, g := range gs {
			victim.Put(g, false)
		}
		if thief.Steal(victim) == nil {
			b.Fatal("stole nothing")
		}
		for g, _ := thief.Get(); g != nil; g, _ = thief.Get() {
		}
		for g, _ := victim.Get(); g != nil; g, _ = victim.Get() {
		}
	}
}

// BenchmarkRunqStealFull fills a 256-slot ring, steals half of it and
// empties both queues again: one op is that whole cycle.
func BenchmarkRunqStealFull(b *testing.B) {
	b.Run("impl=lockfree", func(b *testing.B) { benchStealFull(b, newLockFree(b, 256), newLockFree(b, 256), 256) })
	b.Run("impl=mutex", func(b *testing.B) { benchStealFull(b, newMutexed(b, 256), newMutexed(b, 256), 256) })
}

// benchContended is one owner and one thief sharing a queue, as a P and a
// spinning M do: the owner puts a burst of 8 Gs and then takes Gs until its
// queue is empty, while the thief steals from it without pause. One op is
// one G put and taken, by either side, so ns/op is the throughput of the
// pair; "stolen/op" says how much the thief got.
func benchContended[Q benchQueue[Q]](b *testing.B, owner, thief Q) {
	const burst = 8
	gs := make([]*G, burst)
	for i := range gs {
		gs[i] = NewG(uint64(i + 1))
	}
	var stop atomic.Bool
	var stolen atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n := int64(0)
		for !stop.Load() {
			if thief.Steal(owner) != nil {
				n++
				for g, _ := thief.Get(); g != nil; g, _ = thief.Get() {
					n++
				}
			}
		}
		stolen.Store(n)
	}()
	b.ReportAllocs()
	for i := 0; i < b.N; i += burst {
		for _, g := range gs[:min(burst, b.N-i)] {
			owner.Put(g, false)
		}
		for g, _ := owner.Get(); g != nil; g, _ = owner.Get() {
		}
	}
	b.StopTimer()
	stop.Store(true)
	wg.Wait()
	b.ReportMetric(float64(stolen.Load())/float64(b.N), "stolen/op")
}

// BenchmarkRunqContended is one owner and one thief on one queue.
func BenchmarkRunqContended(b *testing.B) {
	b.Run("impl=lockfree", func(b *testing.B) { benchContended(b, newLockFree(b, 256), newLockFree(b, 256)) })
	b.Run("impl=mutex", func(b *testing.B) { benchContended(b, newMutexed(b, 256), newMutexed(b, 256)) })
}

// BenchmarkAtomicFloor measures the three locked instructions an owner's
// put+get pair cannot avoid with sync/atomic (a slot store, a tail store, a
// CAS of head): on amd64 every sync/atomic store is an XCHG. Their sum is the
// floor for BenchmarkRunqPutGet; the runtime goes below it with release
// stores (plain MOVs on amd64), which sync/atomic does not offer.
func BenchmarkAtomicFloor(b *testing.B) {
	var slot atomic.Pointer[G]
	var word atomic.Uint32
	g := NewG(1)
	b.Run("op=storeSlot", func(b *testing.B) {
		for b.Loop() {
			slot.Store(g)
		}
	})
	b.Run("op=storeTail", func(b *testing.B) {
		i := uint32(0)
		for b.Loop() {
			i++
			word.Store(i)
		}
	})
	b.Run("op=casHead", func(b *testing.B) {
		i := word.Load()
		for b.Loop() {
			word.CompareAndSwap(i, i+1)
			i++
		}
	})
}
