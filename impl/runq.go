package impl

import (
	"fmt"
	"sync/atomic"

	"github.com/gmpcheck/gmpcheck/spec"
)

// DefaultQueueCapacity is the runtime's local ring size.
const DefaultQueueCapacity = 256

// Runq is a P's local run queue: a single-producer, multi-consumer ring of
// capacity C plus the runnext slot.
//
// Only the owning P puts (Put, PutBatch) and only it moves tail; the owner
// and any number of thieves (Steal) consume by CAS on head. head and tail are
// free-running uint32 counters, so tail-head is the length even across
// wrap-around, and a slot is index&mask.
//
// runnext holds a G that should run next, ahead of the ring: the G just
// readied by the running G, so that a producer/consumer pair hands work back
// and forth like coroutines. Only the owner sets runnext to a G; anyone may
// CAS it to nil (owner get, thief steal), which is why a failed CAS by the
// owner never needs a retry: it can only mean the G was stolen.
//
// The methods are named for who may call them: Put, PutBatch, Get and Drain
// only from the owner (one goroutine at a time); Steal by a thief on its own
// queue, naming the victim; Empty and Len by anyone.
type Runq struct {
	head    atomic.Uint32
	tail    atomic.Uint32
	runnext atomic.Pointer[G]
	// ring always has the runtime's 256 slots, of which the first mask+1
	// are used: a fixed-size array indexed by a uint8 needs no bounds
	// check on the hot path, and a smaller capacity is only a smaller mask.
	ring *[spec.MaxQueueCap]atomic.Pointer[G]
	mask uint32

	// glob receives runqputslow's spill. It is shared by all Ps.
	glob *GlobalRunq

	// stealBackoff, if set, runs before a thief takes runnext from this
	// queue. The scheduler installs one that sleeps briefly when the owner
	// is running a G (not in a syscall), because that G has likely just
	// readied runnext and is about to block: stealing in that window only
	// bounces the G between Ps.
	stealBackoff func()

	hook yieldHook
}

// NewRunq returns an empty local run queue of the given capacity that spills
// to glob. The capacity must be a power of two in [2, 256].
func NewRunq(capacity int, glob *GlobalRunq) (*Runq, error) {
	if err := spec.ValidQueueCap(capacity); err != nil {
		return nil, fmt.Errorf("impl: %w", err)
	}
	if glob == nil {
		return nil, fmt.Errorf("impl: NewRunq: nil global queue (a full ring spills half its Gs there)")
	}
	return &Runq{
		ring: new([spec.MaxQueueCap]atomic.Pointer[G]),
		mask: uint32(capacity - 1),
		glob: glob,
	}, nil
}

// SetStealBackoff installs the hook run before a thief steals runnext (see
// Runq.stealBackoff). Install it before the queue is shared.
func (q *Runq) SetStealBackoff(f func()) { q.stealBackoff = f }

// Cap is the ring's capacity (runnext not included).
func (q *Runq) Cap() int { return int(q.mask) + 1 }

func (q *Runq) size() uint32 { return q.mask + 1 }

// Global is the global queue this ring spills to.
func (q *Runq) Global() *GlobalRunq { return q.glob }

// Each atomic access goes through one of these accessors so that the
// instrumented build can put a yield point before it. Accesses that cannot
// race with any other goroutine's write carry no yield point: the owner's
// loads of its own tail and of slots only it writes commute with everything
// other goroutines do, so scheduling around them adds interleavings without
// adding behaviours.

func (q *Runq) loadHead() uint32 { q.hook.at(OpLoadHead, q); return q.head.Load() }
func (q *Runq) loadTail() uint32 { q.hook.at(OpLoadTail, q); return q.tail.Load() }
func (q *Runq) ownTail() uint32  { return q.tail.Load() }
func (q *Runq) storeTail(t uint32) {
	q.hook.at(OpStoreTail, q)
	q.tail.Store(t)
}
func (q *Runq) casHead(old, new uint32) bool {
	q.hook.at(OpCasHead, q)
	return q.head.CompareAndSwap(old, new)
}
func (q *Runq) storeHead(h uint32) { q.hook.at(OpStoreHead, q); q.head.Store(h) }
func (q *Runq) loadSlot(i uint32) *G {
	q.hook.at(OpLoadSlot, q)
	return q.ring[uint8(i&q.mask)].Load()
}
func (q *Runq) ownSlot(i uint32) *G { return q.ring[uint8(i&q.mask)].Load() }
func (q *Runq) storeSlot(i uint32, g *G) {
	q.hook.at(OpStoreSlot, q)
	q.ring[uint8(i&q.mask)].Store(g)
}
func (q *Runq) loadRunnext() *G { q.hook.at(OpLoadRunnext, q); return q.runnext.Load() }
func (q *Runq) casRunnext(old, new *G) bool {
	q.hook.at(OpCasRunnext, q)
	return q.runnext.CompareAndSwap(old, new)
}

// Put is runqput: it puts g on the tail of the ring or, with next, in
// runnext, kicking the previous runnext G (if any) to the tail. When the ring
// is full, putSlow moves half of it and g to the global queue. Owner only.
func (q *Runq) Put(g *G, next bool) {
	mustG(g, "runqput")
	if next {
		var old *G
		for {
			old = q.loadRunnext()
			if q.casRunnext(old, g) {
				break
			}
		}
		if old == nil {
			return
		}
		g = old
	}
	for {
		h := q.loadHead()
		t := q.ownTail()
		if t-h < q.size() {
			if hooksEnabled && seeded(BugPublishBeforeWrite) {
				q.storeTail(t + 1)
				q.storeSlot(t, g)
				return
			}
			// Write the slot, then publish it: a thief that sees the new
			// tail must find g in the slot.
			q.storeSlot(t, g)
			q.storeTail(t + 1)
			return
		}
		if q.putSlow(g, h, t) {
			return
		}
		// A thief took some Gs between our read of head and the CAS: the
		// ring is no longer full, so the fast path will succeed.
	}
}

// putSlow is runqputslow: the ring is full (t-h == C), so move its first
// C/2 Gs plus g to the global queue as one batch. The CAS on head commits
// the move; if it fails a thief got there first and Put retries. Taking half
// at once amortises the global lock over C/2 puts and leaves the other half
// local for this P.
func (q *Runq) putSlow(g *G, h, t uint32) bool {
	var buf [spec.MaxQueueCap/2 + 1]*G
	n := (t - h) / 2
	if n != q.size()/2 {
		panic("runqputslow: queue is not full")
	}
	for i := range n {
		buf[i] = q.loadSlot(h + i)
	}
	if !q.casHead(h, h+n) {
		return false
	}
	// The CAS made the Gs ours: only now may their schedlinks be written.
	batch := buf[:n]
	if !(hooksEnabled && seeded(BugPutSlowDropsG)) {
		batch = buf[:n+1]
		batch[n] = g
	}
	gq := GQueueOf(batch...)
	q.glob.PutBatch(&gq)
	return true
}

// PutBatch is runqputbatch: it moves Gs from the head of gq to the tail of
// the ring while there is room, publishing them with one store of tail.
// Whatever does not fit stays in gq for the caller to place. Owner only.
func (q *Runq) PutBatch(gq *GQueue) {
	if gq.Empty() {
		return
	}
	h := q.loadHead()
	t := q.ownTail()
	for !gq.Empty() && t-h < q.size() {
		q.storeSlot(t, gq.Pop())
		t++
	}
	q.storeTail(t)
}

// Get is runqget: runnext first, inheriting the current time slice (so a
// pair handing work back and forth shares one slice and cannot starve the
// rest of the queue), then the ring's head, starting a fresh slice. It
// returns nil when the queue is empty. Owner only.
func (q *Runq) Get() (g *G, inheritTime bool) {
	if next := q.loadRunnext(); next != nil && q.casRunnext(next, nil) {
		return next, true
	}
	for {
		h := q.loadHead()
		t := q.ownTail()
		if t == h {
			return nil, false
		}
		g := q.loadSlot(h)
		if hooksEnabled && seeded(BugGetNoCAS) {
			q.storeHead(h + 1)
			return g, false
		}
		if q.casHead(h, h+1) {
			return g, false
		}
	}
}

// Drain is runqdrain: the owner takes every G, runnext first. It advances
// head before reading the slots: once the CAS succeeds no thief can reach
// those Gs, so the slots can be read and the Gs linked without racing a
// concurrent steal of the same Gs. Owner only.
func (q *Runq) Drain() GQueue {
	var out GQueue
	if next := q.loadRunnext(); next != nil && q.casRunnext(next, nil) {
		out.PushBack(next)
	}
	for {
		h := q.loadHead()
		t := q.ownTail()
		n := t - h
		if n == 0 {
			return out
		}
		if n > q.size() {
			continue // head moved under us: an inconsistent read
		}
		if !q.casHead(h, h+n) {
			continue
		}
		for i := range n {
			out.PushBack(q.ownSlot(h + i))
		}
		return out
	}
}

// grab is runqgrab: it takes half of victim's ring (rounded up) into q's
// ring starting at slot dst, without publishing them, and returns how many.
// With an empty ring and stealRunNext it takes victim's runnext instead.
//
// head and tail are read at different moments, so t-h can exceed the ring's
// size when the owner and other consumers move them in between; such a read
// is discarded. The slots are copied before the CAS on head and the CAS
// decides whether the copy counts.
func (q *Runq) grab(victim *Runq, dst uint32, stealRunNext bool) uint32 {
	for {
		if n, empty := q.grabRing(victim, dst); !empty {
			return n
		}
		if !stealRunNext {
			return 0
		}
		if n, done := q.grabNext(victim, dst); done {
			return n
		}
	}
}

// grabRing is runqgrab up to an empty ring: the loads of head and tail,
// retried after an inconsistent read or a lost CAS of head; it returns the
// number of Gs taken from a non-empty ring, or empty.
func (q *Runq) grabRing(victim *Runq, dst uint32) (n uint32, empty bool) {
	for {
		h := victim.loadHead()
		t := victim.loadTail()
		n := t - h
		if hooksEnabled && seeded(BugStealHalfDown) {
			n = n / 2
		} else {
			n = n - n/2
		}
		if n == 0 {
			return 0, true
		}
		if n > victim.size()/2 {
			continue // inconsistent read of head and tail
		}
		for i := range n {
			q.storeSlot(dst+i, victim.loadSlot(h+i))
		}
		if hooksEnabled && seeded(BugStealNoCAS) {
			victim.storeHead(h + n)
			return n, false
		}
		if victim.casHead(h, h+n) {
			return n, false
		}
	}
}

// grabNext is runqgrab after it read an empty ring: the load of runnext,
// the backoff, and its CAS. It returns 1 if it took the G, 0 if runnext
// was empty; done is false when the CAS lost (runnext changed since the
// load), and runqgrab starts over from the ring.
func (q *Runq) grabNext(victim *Runq, dst uint32) (n uint32, done bool) {
	next := victim.loadRunnext()
	if next == nil {
		return 0, true
	}
	if victim.stealBackoff != nil {
		victim.stealBackoff()
	}
	if !victim.casRunnext(next, nil) {
		return 0, false
	}
	q.storeSlot(dst, next)
	return 1, true
}

// Steal is runqsteal: q's owner steals half of victim's ring into q and
// returns one of the stolen Gs to run now (the last one grabbed); the others
// are published on q's ring. It returns nil if there was nothing to take.
// The caller's own ring must have room for C/2 more Gs, as it always does
// when the scheduler steals only on finding its own queue empty; otherwise
// Steal panics with the runtime's "runqsteal: runq overflow".
func (q *Runq) Steal(victim *Runq, stealRunNext bool) *G {
	q.checkSteal(victim)
	t := q.ownTail()
	n := q.grab(victim, t, stealRunNext)
	if n == 0 {
		return nil
	}
	return q.publishStolen(t, n)
}

func (q *Runq) checkSteal(victim *Runq) {
	if victim.size() != q.size() {
		panic(fmt.Sprintf("runqsteal: victim capacity %d differs from thief capacity %d", victim.size(), q.size()))
	}
	if victim == q {
		panic("runqsteal: a P cannot steal from itself")
	}
}

// publishStolen is runqsteal after runqgrab copied n > 0 Gs to q's ring at
// t: the last one is returned to run now, the others published.
func (q *Runq) publishStolen(t, n uint32) *G {
	n--
	g := q.ownSlot(t + n)
	if n == 0 {
		return g
	}
	h := q.loadHead()
	if t-h+n >= q.size() {
		panic("runqsteal: runq overflow")
	}
	q.storeTail(t + n)
	return g
}

// StealRing is the stepped first half of Steal with stealRunNext (for a
// scheduler that takes runqgrab's two reads as separate steps): half of
// victim's ring, as Steal takes it, or empty if the loads of head and tail
// found none. StealNext is then the second half.
func (q *Runq) StealRing(victim *Runq) (g *G, empty bool) {
	q.checkSteal(victim)
	t := q.ownTail()
	n, empty := q.grabRing(victim, t)
	if empty {
		return nil, true
	}
	return q.publishStolen(t, n), false
}

// StealNext is runqgrab's runnext half after StealRing found the ring
// empty: victim's runnext, or nil if it was empty. retry reports a lost
// CAS (runnext changed after its load): runqgrab starts over from the
// ring, as Steal(victim, true) does.
func (q *Runq) StealNext(victim *Runq) (g *G, retry bool) {
	q.checkSteal(victim)
	t := q.ownTail()
	n, done := q.grabNext(victim, t)
	if !done {
		return nil, true
	}
	if n == 0 {
		return nil, false
	}
	return q.publishStolen(t, n), false
}

// Empty is runqempty: it reports whether the queue has no G in the ring or
// runnext, and is never wrong when it says true. A single read of head,
// tail and runnext is not enough: between reading tail and reading runnext,
// the owner can move the runnext G to the ring (Put with next) and then
// empty runnext (Get), so the reader would see an empty ring and an empty
// runnext although a G was present throughout. Re-reading tail proves the
// ring did not change while runnext was read.
func (q *Runq) Empty() bool {
	for {
		h := q.loadHead()
		t := q.loadTail()
		next := q.loadRunnext()
		if hooksEnabled && seeded(BugEmptyNoRecheck) {
			return h == t && next == nil
		}
		if t == q.loadTail() {
			return h == t && next == nil
		}
	}
}

// ringEmpty reports whether the ring is empty, runnext aside: runqempty
// as the Go 1.5 development tree had it before runnext counted
// (spec.Go15dev, golang/go#10573). Only go1.5dev's handoffp calls it.
func (q *Runq) ringEmpty() bool { return q.loadHead() == q.loadTail() }

// Len is the number of Gs in the ring plus runnext, read without
// synchronising with the owner or thieves: a snapshot for tracing
// (schedtrace's per-P counts), not a basis for decisions.
func (q *Runq) Len() int {
	n := int(q.tail.Load() - q.head.Load())
	if n > q.Cap() {
		n = 0 // raced with a consumer; any value in range would do
	}
	if q.runnext.Load() != nil {
		n++
	}
	return n
}

// Contents returns runnext and the ring head first. It is for tests and
// tracing of a quiescent queue: with concurrent consumers the two reads may
// not agree.
func (q *Runq) Contents() (runnext *G, ring []*G) {
	h, t := q.head.Load(), q.tail.Load()
	for i := h; i != t; i++ {
		ring = append(ring, q.ring[uint8(i&q.mask)].Load())
	}
	return q.runnext.Load(), ring
}
