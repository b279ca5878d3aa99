package linearize

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/gmpcheck/gmpcheck/spec"
)

// seqHistory draws a sequential history whose outputs come from spec's own
// sequential queue operations, with one owner and two thieves taking turns.
func seqHistory(t *rapid.T, capacity int) []porcupine.Operation {
	q := spec.NewLocalQueue(capacity)
	var glob spec.GlobalQueue
	h := &hist{}
	next := spec.GID(1)
	n := rapid.IntRange(1, 60).Draw(t, "ops")
	for range n {
		switch rapid.IntRange(0, 6).Draw(t, "kind") {
		case 0, 1:
			nextQ, spill := q.Put(next, false)
			q, glob = nextQ, glob.PutBatch(spill)
			h.seq(0, put(next))
			next++
		case 2:
			nextQ, spill := q.Put(next, true)
			q, glob = nextQ, glob.PutBatch(spill)
			h.seq(0, putNext(next))
			next++
		case 3:
			var g spec.GID
			var inherit bool
			q, g, inherit = q.Get()
			h.seq(0, get(g, inherit))
		case 4:
			srn := rapid.Bool().Draw(t, "stealRunNext")
			var batch []spec.GID
			q, batch = q.Steal(srn)
			h.seq(rapid.IntRange(1, 2).Draw(t, "thief"), steal(srn, batch...))
		case 5:
			var all []spec.GID
			q, all = q.Drain()
			h.seq(0, drain(all...))
		case 6:
			if rapid.Bool().Draw(t, "global") {
				var g spec.GID
				glob, g = glob.Get()
				h.seq(rapid.IntRange(0, 2).Draw(t, "client"), globGet(g))
			} else {
				h.seq(rapid.IntRange(0, 2).Draw(t, "client"), empty(q.Empty()))
			}
		}
	}
	return h.ops
}

// TestSequentialHistoriesOk: a sequential history that follows spec is
// linearizable; changing one obtained G to a G never put makes it Illegal.
func TestSequentialHistoriesOk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capacity := rapid.SampledFrom([]int{2, 4, 8}).Draw(t, "capacity")
		h := seqHistory(t, capacity)
		chk, err := NewChecker(capacity)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := chk.Check(h, 0); err != nil || res != porcupine.Ok {
			t.Fatalf("sequential spec history: %v %v\n%s", res, err, formatHistory(h))
		}
		var takes []int
		for i, op := range h {
			switch op.Input.(Input).Kind {
			case KindGet, KindGlobGet, KindSteal, KindDrain:
				takes = append(takes, i)
			}
		}
		if len(takes) == 0 {
			return
		}
		i := rapid.SampledFrom(takes).Draw(t, "mutate")
		out := h[i].Output.(Output)
		const stranger = spec.GID(1 << 20)
		if len(out.Gs) > 0 {
			out.Gs = append([]spec.GID(nil), out.Gs...)
			out.Gs[rapid.IntRange(0, len(out.Gs)-1).Draw(t, "at")] = stranger
		} else {
			out.G, out.Gs = stranger, []spec.GID{stranger}
		}
		mut := append([]porcupine.Operation(nil), h...)
		mut[i].Output = out
		if res, _ := chk.Check(mut, 0); res != porcupine.Illegal {
			t.Fatalf("a G never put was obtained, yet %v\n%s", res, formatHistory(mut))
		}
	})
}

// TestStateHashAgreesWithEqual: Equal states hash equally, whatever
// storage their slices have and in whatever order a State lists them
// (porcupine's visited cache relies on it), and unequal ones usually differ.
func TestStateHashAgreesWithEqual(t *testing.T) {
	small := rapid.Custom(func(t *rapid.T) spec.GID { return spec.GID(rapid.IntRange(0, 2).Draw(t, "g")) })
	nonzero := rapid.Custom(func(t *rapid.T) spec.GID { return spec.GID(rapid.IntRange(1, 2).Draw(t, "g")) })
	gen := func(t *rapid.T, label string) *Queues {
		q := &Queues{Local: spec.NewLocalQueue(4)}
		q.Local.RunNext = small.Draw(t, label+"runnext")
		q.Local.Ring = rapid.SliceOfN(nonzero, 0, 2).Draw(t, label+"ring")
		q.Global.Gs = rapid.SliceOfN(nonzero, 0, 1).Draw(t, label+"glob")
		if rapid.Bool().Draw(t, label+"inflight") {
			q.Kicked, q.KickedBy = small.Draw(t, label+"kicked"), int64(rapid.IntRange(0, 1).Draw(t, label+"by"))
			q.Transit = rapid.SliceOfN(nonzero, 0, 1).Draw(t, label+"transit")
		}
		return q
	}
	var equalPairs, distinct int
	rapid.Check(t, func(t *rapid.T) {
		a, b := gen(t, "a"), gen(t, "b")
		c := *a // the same state in other storage, with spare capacity
		c.Local.Ring = append(make([]spec.GID, 0, 8), a.Local.Ring...)
		c.Global.Gs = append(make([]spec.GID, 0, 8), a.Global.Gs...)
		c.Transit = append([]spec.GID{}, a.Transit...)
		if !a.equal(&c) || a.hash() != c.hash() {
			t.Fatalf("a copy of %v is not equal or hashes differently", a)
		}
		if a.equal(b) {
			equalPairs++
			if a.hash() != b.hash() {
				t.Fatalf("equal states %v and %v hash differently", a, b)
			}
			return
		}
		if a.hash() != b.hash() {
			distinct++
		}
		ab, ba := State{a, b}, State{b, a}
		if !ab.equal(ba) || ab.hash() != ba.hash() {
			t.Fatalf("the order of a State's members matters: %v / %v", ab, ba)
		}
		if ab.equal(State{a}) || ab.equal(State{a, a}) {
			t.Fatalf("sets of different members are equal: %v", ab)
		}
	})
	if distinct == 0 {
		t.Fatalf("the generator drew no two states with different hashes (%d equal pairs): it tests nothing", equalPairs)
	}
}
