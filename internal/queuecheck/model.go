package queuecheck

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Model drives two Ps' local run queues and the global queue of the real
// implementation, one operation at a time, next to spec/'s values. Every
// action compares the implementation's results with the spec's, and Check
// compares the full contents of every queue.
type Model struct {
	cap    int
	glob   *impl.GlobalRunq
	runqs  [2]*impl.Runq
	nextID spec.GID

	specQ    [2]spec.LocalQueue
	specGlob spec.GlobalQueue
}

// ErrSkip is returned by an action whose precondition does not hold in the
// current state; it did nothing.
var ErrSkip = errors.New("action not enabled")

// NewModel returns a model with empty queues of the given capacity.
func NewModel(capacity int) (*Model, error) {
	m := &Model{cap: capacity, glob: impl.NewGlobalRunq()}
	for i := range m.runqs {
		q, err := impl.NewRunq(capacity, m.glob)
		if err != nil {
			return nil, err
		}
		m.runqs[i] = q
		m.specQ[i] = spec.NewLocalQueue(capacity)
	}
	return m, nil
}

// Action is one named model step.
type Action struct {
	Name string
	Run  func(m *Model, src Source) error
}

// Actions lists the model's steps. A front end picks among them with its
// own Source and calls Check after each.
var Actions = []Action{
	{"put", (*Model).put},
	{"putBurst", (*Model).putBurst},
	{"putBatch", (*Model).putBatch},
	{"get", (*Model).get},
	{"steal", (*Model).steal},
	{"drain", (*Model).drain},
	{"empty", (*Model).empty},
	{"globPut", (*Model).globPut},
	{"globGet", (*Model).globGet},
	{"globGetBatch", (*Model).globGetBatch},
}

// Step picks an action with src, runs it and checks the contents after it.
// It returns ErrSkip if the chosen action was not enabled.
func (m *Model) Step(src Source) (name string, err error) {
	a := Actions[src.IntRange(0, len(Actions)-1, "action")]
	if err := a.Run(m, src); err != nil {
		return a.Name, err
	}
	return a.Name, m.Check()
}

func (m *Model) newG() (*impl.G, spec.GID) {
	m.nextID++
	return impl.NewG(uint64(m.nextID)), m.nextID
}

func gid(g *impl.G) spec.GID {
	if g == nil {
		return spec.NoG
	}
	return spec.GID(g.ID())
}

func gids(gs []*impl.G) []spec.GID {
	out := make([]spec.GID, len(gs))
	for i, g := range gs {
		out[i] = gid(g)
	}
	return out
}

func (m *Model) pickP(src Source) int { return src.IntRange(0, 1, "p") }

func (m *Model) putOne(p int, next bool) {
	g, id := m.newG()
	m.runqs[p].Put(g, next)
	var spill []spec.GID
	m.specQ[p], spill = m.specQ[p].Put(id, next)
	m.specGlob = m.specGlob.PutBatch(spill)
}

func (m *Model) put(src Source) error {
	m.putOne(m.pickP(src), draw(src, "next"))
	return nil
}

// putBurst fills a ring quickly, so runqputslow is reached even at
// capacity 256 where single puts would rarely get there.
func (m *Model) putBurst(src Source) error {
	p := m.pickP(src)
	for range src.IntRange(1, m.cap+2, "k") {
		m.putOne(p, false)
	}
	return nil
}

func (m *Model) putBatch(src Source) error {
	p := m.pickP(src)
	k := src.IntRange(0, m.cap+2, "k")
	var gq impl.GQueue
	ids := make([]spec.GID, k)
	for i := range k {
		g, id := m.newG()
		gq.PushBack(g)
		ids[i] = id
	}
	m.runqs[p].PutBatch(&gq)
	var rest []spec.GID
	m.specQ[p], rest = m.specQ[p].PutBatch(ids)
	if got := gids(gq.Slice()); !slices.Equal(got, rest) {
		return fmt.Errorf("runqputbatch left %v, spec leaves %v", got, rest)
	}
	// What does not fit goes to the global queue, as findRunnable does.
	m.glob.PutBatch(&gq)
	m.specGlob = m.specGlob.PutBatch(rest)
	return nil
}

func (m *Model) get(src Source) error {
	p := m.pickP(src)
	g, inherit := m.runqs[p].Get()
	var want spec.GID
	var wantInherit bool
	m.specQ[p], want, wantInherit = m.specQ[p].Get()
	if gid(g) != want || inherit != wantInherit {
		return fmt.Errorf("runqget on P%d = g%d, %v; spec g%d, %v", p, gid(g), inherit, want, wantInherit)
	}
	return nil
}

func (m *Model) steal(src Source) error {
	thief := m.pickP(src)
	victim := 1 - thief
	// The scheduler steals only into an almost empty ring; a thief with
	// more than C/2 Gs could overflow, which Steal reports by panicking.
	if len(m.specQ[thief].Ring) > m.cap/2 {
		return ErrSkip
	}
	srn := draw(src, "stealRunNext")
	g := m.runqs[thief].Steal(m.runqs[victim], srn)
	var batch []spec.GID
	m.specQ[victim], batch = m.specQ[victim].Steal(srn)
	if len(batch) == 0 {
		if g != nil {
			return fmt.Errorf("runqsteal by P%d from P%d took %v, spec takes nothing", thief, victim, g)
		}
		return nil
	}
	if gid(g) != batch[len(batch)-1] {
		return fmt.Errorf("runqsteal by P%d from P%d returned g%d; spec's batch is %v and the last one is returned", thief, victim, gid(g), batch)
	}
	m.specQ[thief], _ = m.specQ[thief].PutBatch(batch[:len(batch)-1])
	return nil
}

func (m *Model) drain(src Source) error {
	p := m.pickP(src)
	gq := m.runqs[p].Drain()
	var want []spec.GID
	m.specQ[p], want = m.specQ[p].Drain()
	if got := gids(gq.Slice()); !slices.Equal(got, want) {
		return fmt.Errorf("runqdrain on P%d = %v, spec %v", p, got, want)
	}
	return nil
}

func (m *Model) empty(src Source) error {
	p := m.pickP(src)
	if got, want := m.runqs[p].Empty(), m.specQ[p].Empty(); got != want {
		return fmt.Errorf("runqempty on P%d = %v, spec %v", p, got, want)
	}
	return nil
}

func (m *Model) globPut(src Source) error {
	g, id := m.newG()
	if draw(src, "head") {
		m.glob.PutHead(g)
		m.specGlob = m.specGlob.PutHead(id)
	} else {
		m.glob.Put(g)
		m.specGlob = m.specGlob.Put(id)
	}
	return nil
}

func (m *Model) globGet(Source) error {
	g := m.glob.Get()
	var want spec.GID
	m.specGlob, want = m.specGlob.Get()
	if gid(g) != want {
		return fmt.Errorf("globrunqget = g%d, spec g%d", gid(g), want)
	}
	return nil
}

func (m *Model) globGetBatch(src Source) error {
	n := src.IntRange(0, m.cap/2+1, "n")
	procs := src.IntRange(1, 4, "gomaxprocs")
	g, batch := m.glob.GetBatch(int32(n), int32(procs))
	var want spec.GID
	var wantBatch []spec.GID
	m.specGlob, want, wantBatch = m.specGlob.GetBatch(n, procs)
	if got := gids(batch.Slice()); gid(g) != want || !slices.Equal(got, wantBatch) {
		return fmt.Errorf("globrunqgetbatch(%d, %d) = g%d %v; spec g%d %v", n, procs, gid(g), got, want, wantBatch)
	}
	return nil
}

// Check compares the full contents of every queue with the spec.
func (m *Model) Check() error {
	for p, q := range m.runqs {
		next, ring := q.Contents()
		want := m.specQ[p]
		if gid(next) != want.RunNext || !slices.Equal(gids(ring), want.Ring) {
			return fmt.Errorf("contents of P%d: impl runnext=g%d ring=%v; spec %v", p, gid(next), gids(ring), want)
		}
	}
	if got := gids(m.glob.Contents()); !slices.Equal(got, m.specGlob.Gs) {
		return fmt.Errorf("global queue: impl %v; spec %v", got, m.specGlob.Gs)
	}
	return nil
}
