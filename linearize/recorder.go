package linearize

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Recorder performs operations on one victim queue (impl.Runq and its
// impl.GlobalRunq) and logs each as a porcupine.Operation.
//
// Client 0 is the victim's owner; client i (1..k) is the thief that owns
// thieves[i-1]. Each client must be driven by one goroutine at a time, and
// different clients may run concurrently: each appends only to its own log.
//
// Timestamps come from one atomic counter shared by every client. The call
// timestamp is an increment made before the operation's first atomic access,
// the return timestamp one made after its last. Go's atomics are
// sequentially consistent, so the increments are totally ordered consistently
// with real time: if an operation returned before another was called, its
// return timestamp is smaller than the other's call timestamp. The log can
// therefore only ever show more overlap than there was, never less, and a
// reported violation is never an artefact of the clock.
type Recorder struct {
	clock   atomic.Int64
	victim  *impl.Runq
	thieves []*impl.Runq
	logs    [][]porcupine.Operation
}

// NewRecorder returns a recorder for victim with one client per thief queue.
// The thief queues must be empty, distinct from the victim and of the same
// capacity. They are private to the recorder: a steal's batch is read back
// from the thief's own queue, which is then emptied, so that each steal
// starts from an empty queue as the scheduler's do.
func NewRecorder(victim *impl.Runq, thieves ...*impl.Runq) (*Recorder, error) {
	if victim == nil {
		return nil, errors.New("linearize: NewRecorder: nil victim queue")
	}
	for i, th := range thieves {
		switch {
		case th == nil:
			return nil, fmt.Errorf("linearize: NewRecorder: thief %d is nil", i+1)
		case th == victim:
			return nil, fmt.Errorf("linearize: NewRecorder: thief %d is the victim", i+1)
		case th.Cap() != victim.Cap():
			return nil, fmt.Errorf("linearize: NewRecorder: thief %d has capacity %d, victim %d", i+1, th.Cap(), victim.Cap())
		}
		if next, ring := th.Contents(); next != nil || len(ring) > 0 {
			return nil, fmt.Errorf("linearize: NewRecorder: thief %d's queue is not empty", i+1)
		}
		for _, o := range thieves[:i] {
			if o == th {
				return nil, fmt.Errorf("linearize: NewRecorder: thief %d given twice", i+1)
			}
		}
	}
	return &Recorder{
		victim:  victim,
		thieves: thieves,
		logs:    make([][]porcupine.Operation, 1+len(thieves)),
	}, nil
}

// Clients is the number of clients: the owner plus one per thief.
func (r *Recorder) Clients() int { return len(r.logs) }

func (r *Recorder) tick() int64 { return r.clock.Add(1) }

func (r *Recorder) log(client int, in Input, out Output, call, ret int64) {
	r.logs[client] = append(r.logs[client], MakeOp(client, in, out, call, ret))
}

// Put is runqput(g, next=false) by the owner.
func (r *Recorder) Put(g *impl.G) {
	call := r.tick()
	r.victim.Put(g, false)
	ret := r.tick()
	r.log(0, Input{Kind: KindPut, G: gid(g)}, Output{}, call, ret)
}

// PutNext is runqput(g, next=true) by the owner.
func (r *Recorder) PutNext(g *impl.G) {
	call := r.tick()
	r.victim.Put(g, true)
	ret := r.tick()
	r.log(0, Input{Kind: KindPutNext, G: gid(g)}, Output{}, call, ret)
}

// Get is runqget by the owner.
func (r *Recorder) Get() *impl.G {
	call := r.tick()
	g, inherit := r.victim.Get()
	ret := r.tick()
	r.log(0, Input{Kind: KindGet}, Output{G: gid(g), InheritTime: inherit}, call, ret)
	return g
}

// Drain is runqdrain by the owner.
func (r *Recorder) Drain() []*impl.G {
	call := r.tick()
	gq := r.victim.Drain()
	ret := r.tick()
	gs := gq.Slice()
	r.log(0, Input{Kind: KindDrain}, Output{Gs: gids(gs)}, call, ret)
	return gs
}

// Empty is runqempty on the victim by any client.
func (r *Recorder) Empty(client int) bool {
	r.checkClient(client)
	call := r.tick()
	e := r.victim.Empty()
	ret := r.tick()
	r.log(client, Input{Kind: KindEmpty}, Output{Empty: e}, call, ret)
	return e
}

// GlobGet is globrunqget by any client.
func (r *Recorder) GlobGet(client int) *impl.G {
	r.checkClient(client)
	call := r.tick()
	g := r.victim.Global().Get()
	ret := r.tick()
	r.log(client, Input{Kind: KindGlobGet}, Output{G: gid(g)}, call, ret)
	return g
}

// Steal is runqsteal from the victim into thief client's own queue. The
// batch is what the steal put on the thief's ring followed by the G it
// returned: runqsteal publishes all but the last grabbed G on the thief's
// ring, in the victim's order, and returns the last. The thief's queue was
// empty before, so draining it after the return timestamp yields exactly
// the rest of the batch without touching the victim.
func (r *Recorder) Steal(client int, stealRunNext bool) []*impl.G {
	r.checkClient(client)
	if client == 0 {
		panic("linearize: Recorder.Steal: client 0 is the owner, not a thief")
	}
	thief := r.thieves[client-1]
	call := r.tick()
	g := thief.Steal(r.victim, stealRunNext)
	ret := r.tick()
	gq := thief.Drain()
	batch := gq.Slice()
	if g != nil {
		batch = append(batch, g)
	}
	r.log(client, Input{Kind: KindSteal, StealRunNext: stealRunNext}, Output{Gs: gids(batch)}, call, ret)
	return batch
}

func (r *Recorder) checkClient(client int) {
	if client < 0 || client >= len(r.logs) {
		panic(fmt.Sprintf("linearize: Recorder: client %d out of range 0..%d", client, len(r.logs)-1))
	}
}

// History returns every logged operation, client by client. Call it only
// once every client's goroutine has finished.
func (r *Recorder) History() []porcupine.Operation {
	var n int
	for _, l := range r.logs {
		n += len(l)
	}
	out := make([]porcupine.Operation, 0, n)
	for _, l := range r.logs {
		out = append(out, l...)
	}
	return out
}

// gid maps a G to the model's GID. Recorders number their Gs from 1, so
// the ids fit; a larger id is a misuse that would alias another G.
func gid(g *impl.G) spec.GID {
	if g == nil {
		return spec.NoG
	}
	id := g.ID()
	if id > math.MaxInt32 {
		panic(fmt.Sprintf("linearize: G id %d does not fit a spec.GID", id))
	}
	return spec.GID(id)
}

func gids(gs []*impl.G) []spec.GID {
	if len(gs) == 0 {
		return nil
	}
	out := make([]spec.GID, len(gs))
	for i, g := range gs {
		out[i] = gid(g)
	}
	return out
}
