package linearize

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Kind names one operation of the run queues as the history records it.
type Kind uint8

const (
	KindPut     Kind = iota + 1 // runqput(g, next=false), owner
	KindPutNext                 // runqput(g, next=true), owner: g takes runnext, the old runnext goes to the tail
	KindGet                     // runqget, owner: runnext first, else the ring's head
	KindSteal                   // runqsteal by a thief: a batch from the head of the ring, or runnext
	KindDrain                   // runqdrain, owner: everything, runnext first
	KindEmpty                   // runqempty, anyone: never spuriously true
	KindGlobGet                 // globrunqget, anyone: the global queue's head
)

var kindNames = [...]string{
	KindPut: "Put", KindPutNext: "PutNext", KindGet: "Get", KindSteal: "Steal",
	KindDrain: "Drain", KindEmpty: "Empty", KindGlobGet: "GlobGet",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Input is the Input of a porcupine.Operation in a run-queue history.
//
// Call and Return repeat the operation's timestamps. The model needs them for
// one thing only: a Put that spilled to the global queue must have landed
// there before any operation that was called after the Put returned (see
// State). MakeOp fills them in; an Input with Return 0 makes a spill land at
// once, as if runqputslow were a single atomic step.
type Input struct {
	Kind         Kind
	G            spec.GID // the G put (KindPut, KindPutNext)
	StealRunNext bool     // KindSteal: whether the thief may take runnext
	Call, Return int64
}

// Output is the Output of a porcupine.Operation in a run-queue history. Each
// kind reads only its own fields; Put and PutNext return nothing.
type Output struct {
	G           spec.GID   // KindGet, KindGlobGet: the G obtained, NoG if none
	InheritTime bool       // KindGet: true iff G came from runnext
	Gs          []spec.GID // KindSteal: the batch, head first; KindDrain: every G, runnext first
	Empty       bool       // KindEmpty
}

// MakeOp builds the porcupine.Operation for one recorded call, copying the
// timestamps into the Input.
func MakeOp(client int, in Input, out Output, call, ret int64) porcupine.Operation {
	in.Call, in.Return = call, ret
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

// Queues is one abstract state of the owner's local queue and the global
// queue, including the Gs an unfinished owner operation is still carrying
// between them.
//
// Two owner operations are not single atomic steps against these queues,
// and the model gives each two effects:
//
//   - runqput with next CASes the new G into runnext and only afterwards
//     puts the displaced runnext G on the ring. In between, that G (Kicked)
//     is in neither place: a thief can see the ring empty and runnext empty
//     (runqempty says true, a steal finds nothing) while the owner holds it.
//     It reaches the ring's tail at some moment before the Put returns
//     (KickedBy, the Put's return timestamp).
//   - runqputslow takes half the ring with a CAS on head and only then takes
//     the global lock to append the batch (plus the G being put) to the
//     global queue. In between, those Gs (Transit) are in neither queue: a
//     thief can see the shortened ring and then an empty global queue. They
//     land at the global queue's tail before the Put returns (TransitBy).
//
// Any operation called after such a deadline sees the Gs landed; one that
// overlaps the Put may see them either way, which the model tracks by
// keeping every possibility (see State).
//
// FilledBy serves the thieves' runnext steals. runqgrab takes runnext only
// after it has read the ring empty, but the owner may refill the ring
// before the thief's CAS on runnext, so the steal can take effect with Gs
// in the ring (spec.LocalQueue.StealOK allows that unconditionally). What
// must hold is that the ring was empty at some moment after the steal was
// called: the operation that last made it non-empty took effect after that
// call, so it returned after it. FilledBy is the return timestamp of that
// operation (for a displaced runnext G landing on the ring, its Put's), 0
// while the ring is empty; a runnext steal from a non-empty ring called
// after FilledBy is illegal.
type Queues struct {
	Local     spec.LocalQueue
	Global    spec.GlobalQueue
	Kicked    spec.GID
	KickedBy  int64
	Transit   []spec.GID
	TransitBy int64
	FilledBy  int64
}

// State is the set of Queues consistent with the history linearized so far:
// usually one, more only while an owner operation's second effect may or
// may not have happened. Keeping the set (a power-set construction) makes
// Step deterministic without guessing when a G landed.
type State []*Queues

// landKicked puts the displaced runnext G on the ring, spilling to Transit if
// the ring is full, as runqput's second half does.
func (q *Queues) landKicked() {
	if q.Kicked == spec.NoG {
		return
	}
	var spill []spec.GID
	wasEmpty := len(q.Local.Ring) == 0
	q.Local, spill = q.Local.Put(q.Kicked, false)
	if wasEmpty {
		q.FilledBy = q.KickedBy
	}
	q.Kicked = spec.NoG
	if len(spill) > 0 {
		q.landTransit() // an older spill cannot still be in flight in a real history; land it first
		q.Transit, q.TransitBy = spill, q.KickedBy
	}
	q.KickedBy = 0
}

func (q *Queues) landTransit() {
	if len(q.Transit) > 0 {
		q.Global = q.Global.PutBatch(q.Transit)
	}
	q.Transit, q.TransitBy = nil, 0
}

// settle lands whatever must have landed before an operation called at call.
func (q *Queues) settle(call int64) {
	if q.Kicked != spec.NoG && call > q.KickedBy {
		q.landKicked()
	}
	if len(q.Transit) > 0 && call > q.TransitBy {
		q.landTransit()
	}
}

// variants lists q and every state reachable from it by landing what is in
// flight: what an operation overlapping the unfinished Put may observe.
func (q *Queues) variants() []*Queues {
	out := []*Queues{q}
	if q.Kicked == spec.NoG && len(q.Transit) == 0 {
		return out
	}
	for i := 0; i < len(out); i++ {
		v := out[i]
		if v.Kicked != spec.NoG {
			w := *v
			w.landKicked()
			out = addQueues(out, &w)
		}
		if len(v.Transit) > 0 {
			w := *v
			w.landTransit()
			out = addQueues(out, &w)
		}
	}
	return out
}

func addQueues(set []*Queues, q *Queues) []*Queues {
	for _, o := range set {
		if o.equal(q) {
			return set
		}
	}
	return append(set, q)
}

// NewModel returns the porcupine model of the run queue of the given ring
// capacity together with its global queue. Steps never panic: an input or
// output of the wrong type or shape is simply not a legal step.
func NewModel(capacity int) (porcupine.Model, error) {
	return newModel(capacity, modelOpts{})
}

// modelOpts are stricter variants of the model that real histories do not
// satisfy (see Queues); the tests use them to show why the model relaxes
// those points.
type modelOpts struct {
	// atomicPut makes runqput a single atomic step: the displaced runnext G
	// and a spill land at the Put's linearization point.
	atomicPut bool
	// emptyRingRunnextSteal lets a thief take runnext only while the ring
	// is empty at the steal's linearization point.
	emptyRingRunnextSteal bool
}

func newModel(capacity int, opts modelOpts) (porcupine.Model, error) {
	if err := spec.ValidQueueCap(capacity); err != nil {
		return porcupine.Model{}, fmt.Errorf("linearize: %w", err)
	}
	init := State{&Queues{Local: spec.NewLocalQueue(capacity)}}
	return porcupine.Model{
		Init: func() any { return init },
		Step: func(state, input, output any) (bool, any) {
			s, ok1 := state.(State)
			in, ok2 := input.(Input)
			if !ok1 || !ok2 {
				return false, state
			}
			next := step(s, in, output, opts)
			if len(next) == 0 {
				return false, state
			}
			return true, next
		},
		Equal: func(a, b any) bool {
			x, ok1 := a.(State)
			y, ok2 := b.(State)
			return ok1 && ok2 && x.equal(y)
		},
		Hash: func(state any) uint64 {
			s, ok := state.(State)
			if !ok {
				return 0
			}
			return s.hash()
		},
		DescribeOperation: describeOperation,
		DescribeState: func(state any) string {
			s, ok := state.(State)
			if !ok {
				return fmt.Sprintf("%v", state)
			}
			return s.String()
		},
	}, nil
}

// step applies one operation to every state of s, in every variant the
// operation may observe, and keeps the results in which the recorded output
// is legal. An empty result means the step is illegal. s is not changed.
func step(s State, in Input, output any, opts modelOpts) State {
	var next State
	for _, q := range s {
		settled := *q // a shallow copy is enough: spec's queues are values and never share storage they modify
		settled.settle(in.Call)
		for _, v := range settled.variants() {
			if r, ok := stepOne(v, in, output, opts); ok {
				next = State(addQueues(next, r))
			}
		}
	}
	return next
}

// stepOne is the sequential specification of one operation on one state:
// the state after it, or false if the recorded output is not legal there.
func stepOne(q *Queues, in Input, output any, opts modelOpts) (*Queues, bool) {
	n := *q
	if !n.apply(in, output, opts) {
		return nil, false
	}
	if len(n.Local.Ring) == 0 {
		n.FilledBy = 0 // only the last filling counts: keep equal states equal
	}
	return &n, true
}

// apply performs one operation on q and reports whether its output is legal.
func (q *Queues) apply(in Input, output any, opts modelOpts) bool {
	switch in.Kind {
	case KindPut, KindPutNext:
		if in.G == spec.NoG {
			return false
		}
		// The owner's calls are sequential, so in a real history its
		// previous Put has landed everything by now.
		q.landKicked()
		q.landTransit()
		if in.Kind == KindPutNext && q.Local.RunNext != spec.NoG {
			q.Kicked, q.KickedBy = q.Local.RunNext, in.Return
			q.Local.RunNext = in.G
			if opts.atomicPut || in.Return == 0 {
				q.landKicked()
			}
		} else {
			var spill []spec.GID
			wasEmpty := len(q.Local.Ring) == 0
			q.Local, spill = q.Local.Put(in.G, in.Kind == KindPutNext)
			if wasEmpty && len(q.Local.Ring) > 0 {
				q.FilledBy = in.Return
			}
			if len(spill) > 0 {
				q.Transit, q.TransitBy = spill, in.Return
			}
		}
		if opts.atomicPut || in.Return == 0 {
			q.landTransit()
		}
		return true
	}
	out, ok := output.(Output)
	if !ok {
		return false
	}
	switch in.Kind {
	case KindGet:
		var g spec.GID
		var inherit bool
		q.Local, g, inherit = q.Local.Get()
		return out.G == g && out.InheritTime == inherit
	case KindSteal:
		if in.StealRunNext && len(out.Gs) == 1 && out.Gs[0] == q.Local.RunNext && len(q.Local.Ring) > 0 {
			// A runnext steal from a non-empty ring: legal only if the ring
			// may have been empty after the steal was called (FilledBy).
			if opts.emptyRingRunnextSteal || q.FilledBy < in.Call {
				return false
			}
		}
		q.Local, ok = q.Local.StealOK(out.Gs, in.StealRunNext)
		return ok
	case KindDrain:
		var all []spec.GID
		q.Local, all = q.Local.Drain()
		return equalGIDs(all, out.Gs)
	case KindEmpty:
		return q.Local.EmptyOK(out.Empty)
	case KindGlobGet:
		var g spec.GID
		q.Global, g = q.Global.Get()
		return out.G == g
	}
	return false
}

func (q *Queues) equal(o *Queues) bool {
	return q.Local.Equal(o.Local) && q.Global.Equal(o.Global) &&
		q.Kicked == o.Kicked && q.KickedBy == o.KickedBy &&
		equalGIDs(q.Transit, o.Transit) && q.TransitBy == o.TransitBy &&
		q.FilledBy == o.FilledBy
}

// hash is FNV-1a over the fields with separators; equal Queues hash equally.
func (q *Queues) hash() uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= prime
	}
	mix(uint64(q.Local.Cap))
	mix(uint64(uint32(q.Local.RunNext)))
	for _, gs := range [][]spec.GID{q.Local.Ring, q.Global.Gs, q.Transit} {
		mix(uint64(len(gs)) | 1<<40)
		for _, g := range gs {
			mix(uint64(uint32(g)))
		}
	}
	mix(uint64(uint32(q.Kicked)))
	mix(uint64(q.KickedBy))
	mix(uint64(q.TransitBy))
	mix(uint64(q.FilledBy))
	return h
}

// equal is set equality; step never puts two equal Queues in one State.
func (s State) equal(o State) bool {
	if len(s) != len(o) {
		return false
	}
	for _, q := range s {
		found := false
		for _, p := range o {
			if q.equal(p) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// hash combines the members' hashes with XOR, which ignores their order.
func (s State) hash() uint64 {
	var h uint64
	for _, q := range s {
		h ^= q.hash()
	}
	return h
}

func equalGIDs(a, b []spec.GID) bool {
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
