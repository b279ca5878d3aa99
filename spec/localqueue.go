package spec

import (
	"fmt"
	"strconv"
	"strings"
)

// MinQueueCap and MaxQueueCap bound the capacity of a P's ring. The runtime's
// ring always holds 256; smaller powers of two keep model checking tractable
// while exercising the same wrap-around and overflow paths.
const (
	MinQueueCap = 2
	MaxQueueCap = 256
)

// ValidQueueCap reports whether c can be the capacity of a local run queue:
// a power of two in [MinQueueCap, MaxQueueCap]. Powers of two are required
// because the real ring indexes with a mask, and an even capacity because an
// overflow moves exactly half of a full ring.
func ValidQueueCap(c int) error {
	if c < MinQueueCap || c > MaxQueueCap || c&(c-1) != 0 {
		return fmt.Errorf("run queue capacity %d: want a power of two in [%d, %d]", c, MinQueueCap, MaxQueueCap)
	}
	return nil
}

// LocalQueue is the abstract P-local run queue: the runnext slot and a FIFO
// ring holding at most Cap Gs, head first. It is a value: every method leaves
// its receiver unchanged and returns a new LocalQueue whose Ring shares no
// storage with the old one.
//
// The real queue is lock-free and its operations are not single atomic steps,
// yet each of them takes effect at one atomic instruction (a CAS or a store of
// tail), so a sequential model is the right contract for it; see Grab and
// StealRunNext for the two places where a concurrent thief sees more freedom
// than a sequential one.
type LocalQueue struct {
	Cap     int
	RunNext GID
	Ring    []GID
}

// NewLocalQueue returns an empty queue of capacity c. It panics on an invalid
// capacity: model bounds are chosen by the caller, who checks them with
// ValidQueueCap first.
func NewLocalQueue(c int) LocalQueue {
	if err := ValidQueueCap(c); err != nil {
		panic("spec: " + err.Error())
	}
	return LocalQueue{Cap: c}
}

// Len is the number of Gs in the queue, runnext included.
func (q LocalQueue) Len() int {
	n := len(q.Ring)
	if q.RunNext != NoG {
		n++
	}
	return n
}

// Empty is runqempty: no G in the ring and none in runnext.
func (q LocalQueue) Empty() bool { return len(q.Ring) == 0 && q.RunNext == NoG }

// All lists the queue's Gs in the order the owner would run them: runnext,
// then the ring head to tail.
func (q LocalQueue) All() []GID {
	out := make([]GID, 0, q.Len())
	if q.RunNext != NoG {
		out = append(out, q.RunNext)
	}
	return append(out, q.Ring...)
}

func (q LocalQueue) withRing(ring []GID) LocalQueue {
	q.Ring = ring
	return q
}

// Put is runqput. With next, g takes the runnext slot and the G it displaces
// (if any) is put on the tail instead, as the runtime does so that a readied G
// runs next without starving the one it displaced.
//
// A put onto a full ring is runqputslow: the first Cap/2 Gs of the ring and
// the G being put leave together, in that order, as one batch for the global
// queue. Put returns that batch as spill (nil if nothing overflowed); the
// caller appends it to its GlobalQueue with PutBatch. Moving half, not one,
// is what amortises the global lock over many puts.
func (q LocalQueue) Put(g GID, next bool) (nq LocalQueue, spill []GID) {
	if g == NoG {
		panic("spec: runqput of NoG")
	}
	if next {
		old := q.RunNext
		q.RunNext = g
		if old == NoG {
			return q, nil
		}
		g = old
	}
	if len(q.Ring) < q.Cap {
		return q.withRing(appendCopy(q.Ring, g)), nil
	}
	half := q.Cap / 2
	spill = make([]GID, 0, half+1)
	spill = append(spill, q.Ring[:half]...)
	spill = append(spill, g)
	return q.withRing(appendCopy(q.Ring[half:])), spill
}

// PutBatch is runqputbatch: it puts Gs from batch on the tail while the ring
// has room and returns those that did not fit, in order. It never touches
// runnext and never spills: the caller decides where the rest goes.
func (q LocalQueue) PutBatch(batch []GID) (nq LocalQueue, rest []GID) {
	room := q.Cap - len(q.Ring)
	if room > len(batch) {
		room = len(batch)
	}
	for _, g := range batch[:room] {
		if g == NoG {
			panic("spec: runqputbatch of NoG")
		}
	}
	return q.withRing(appendCopy(q.Ring, batch[:room]...)), append([]GID(nil), batch[room:]...)
}

// Get is runqget. Runnext comes first and inherits the current time slice
// (inheritTime), which is what makes a producer/consumer pair run like a
// coroutine pair; otherwise the ring's head starts a fresh slice. An empty
// queue gives NoG.
func (q LocalQueue) Get() (nq LocalQueue, g GID, inheritTime bool) {
	if q.RunNext != NoG {
		g = q.RunNext
		q.RunNext = NoG
		return q, g, true
	}
	if len(q.Ring) == 0 {
		return q, NoG, false
	}
	return q.withRing(appendCopy(q.Ring[1:])), q.Ring[0], false
}

// Drain is runqdrain: the owner takes everything, runnext first.
func (q LocalQueue) Drain() (nq LocalQueue, all []GID) {
	all = q.All()
	return LocalQueue{Cap: q.Cap}, all
}

// GrabBounds is the set of batch sizes a thief's runqgrab may commit from the
// ring, as the range lo..hi (0, 0 for an empty ring).
//
// A sequential thief takes ceil(len/2). A concurrent one reads head, then
// tail, at two different moments, and commits with a CAS on head at a third.
// Only the owner moves tail, and only forward, so the tail it read can be
// older than the tail at the CAS, never newer: the length it computes is
// between 1 and the true length when the CAS succeeds. Half of it rounded up
// is therefore any k in 1..ceil(len/2), and every such k happens when the
// owner puts between the thief's read of tail and its CAS. (A stale head is
// harmless: the CAS fails and the thief retries.)
func (q LocalQueue) GrabBounds() (lo, hi int) {
	n := len(q.Ring)
	if n == 0 {
		return 0, 0
	}
	return 1, n - n/2
}

// Grab is the effect of a runqgrab that committed a batch of k Gs from the
// ring: the first k, head first. It panics if k is outside GrabBounds; use
// GrabOK to test a proposed batch.
func (q LocalQueue) Grab(k int) (nq LocalQueue, batch []GID) {
	lo, hi := q.GrabBounds()
	if k < lo || k > hi || k == 0 {
		panic(fmt.Sprintf("spec: runqgrab of %d from a ring of %d (allowed %d..%d)", k, len(q.Ring), lo, hi))
	}
	batch = appendCopy(q.Ring[:k])
	return q.withRing(appendCopy(q.Ring[k:])), batch
}

// Steal is the sequential runqsteal from q: a thief alone with the victim
// takes the ring's first ceil(len/2) Gs, or, when the ring is empty and
// stealRunNext is set, the runnext G. It is the deterministic outcome the
// real queue must produce when no other goroutine interferes; StealOK gives
// the wider set of outcomes a concurrent steal may produce.
func (q LocalQueue) Steal(stealRunNext bool) (nq LocalQueue, batch []GID) {
	if _, hi := q.GrabBounds(); hi > 0 {
		return q.Grab(hi)
	}
	if stealRunNext && q.RunNext != NoG {
		g := q.RunNext
		q.RunNext = NoG
		return q, []GID{g}
	}
	return q, nil
}

// StealOK reports whether batch is a legal result of one concurrent runqgrab
// from q, and the queue it leaves behind. The legal results are:
//
//   - the first k Gs of the ring, for k in GrabBounds (see there);
//   - with stealRunNext, the runnext G alone. The thief reads the ring as
//     empty before it CASes runnext, but between the two the owner may have
//     refilled the ring (a put, or a put with next that moved the old runnext
//     to the tail), so a runnext steal can take effect while the ring is not
//     empty. The CAS guarantees the G is taken at most once, which is the
//     property that matters;
//   - an empty batch when the ring is empty. With stealRunNext, runnext may
//     still hold a G: the thief can see the ring empty while runnext is
//     full, and runnext empty after the owner took it and put more in the
//     ring, without ever seeing both empty at once.
func (q LocalQueue) StealOK(batch []GID, stealRunNext bool) (nq LocalQueue, ok bool) {
	if len(batch) == 0 {
		return q, len(q.Ring) == 0
	}
	if stealRunNext && len(batch) == 1 && q.RunNext != NoG && batch[0] == q.RunNext {
		q.RunNext = NoG
		return q, true
	}
	lo, hi := q.GrabBounds()
	k := len(batch)
	if k < lo || k > hi {
		return q, false
	}
	for i, g := range batch {
		if q.Ring[i] != g {
			return q, false
		}
	}
	nq, _ = q.Grab(k)
	return nq, true
}

// EmptyOK reports whether res is a legal answer of a concurrent runqempty.
// True must be exact (the runtime promises it is never spurious: it re-reads
// tail to be sure head, tail and runnext were seen at one instant). False may
// be spurious, because thieves can empty the ring after runqempty read tail.
//
// "Exact" is relative to the Gs in the queue. Two owner operations carry a G
// outside both queues for a moment: runqput with next holds the displaced
// runnext G between its CAS of runnext and its store to the ring, and
// runqputslow holds the spilled half between its CAS of head and the global
// lock. A queue-level history has to account for those Gs in flight;
// linearize.Queues does, and uses EmptyOK and StealOK for the rest.
func (q LocalQueue) EmptyOK(res bool) bool { return !res || q.Empty() }

// Key is a canonical encoding of the queue: equal queues have equal keys and
// different queues different ones. It reads as "cap|runnext|g1,g2,...".
func (q LocalQueue) Key() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(q.Cap))
	b.WriteByte('|')
	b.WriteString(strconv.Itoa(int(q.RunNext)))
	b.WriteByte('|')
	writeGIDs(&b, q.Ring)
	return b.String()
}

// String shows the queue for traces: runnext in brackets, then the ring.
func (q LocalQueue) String() string {
	var b strings.Builder
	b.WriteString("runnext=")
	if q.RunNext == NoG {
		b.WriteString("-")
	} else {
		b.WriteString("g" + strconv.Itoa(int(q.RunNext)))
	}
	b.WriteString(" ring=[")
	for i, g := range q.Ring {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("g" + strconv.Itoa(int(g)))
	}
	b.WriteString("]/" + strconv.Itoa(q.Cap))
	return b.String()
}

// Equal reports whether two queues hold the same Gs in the same places.
func (q LocalQueue) Equal(o LocalQueue) bool {
	return q.Cap == o.Cap && q.RunNext == o.RunNext && equalGIDs(q.Ring, o.Ring)
}

func appendCopy(s []GID, more ...GID) []GID {
	out := make([]GID, 0, len(s)+len(more))
	out = append(out, s...)
	return append(out, more...)
}

func equalGIDs(a, b []GID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func writeGIDs(b *strings.Builder, gs []GID) {
	for i, g := range gs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(g)))
	}
}
