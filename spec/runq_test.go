package spec

import (
	"testing"

	"pgregory.net/rapid"
)

// The compact queues of State must behave exactly like the reference values
// LocalQueue and GlobalQueue: same Gs, same order, same spills, same batches.
func TestCompactQueuesMatchReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capacity := rapid.SampledFrom([]int{2, 4, 8}).Draw(t, "cap")
		nP := rapid.IntRange(1, MaxPs).Draw(t, "gomaxprocs")
		var s State
		ref := NewLocalQueue(capacity)
		var glob GlobalQueue
		next := GID(1)
		// Gs are recycled by number; the queues never hold more than MaxGs.
		fresh := func() (GID, bool) {
			if ref.Len()+glob.Len() >= MaxGs {
				return NoG, false
			}
			used := map[GID]bool{}
			for _, g := range ref.All() {
				used[g] = true
			}
			for _, g := range glob.Gs {
				used[g] = true
			}
			for i := 0; i < MaxGs; i++ {
				g := (next+GID(i)-1)%MaxGs + 1
				if !used[g] {
					next = g%MaxGs + 1
					return g, true
				}
			}
			return NoG, false
		}
		var buf [MaxCap]GID
		for i := rapid.IntRange(1, 60).Draw(t, "ops"); i > 0; i-- {
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); op {
			case 0: // runqput
				g, ok := fresh()
				if !ok {
					continue
				}
				nextSlot := rapid.Bool().Draw(t, "next")
				var spill []GID
				ref, spill = ref.Put(g, nextSlot)
				glob = glob.PutBatch(spill)
				s.runqput(0, g, nextSlot, capacity)
			case 1: // runqget
				var g GID
				var inh bool
				ref, g, inh = ref.Get()
				g2, inh2 := s.P[0].runqget()
				if g != g2 || inh != inh2 {
					t.Fatalf("runqget: ref %v %v, compact %v %v", g, inh, g2, inh2)
				}
			case 2: // runqsteal
				var batch []GID
				ref, batch = ref.Steal(true)
				n := s.P[0].runqsteal(&buf)
				if !equalGIDs(batch, buf[:n]) {
					t.Fatalf("runqsteal: ref %v, compact %v", batch, buf[:n])
				}
				if s.P[0].stealable() != !ref.Empty() {
					t.Fatalf("stealable disagrees with Empty")
				}
			case 3: // globrunqput
				g, ok := fresh()
				if !ok {
					continue
				}
				glob = glob.Put(g)
				s.globrunqput(g)
			case 4: // globrunqget
				var g GID
				glob, g = glob.Get()
				if g2 := s.globrunqget(); g != g2 {
					t.Fatalf("globrunqget: ref %v, compact %v", g, g2)
				}
			case 5: // globrunqgetbatch + runqputbatch onto an emptied ring
				var g GID
				var batch []GID
				glob, g, batch = glob.GetBatch(capacity/2, nP)
				g2, k := s.globrunqgetbatch(capacity/2, nP, &buf)
				if g != g2 || !equalGIDs(batch, buf[:k]) {
					t.Fatalf("globrunqgetbatch: ref %v %v, compact %v %v", g, batch, g2, buf[:k])
				}
				if g == NoG || len(ref.Ring) != 0 {
					// The scheduler only puts a batch onto an empty ring;
					// otherwise both sides simply drop it.
					continue
				}
				var rest []GID
				ref, rest = ref.PutBatch(batch)
				if ok := s.P[0].runqputbatch(buf[:k], capacity); !ok || len(rest) != 0 {
					t.Fatalf("runqputbatch onto an empty ring: ref rest %v, compact ok %v", rest, ok)
				}
			}
			if got := s.LocalRunq(0, capacity); !got.Equal(ref) {
				t.Fatalf("local queues differ: ref %v, compact %v", ref, got)
			}
			// Len counts runnext too (spec/localqueue.go:57:15, seed
			// 1132: its test negated counted the empty slot instead).
			if n := len(ref.All()); ref.Len() != n {
				t.Fatalf("Len %d of %v, which holds %d Gs", ref.Len(), ref, n)
			}
			if got := s.GlobalQueue(); !got.Equal(glob) {
				t.Fatalf("global queues differ: ref %v, compact %v", glob.Gs, got.Gs)
			}
		}
	})
}

// TestGlobalRunqFullToEmpty fills sched.runq to MaxGs, every G the model
// can have, and drains it by globrunqget and by batches: the queue's array
// is exactly that long, so the full queue is where a clear one slot too far
// would write past it (spec/runq.go:120:27, seed 1138, which the random
// sequences above never reached). Each step must keep the Gs in order and
// the state equal to its key's decoding.
func TestGlobalRunqFullToEmpty(t *testing.T) {
	for _, batch := range []bool{false, true} {
		var s State
		s.nG = MaxGs
		for g := GID(1); g <= MaxGs; g++ {
			s.globrunqput(g)
		}
		var got []GID
		var buf [MaxCap]GID
		for s.Runq.N > 0 {
			if batch {
				g, rest := s.globrunqgetbatch(2, 1, &buf)
				got = append(append(got, g), buf[:rest]...)
			} else {
				got = append(got, s.globrunqget())
			}
			if d := decodeKey(&s, []byte(s.Key())); d != s {
				t.Fatalf("batch=%v: after taking %v, decode(key) differs:\n%v\n%v", batch, got, d, s)
			}
		}
		if len(got) != MaxGs {
			t.Fatalf("batch=%v: took %v", batch, got)
		}
		for i, g := range got {
			if g != GID(i+1) {
				t.Fatalf("batch=%v: took %v, want g1..g%d in order", batch, got, MaxGs)
			}
		}
	}
}

// TestLocalQueueEqual: Equal compares capacity, runnext and ring, each on
// its own (spec/localqueue.go:281:24, seed 1138, made it true for any two
// queues of one capacity; the comparisons above only ever expect true).
func TestLocalQueueEqual(t *testing.T) {
	q := NewLocalQueue(4)
	q, _ = q.Put(1, false)
	q, _ = q.Put(2, true)
	for _, c := range []struct {
		name string
		o    LocalQueue
		want bool
	}{
		{"itself", q, true},
		{"a copy", q.withRing(append([]GID(nil), q.Ring...)), true},
		{"another capacity", LocalQueue{Cap: 8, RunNext: q.RunNext, Ring: q.Ring}, false},
		{"another runnext", LocalQueue{Cap: q.Cap, RunNext: 3, Ring: q.Ring}, false},
		{"another ring", LocalQueue{Cap: q.Cap, RunNext: q.RunNext, Ring: []GID{3}}, false},
		{"empty", NewLocalQueue(4), false},
	} {
		if got := q.Equal(c.o); got != c.want {
			t.Errorf("%s: %v.Equal(%v) = %v, want %v", c.name, q, c.o, got, c.want)
		}
	}
}
