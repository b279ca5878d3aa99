package impl

// GQueue is a FIFO of Gs linked through G.schedlink, as the runtime's
// gQueue: the global run queue's storage, and the batches that move between
// queues (a putslow spill, a globrunqgetbatch haul, a drain). Linking through
// the G makes moving a whole batch O(1) and allocation-free.
//
// A GQueue is not safe for concurrent use; it belongs to whoever holds it.
type GQueue struct {
	head, tail *G
	size       int32
}

// Len is the number of Gs in the queue.
func (q *GQueue) Len() int { return int(q.size) }

// Empty reports whether the queue holds no G.
func (q *GQueue) Empty() bool { return q.head == nil }

// Push adds g at the head.
func (q *GQueue) Push(g *G) {
	mustG(g, "GQueue.Push")
	g.schedlink = q.head
	q.head = g
	if q.tail == nil {
		q.tail = g
	}
	q.size++
}

// PushBack adds g at the tail.
func (q *GQueue) PushBack(g *G) {
	mustG(g, "GQueue.PushBack")
	g.schedlink = nil
	if q.tail != nil {
		q.tail.schedlink = g
	} else {
		q.head = g
	}
	q.tail = g
	q.size++
}

// PushBackAll moves every G of q2 to the tail of q, leaving q2 empty.
func (q *GQueue) PushBackAll(q2 *GQueue) {
	if q2.tail == nil {
		return
	}
	q2.tail.schedlink = nil
	if q.tail != nil {
		q.tail.schedlink = q2.head
	} else {
		q.head = q2.head
	}
	q.tail = q2.tail
	q.size += q2.size
	*q2 = GQueue{}
}

// Pop removes and returns the head, or nil when empty.
func (q *GQueue) Pop() *G {
	g := q.head
	if g != nil {
		q.head = g.schedlink
		if q.head == nil {
			q.tail = nil
		}
		g.schedlink = nil
		q.size--
	}
	return g
}

// Slice lists the queue's Gs head first without changing it.
func (q *GQueue) Slice() []*G {
	out := make([]*G, 0, q.size)
	for g := q.head; g != nil; g = g.schedlink {
		out = append(out, g)
	}
	return out
}

// GQueueOf builds a queue from gs, in order.
func GQueueOf(gs ...*G) GQueue {
	var q GQueue
	for _, g := range gs {
		q.PushBack(g)
	}
	return q
}

// mustG rejects a nil G with a message naming the operation, in the
// runtime's style: a nil G on a run queue would be read back as "empty" and
// silently lose whatever the caller meant to schedule.
func mustG(g *G, op string) {
	if g == nil {
		panic(op + ": nil *G")
	}
}
