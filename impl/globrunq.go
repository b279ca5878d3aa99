package impl

import "sync"

// GlobalRunq is sched.runq: the FIFO of runnable Gs shared by all Ps, under
// a mutex. Gs land here when a local ring overflows, when they yield
// (Gosched) or are preempted, and when they leave a syscall without getting
// a P; every P takes from it at least once per 61 schedules so none of them
// waits forever behind local work.
//
// The exported methods take the lock themselves. The scheduler, which keeps
// more state under the same lock (idle Ps, spinning Ms), calls the lower-case
// forms while holding it, as the runtime's globrunq* functions require
// sched.lock held.
type GlobalRunq struct {
	mu   sync.Mutex
	runq GQueue
	hook yieldHook
}

// NewGlobalRunq returns an empty global queue.
func NewGlobalRunq() *GlobalRunq { return &GlobalRunq{} }

// Lock acquires the queue's lock (the scheduler's sched.lock).
func (s *GlobalRunq) Lock() {
	s.hook.at(OpLockSched, s)
	s.mu.Lock()
}

// Unlock releases the lock.
func (s *GlobalRunq) Unlock() { s.mu.Unlock() }

// Put is globrunqput: g joins the tail.
func (s *GlobalRunq) Put(g *G) {
	mustG(g, "globrunqput") // before locking: a panic must not leave the lock held
	s.Lock()
	s.put(g)
	s.Unlock()
}

// PutHead is globrunqputhead: g goes to the head, ahead of everyone.
func (s *GlobalRunq) PutHead(g *G) {
	mustG(g, "globrunqputhead")
	s.Lock()
	s.putHead(g)
	s.Unlock()
}

// PutBatch is globrunqputbatch: the whole batch joins the tail in order and
// batch is left empty.
func (s *GlobalRunq) PutBatch(batch *GQueue) {
	s.Lock()
	s.putBatch(batch)
	s.Unlock()
}

// Get is globrunqget: the head, or nil.
func (s *GlobalRunq) Get() *G {
	s.Lock()
	defer s.Unlock()
	return s.get()
}

// GetBatch is globrunqgetbatch: it returns the head to run now and a batch
// of up to min(n, size, size/gomaxprocs+1)-1 more for the caller's local
// queue. The size/gomaxprocs+1 term is this P's fair share of the global
// work, so one P does not hoard it.
func (s *GlobalRunq) GetBatch(n int32, gomaxprocs int32) (*G, GQueue) {
	s.Lock()
	defer s.Unlock()
	return s.getBatch(n, gomaxprocs)
}

// Len is the number of Gs queued.
func (s *GlobalRunq) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runq.Len()
}

// Contents lists the queued Gs head first.
func (s *GlobalRunq) Contents() []*G {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runq.Slice()
}

func (s *GlobalRunq) put(g *G) {
	mustG(g, "globrunqput")
	s.runq.PushBack(g)
}

func (s *GlobalRunq) putHead(g *G) {
	mustG(g, "globrunqputhead")
	s.runq.Push(g)
}

func (s *GlobalRunq) putBatch(batch *GQueue) { s.runq.PushBackAll(batch) }

func (s *GlobalRunq) get() *G { return s.runq.Pop() }

func (s *GlobalRunq) getBatch(n int32, gomaxprocs int32) (*G, GQueue) {
	if gomaxprocs < 1 {
		panic("globrunqgetbatch: gomaxprocs < 1")
	}
	var batch GQueue
	size := s.runq.size
	if size == 0 {
		return nil, batch
	}
	n = min(n, size, size/gomaxprocs+1)
	g := s.runq.Pop()
	for n--; n > 0; n-- {
		batch.PushBack(s.runq.Pop())
	}
	return g, batch
}
