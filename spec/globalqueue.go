package spec

import "strings"

// GlobalQueue is the abstract sched.runq: an unbounded FIFO that every P
// reaches under sched.lock. Because it is only touched under a lock, each
// operation is one atomic step and the sequential model is exact.
type GlobalQueue struct {
	Gs []GID
}

// Len is sched.runq.size.
func (q GlobalQueue) Len() int { return len(q.Gs) }

// Put is globrunqput: g joins the tail. Gosched, preemption and a G leaving
// a syscall without a P come here, so they queue behind everyone else.
func (q GlobalQueue) Put(g GID) GlobalQueue {
	if g == NoG {
		panic("spec: globrunqput of NoG")
	}
	return GlobalQueue{Gs: appendCopy(q.Gs, g)}
}

// PutHead is globrunqputhead: g goes first. The runtime uses it when a P is
// taken away (procresize) and its current G must not lose its place.
func (q GlobalQueue) PutHead(g GID) GlobalQueue {
	if g == NoG {
		panic("spec: globrunqputhead of NoG")
	}
	return GlobalQueue{Gs: appendCopy([]GID{g}, q.Gs...)}
}

// PutBatch is globrunqputbatch: the batch joins the tail in its order. This
// is where runqputslow's spill lands.
func (q GlobalQueue) PutBatch(batch []GID) GlobalQueue {
	for _, g := range batch {
		if g == NoG {
			panic("spec: globrunqputbatch of NoG")
		}
	}
	return GlobalQueue{Gs: appendCopy(q.Gs, batch...)}
}

// Get is globrunqget: the head, or NoG when empty.
func (q GlobalQueue) Get() (nq GlobalQueue, g GID) {
	if len(q.Gs) == 0 {
		return q, NoG
	}
	return GlobalQueue{Gs: appendCopy(q.Gs[1:])}, q.Gs[0]
}

// GetBatchSize is how many Gs globrunqgetbatch(n) takes from a queue of
// size Gs with gomaxprocs Ps: min(n, size, size/gomaxprocs+1). The last term
// is the fair share: one P draining the global queue must leave work for the
// others. (Go 1.15 also capped it at half the local ring; 1.26 passes that
// cap in as n.)
func GetBatchSize(n, size, gomaxprocs int) int {
	if gomaxprocs < 1 {
		panic("spec: globrunqgetbatch with gomaxprocs < 1")
	}
	return min(n, size, size/gomaxprocs+1)
}

// GetBatch is globrunqgetbatch: the first G to run now, and up to
// GetBatchSize-1 more for the caller's local queue, head first.
func (q GlobalQueue) GetBatch(n, gomaxprocs int) (nq GlobalQueue, g GID, batch []GID) {
	if len(q.Gs) == 0 {
		return q, NoG, nil
	}
	k := GetBatchSize(n, len(q.Gs), gomaxprocs)
	if k < 1 {
		// n <= 0 still takes the head: the runtime pops one before it
		// counts n down.
		k = 1
	}
	return GlobalQueue{Gs: appendCopy(q.Gs[k:])}, q.Gs[0], appendCopy(q.Gs[1:k])
}

// Key is a canonical encoding of the queue.
func (q GlobalQueue) Key() string {
	var b strings.Builder
	writeGIDs(&b, q.Gs)
	return b.String()
}

// Equal reports whether two global queues hold the same Gs in order.
func (q GlobalQueue) Equal(o GlobalQueue) bool { return equalGIDs(q.Gs, o.Gs) }
