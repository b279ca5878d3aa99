package impl

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"pgregory.net/rapid"
)

// queueModel drives two Ps' local queues and the global queue of the real
// implementation sequentially, next to the spec's values, and compares every
// result and the full contents after every action.
type queueModel struct {
	cap    int
	glob   *GlobalRunq
	runqs  [2]*Runq
	gs     map[spec.GID]*G
	nextID spec.GID

	specQ    [2]spec.LocalQueue
	specGlob spec.GlobalQueue
}

func newQueueModel(t *rapid.T, capacity int) *queueModel {
	m := &queueModel{cap: capacity, glob: NewGlobalRunq(), gs: map[spec.GID]*G{}}
	for i := range m.runqs {
		q, err := NewRunq(capacity, m.glob)
		if err != nil {
			t.Fatal(err)
		}
		m.runqs[i] = q
		m.specQ[i] = spec.NewLocalQueue(capacity)
	}
	return m
}

func (m *queueModel) newG() (*G, spec.GID) {
	m.nextID++
	g := NewG(uint64(m.nextID))
	m.gs[m.nextID] = g
	return g, m.nextID
}

func gid(g *G) spec.GID {
	if g == nil {
		return spec.NoG
	}
	return spec.GID(g.ID())
}

func gids(gs []*G) []spec.GID {
	out := make([]spec.GID, len(gs))
	for i, g := range gs {
		out[i] = gid(g)
	}
	return out
}

func (m *queueModel) put(t *rapid.T, p int, next bool) {
	g, id := m.newG()
	m.runqs[p].Put(g, next)
	var spill []spec.GID
	m.specQ[p], spill = m.specQ[p].Put(id, next)
	m.specGlob = m.specGlob.PutBatch(spill)
}

func (m *queueModel) actions() map[string]func(*rapid.T) {
	pick := func(t *rapid.T) int { return rapid.IntRange(0, 1).Draw(t, "p") }
	return map[string]func(*rapid.T){
		"put": func(t *rapid.T) {
			m.put(t, pick(t), rapid.Bool().Draw(t, "next"))
		},
		// A burst of puts reaches a full ring (and runqputslow) even at
		// capacity 256, where single puts would rarely get there.
		"putBurst": func(t *rapid.T) {
			p := pick(t)
			k := rapid.IntRange(1, m.cap+2).Draw(t, "k")
			for range k {
				m.put(t, p, false)
			}
		},
		"putBatch": func(t *rapid.T) {
			p := pick(t)
			k := rapid.IntRange(0, m.cap+2).Draw(t, "k")
			var gq GQueue
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
				t.Fatalf("runqputbatch left %v, spec leaves %v", got, rest)
			}
			// As findRunnable does with what does not fit.
			m.glob.PutBatch(&gq)
			m.specGlob = m.specGlob.PutBatch(rest)
		},
		"get": func(t *rapid.T) {
			p := pick(t)
			g, inherit := m.runqs[p].Get()
			var want spec.GID
			var wantInherit bool
			m.specQ[p], want, wantInherit = m.specQ[p].Get()
			if gid(g) != want || inherit != wantInherit {
				t.Fatalf("runqget = %v, %v; spec %v, %v", gid(g), inherit, want, wantInherit)
			}
		},
		"steal": func(t *rapid.T) {
			thief := pick(t)
			victim := 1 - thief
			// The scheduler steals only into an almost empty ring; a
			// thief with more than C/2 Gs could overflow, which Steal
			// reports by panicking (tested separately).
			if len(m.specQ[thief].Ring) > m.cap/2 {
				t.Skip("thief's ring too full to steal into")
			}
			srn := rapid.Bool().Draw(t, "stealRunNext")
			g := m.runqs[thief].Steal(m.runqs[victim], srn)
			var batch []spec.GID
			m.specQ[victim], batch = m.specQ[victim].Steal(srn)
			if len(batch) == 0 {
				if g != nil {
					t.Fatalf("runqsteal took %v, spec takes nothing", g)
				}
				return
			}
			if gid(g) != batch[len(batch)-1] {
				t.Fatalf("runqsteal returned %v, spec's batch is %v (returns its last)", gid(g), batch)
			}
			m.specQ[thief], _ = m.specQ[thief].PutBatch(batch[:len(batch)-1])
		},
		"drain": func(t *rapid.T) {
			p := pick(t)
			gq := m.runqs[p].Drain()
			var want []spec.GID
			m.specQ[p], want = m.specQ[p].Drain()
			if got := gids(gq.Slice()); !slices.Equal(got, want) {
				t.Fatalf("runqdrain = %v, spec %v", got, want)
			}
		},
		"empty": func(t *rapid.T) {
			p := pick(t)
			if got, want := m.runqs[p].Empty(), m.specQ[p].Empty(); got != want {
				t.Fatalf("runqempty = %v, spec %v", got, want)
			}
		},
		"globPut": func(t *rapid.T) {
			g, id := m.newG()
			if rapid.Bool().Draw(t, "head") {
				m.glob.PutHead(g)
				m.specGlob = m.specGlob.PutHead(id)
			} else {
				m.glob.Put(g)
				m.specGlob = m.specGlob.Put(id)
			}
		},
		"globGet": func(t *rapid.T) {
			g := m.glob.Get()
			var want spec.GID
			m.specGlob, want = m.specGlob.Get()
			if gid(g) != want {
				t.Fatalf("globrunqget = %v, spec %v", gid(g), want)
			}
		},
		"globGetBatch": func(t *rapid.T) {
			n := rapid.IntRange(0, m.cap/2+1).Draw(t, "n")
			procs := rapid.IntRange(1, 4).Draw(t, "gomaxprocs")
			g, batch := m.glob.GetBatch(int32(n), int32(procs))
			var want spec.GID
			var wantBatch []spec.GID
			m.specGlob, want, wantBatch = m.specGlob.GetBatch(n, procs)
			if gid(g) != want || !slices.Equal(gids(batch.Slice()), wantBatch) {
				t.Fatalf("globrunqgetbatch(%d, %d) = %v %v; spec %v %v", n, procs, gid(g), gids(batch.Slice()), want, wantBatch)
			}
		},
		"": m.check,
	}
}

// check compares the full contents of every queue with the spec.
func (m *queueModel) check(t *rapid.T) {
	for p, q := range m.runqs {
		next, ring := q.Contents()
		want := m.specQ[p]
		if gid(next) != want.RunNext || !slices.Equal(gids(ring), want.Ring) {
			t.Fatalf("P%d: impl runnext=%v ring=%v; spec %v", p, gid(next), gids(ring), want)
		}
	}
	if got := gids(m.glob.Contents()); !slices.Equal(got, m.specGlob.Gs) {
		t.Fatalf("global queue: impl %v; spec %v", got, m.specGlob.Gs)
	}
}

// TestRunqMatchesSpec is the rapid state machine of the foundation: the
// real queues, driven one operation at a time, must agree with spec/ on
// every return value and on their whole contents.
func TestRunqMatchesSpec(t *testing.T) {
	for _, c := range []int{2, 4, 8, 256} {
		t.Run(fmt.Sprintf("cap%d", c), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				t.Repeat(newQueueModel(t, c).actions())
			})
		})
	}
}
