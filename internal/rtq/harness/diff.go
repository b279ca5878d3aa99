package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Diff drives the release's queues (two Ps and the global queue), impl's
// Runq and GlobalRunq, and spec/'s values side by side, one operation at a
// time. Every operation must return the same in all three, and after every
// operation the contents of every queue must be equal in all three.
type Diff struct {
	rt     Queues
	cap    int
	glob   *impl.GlobalRunq
	runqs  [2]*impl.Runq
	specQ  [2]spec.LocalQueue
	specG  spec.GlobalQueue
	nextID uint64
	// Ops counts the operations run, by name.
	Ops map[string]int
}

// NewDiff resets rt to two Ps and returns a differential over it.
func NewDiff(rt Queues) (*Diff, error) {
	rt.Reset(2)
	d := &Diff{rt: rt, cap: rt.Cap(), glob: impl.NewGlobalRunq(), Ops: map[string]int{}}
	for i := range d.runqs {
		q, err := impl.NewRunq(d.cap, d.glob)
		if err != nil {
			return nil, err
		}
		d.runqs[i] = q
		d.specQ[i] = spec.NewLocalQueue(d.cap)
	}
	return d, nil
}

var errSkip = errors.New("not enabled")

type diffAction struct {
	name string
	run  func(d *Diff, r Chooser) error
}

var diffActions = []diffAction{
	{"runqput", (*Diff).put},
	{"runqput burst", (*Diff).putBurst},
	{"runqputbatch", (*Diff).putBatch},
	{"runqget", (*Diff).get},
	{"runqsteal", (*Diff).steal},
	{"runqdrain", (*Diff).drain},
	{"runqempty", (*Diff).empty},
	{"globrunqput", (*Diff).globPut},
	{"globrunqget", (*Diff).globGet},
}

// Chooser draws the differential's choices: a *rand.Rand, or rapid's
// generators (RunRapid), which shrink a failing sequence.
type Chooser interface {
	IntN(n int) int // in [0, n)
}

// Step runs one operation chosen by r and compares the contents after it.
func (d *Diff) Step(r Chooser) (string, error) {
	for {
		a := diffActions[r.IntN(len(diffActions))]
		err := a.run(d, r)
		if errors.Is(err, errSkip) {
			continue
		}
		if err == nil {
			err = d.Check()
		}
		d.Ops[a.name]++
		return a.name, err
	}
}

func (d *Diff) newG() uint64 { d.nextID++; return d.nextID }

func ids(gs []spec.GID) []uint64 {
	out := make([]uint64, len(gs))
	for i, g := range gs {
		out[i] = uint64(g)
	}
	return out
}

func implIDs(gs []*impl.G) []uint64 {
	out := make([]uint64, len(gs))
	for i, g := range gs {
		out[i] = implID(g)
	}
	return out
}

func implID(g *impl.G) uint64 {
	if g == nil {
		return 0
	}
	return g.ID()
}

func (d *Diff) putOne(p int, next bool) {
	id := d.newG()
	d.rt.Put(p, id, next)
	d.runqs[p].Put(impl.NewG(id), next)
	var spill []spec.GID
	d.specQ[p], spill = d.specQ[p].Put(spec.GID(id), next)
	d.specG = d.specG.PutBatch(spill)
}

func (d *Diff) put(r Chooser) error { d.putOne(r.IntN(2), r.IntN(2) == 0); return nil }

// putBurst fills a ring, so that runqputslow is reached at capacity 256.
func (d *Diff) putBurst(r Chooser) error {
	p := r.IntN(2)
	for range 1 + r.IntN(d.cap+2) {
		d.putOne(p, false)
	}
	return nil
}

func (d *Diff) putBatch(r Chooser) error {
	if !d.rt.HasPutBatch() {
		return errSkip
	}
	p := r.IntN(2)
	k := r.IntN(d.cap + 3)
	var batch []uint64
	var gq impl.GQueue
	for range k {
		id := d.newG()
		batch = append(batch, id)
		gq.PushBack(impl.NewG(id))
	}
	rest, spilled := d.rt.PutBatch(p, batch)
	d.runqs[p].PutBatch(&gq)
	implRest := implIDs(gq.Slice())
	d.glob.PutBatch(&gq)
	var specRest []spec.GID
	d.specQ[p], specRest = d.specQ[p].PutBatch(func() []spec.GID {
		out := make([]spec.GID, len(batch))
		for i, id := range batch {
			out[i] = spec.GID(id)
		}
		return out
	}())
	d.specG = d.specG.PutBatch(specRest)
	if !slices.Equal(implRest, ids(specRest)) {
		return fmt.Errorf("impl runqputbatch left %v, spec %v", implRest, specRest)
	}
	if !spilled {
		if !slices.Equal(rest, ids(specRest)) {
			return fmt.Errorf("runqputbatch on P%d of %d Gs left %v; impl and spec leave %v", p, k, rest, specRest)
		}
		// What does not fit goes to the global queue, as findRunnable does.
		if len(rest) > 0 {
			d.rt.GlobPutBatch(rest)
		}
	}
	return nil
}

func (d *Diff) get(r Chooser) error {
	p := r.IntN(2)
	g, inherit := d.rt.Get(p)
	ig, iinherit := d.runqs[p].Get()
	var want spec.GID
	var wantInherit bool
	d.specQ[p], want, wantInherit = d.specQ[p].Get()
	if g != uint64(want) || inherit != wantInherit || implID(ig) != uint64(want) || iinherit != wantInherit {
		return fmt.Errorf("runqget on P%d = g%d, %v; impl g%d, %v; spec g%d, %v", p, g, inherit, implID(ig), iinherit, want, wantInherit)
	}
	return nil
}

func (d *Diff) steal(r Chooser) error {
	thief := r.IntN(2)
	victim := 1 - thief
	// The scheduler steals only into an almost empty ring.
	if len(d.specQ[thief].Ring) > d.cap/2 {
		return errSkip
	}
	srn := r.IntN(2) == 0
	g := d.rt.Steal(thief, victim, srn)
	ig := d.runqs[thief].Steal(d.runqs[victim], srn)
	var batch []spec.GID
	d.specQ[victim], batch = d.specQ[victim].Steal(srn)
	want := uint64(0)
	if len(batch) > 0 {
		want = uint64(batch[len(batch)-1])
		d.specQ[thief], _ = d.specQ[thief].PutBatch(batch[:len(batch)-1])
	}
	if g != want || implID(ig) != want {
		return fmt.Errorf("runqsteal by P%d from P%d (stealRunNext %v) = g%d; impl g%d; spec takes %v and returns the last", thief, victim, srn, g, implID(ig), batch)
	}
	return nil
}

func (d *Diff) drain(r Chooser) error {
	if !d.rt.HasDrain() {
		return errSkip
	}
	p := r.IntN(2)
	got := d.rt.Drain(p)
	igq := d.runqs[p].Drain()
	var want []spec.GID
	d.specQ[p], want = d.specQ[p].Drain()
	if !slices.Equal(got, ids(want)) || !slices.Equal(implIDs(igq.Slice()), ids(want)) {
		return fmt.Errorf("runqdrain on P%d = %v; impl %v; spec %v", p, got, implIDs(igq.Slice()), want)
	}
	return nil
}

func (d *Diff) empty(r Chooser) error {
	p := r.IntN(2)
	got, igot, want := d.rt.Empty(p), d.runqs[p].Empty(), d.specQ[p].Empty()
	if got != want || igot != want {
		return fmt.Errorf("runqempty on P%d = %v; impl %v; spec %v", p, got, igot, want)
	}
	return nil
}

func (d *Diff) globPut(r Chooser) error {
	id := d.newG()
	if r.IntN(2) == 0 && d.rt.HasGlobPutHead() {
		d.rt.GlobPutHead(id)
		d.glob.PutHead(impl.NewG(id))
		d.specG = d.specG.PutHead(spec.GID(id))
		return nil
	}
	d.rt.GlobPut(id)
	d.glob.Put(impl.NewG(id))
	d.specG = d.specG.Put(spec.GID(id))
	return nil
}

// globGet is globrunqget or globrunqgetbatch (1.25+), or, up to 1.24,
// globrunqget(pp, max), which takes a batch and runqputs all but the first
// on pp: impl and spec do the same with GetBatch and Put.
func (d *Diff) globGet(r Chooser) error {
	procs := 1 + r.IntN(4)
	if d.rt.GlobGetLocal() {
		p, max := r.IntN(2), r.IntN(d.cap/2+2)
		// It runqputs under sched.lock: the scheduler calls it with room
		// in the ring, as an overflow would take the lock again.
		if len(d.specQ[p].Ring) > d.cap/2 {
			return errSkip
		}
		g := d.rt.GlobGetInto(p, max, procs)
		n := d.cap / 2
		if max > 0 && max < n {
			n = max
		}
		ig, ibatch := d.glob.GetBatch(int32(n), int32(procs))
		for x := ibatch.Pop(); x != nil; x = ibatch.Pop() {
			d.runqs[p].Put(x, false)
		}
		var want spec.GID
		var batch []spec.GID
		d.specG, want, batch = d.specG.GetBatch(n, procs)
		for _, x := range batch {
			var spill []spec.GID
			d.specQ[p], spill = d.specQ[p].Put(x, false)
			d.specG = d.specG.PutBatch(spill)
		}
		if g != uint64(want) || implID(ig) != uint64(want) {
			return fmt.Errorf("globrunqget(P%d, %d) at gomaxprocs %d = g%d; impl g%d; spec g%d then %v to P%d", p, max, procs, g, implID(ig), want, batch, p)
		}
		return nil
	}
	if r.IntN(2) == 0 {
		g := d.rt.GlobGet()
		ig := d.glob.Get()
		var want spec.GID
		d.specG, want = d.specG.Get()
		if g != uint64(want) || implID(ig) != uint64(want) {
			return fmt.Errorf("globrunqget = g%d; impl g%d; spec g%d", g, implID(ig), want)
		}
		return nil
	}
	n := r.IntN(d.cap/2 + 2)
	g, batch := d.rt.GlobGetBatch(n, procs)
	ig, ibatch := d.glob.GetBatch(int32(n), int32(procs))
	var want spec.GID
	var wantBatch []spec.GID
	d.specG, want, wantBatch = d.specG.GetBatch(n, procs)
	if g != uint64(want) || !slices.Equal(batch, ids(wantBatch)) || implID(ig) != uint64(want) || !slices.Equal(implIDs(ibatch.Slice()), ids(wantBatch)) {
		return fmt.Errorf("globrunqgetbatch(%d) at gomaxprocs %d = g%d %v; impl g%d %v; spec g%d %v", n, procs, g, batch, implID(ig), implIDs(ibatch.Slice()), want, wantBatch)
	}
	// The batch goes to the caller's P, as findRunnable does.
	p := r.IntN(2)
	for _, id := range batch {
		d.rt.Put(p, id, false)
		d.runqs[p].Put(impl.NewG(id), false)
		var spill []spec.GID
		d.specQ[p], spill = d.specQ[p].Put(spec.GID(id), false)
		d.specG = d.specG.PutBatch(spill)
	}
	return nil
}

// Check compares the contents of every queue in the three.
func (d *Diff) Check() error {
	for p := range d.runqs {
		next, ring := d.rt.Contents(p)
		inext, iring := d.runqs[p].Contents()
		want := d.specQ[p]
		if next != uint64(want.RunNext) || !slices.Equal(ring, ids(want.Ring)) {
			return fmt.Errorf("contents of P%d: runnext g%d ring %v; spec %v", p, next, ring, want)
		}
		if implID(inext) != uint64(want.RunNext) || !slices.Equal(implIDs(iring), ids(want.Ring)) {
			return fmt.Errorf("contents of impl's P%d: runnext g%d ring %v; spec %v", p, implID(inext), implIDs(iring), want)
		}
	}
	gs, size := d.rt.GlobContents()
	if !slices.Equal(gs, ids(d.specG.Gs)) || size != len(gs) {
		return fmt.Errorf("global queue: %v (recorded size %d); spec %v", gs, size, d.specG.Gs)
	}
	if igs := implIDs(d.glob.Contents()); !slices.Equal(igs, ids(d.specG.Gs)) {
		return fmt.Errorf("impl's global queue: %v; spec %v", igs, d.specG.Gs)
	}
	return nil
}

// DiffResult sums a differential run.
type DiffResult struct {
	Seqs, Steps int
	Ops         map[string]int
}

// RunDiff runs seqs random sequences of steps operations each, from seed,
// and returns the first disagreement.
func RunDiff(ctx context.Context, rt Queues, seqs, steps int, seed uint64) (res DiffResult, err error) {
	res.Ops = map[string]int{}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	for s := range seqs {
		if ctx.Err() != nil {
			return res, fmt.Errorf("after %d sequences: %w", s, ctx.Err())
		}
		d, err := NewDiff(rt)
		if err != nil {
			return res, err
		}
		r := rand.New(rand.NewPCG(seed, uint64(s)))
		for i := range steps {
			name, err := d.Step(r)
			res.Steps++
			if err != nil {
				return res, fmt.Errorf("capacity %d, sequence %d (seed %d), step %d (%s): %w", rt.Cap(), s, seed, i, name, err)
			}
		}
		for k, v := range d.Ops {
			res.Ops[k] += v
		}
		res.Seqs++
	}
	return res, nil
}
