package impl

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var testCaps = []int{2, 4, 8, 256}

func mustRunq(t testing.TB, c int, glob *GlobalRunq) *Runq {
	t.Helper()
	q, err := NewRunq(c, glob)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestNewRunqRejectsBadCapacity(t *testing.T) {
	glob := NewGlobalRunq()
	for _, c := range []int{-4, 0, 1, 3, 6, 100, 512, 1 << 20} {
		if q, err := NewRunq(c, glob); err == nil || q != nil {
			t.Errorf("NewRunq(%d) = %v, %v; want an error", c, q, err)
		} else if !strings.Contains(err.Error(), "power of two") {
			t.Errorf("NewRunq(%d) error %q does not say what is wanted", c, err)
		}
	}
	for _, c := range []int{2, 4, 8, 16, 32, 64, 128, 256} {
		if _, err := NewRunq(c, glob); err != nil {
			t.Errorf("NewRunq(%d): %v", c, err)
		}
	}
	if _, err := NewRunq(8, nil); err == nil {
		t.Error("NewRunq with a nil global queue succeeded")
	}
}

func TestNilGRejected(t *testing.T) {
	glob := NewGlobalRunq()
	q := mustRunq(t, 4, glob)
	for name, f := range map[string]func(){
		"runqput":         func() { q.Put(nil, false) },
		"runqput next":    func() { q.Put(nil, true) },
		"globrunqput":     func() { glob.Put(nil) },
		"globrunqputhead": func() { glob.PutHead(nil) },
		"GQueue.PushBack": func() { var gq GQueue; gq.PushBack(nil) },
	} {
		msg := catchPanic(f)
		if !strings.Contains(msg, "nil *G") {
			t.Errorf("%s(nil): panic %q, want one naming the nil *G", name, msg)
		}
	}
}

func catchPanic(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// TestRunqPutGetWrap puts i Gs and gets them back for every i below the
// capacity, again and again, so head and tail wrap the ring many times at
// every offset. Order must be FIFO and the queue must end empty.
func TestRunqPutGetWrap(t *testing.T) {
	for _, c := range testCaps {
		glob := NewGlobalRunq()
		q := mustRunq(t, c, glob)
		gs := make([]*G, c)
		for i := range gs {
			gs[i] = NewG(uint64(i + 1))
		}
		for iter := range 5 {
			for i := range c {
				for j := range i {
					q.Put(gs[j], false)
				}
				for j := range i {
					if g, inherit := q.Get(); g != gs[j] || inherit {
						t.Fatalf("cap %d iter %d: put %d, get #%d = %v, %v; want %v, false", c, iter, i, j, g, inherit, gs[j])
					}
				}
				if g, _ := q.Get(); g != nil {
					t.Fatalf("cap %d: get on an empty queue = %v", c, g)
				}
				if !q.Empty() {
					t.Fatalf("cap %d: queue not empty after taking everything", c)
				}
			}
		}
		if glob.Len() != 0 {
			t.Fatalf("cap %d: %d Gs overflowed though the ring was never full", c, glob.Len())
		}
	}
}

// TestRunqStealHalf puts i distinct Gs on a victim and steals once, for
// every i up to the capacity: every G must be obtained exactly once (by the
// steal or by draining the victim afterwards) and the steal must take i/2 or
// i/2+1 of them (ceil(i/2) when nothing races it).
func TestRunqStealHalf(t *testing.T) {
	for _, c := range testCaps {
		for i := 0; i <= c; i++ {
			glob := NewGlobalRunq()
			victim, thief := mustRunq(t, c, glob), mustRunq(t, c, glob)
			for j := range i {
				victim.Put(NewG(uint64(j+1)), false)
			}
			seen := make([]int, i+1)
			stolen := 0
			if g := thief.Steal(victim, false); g != nil {
				seen[g.ID()]++
				stolen++
				for g, _ := thief.Get(); g != nil; g, _ = thief.Get() {
					seen[g.ID()]++
					stolen++
				}
			}
			for g, _ := victim.Get(); g != nil; g, _ = victim.Get() {
				seen[g.ID()]++
			}
			for id := 1; id <= i; id++ {
				if seen[id] != 1 {
					t.Fatalf("cap %d, %d Gs: g%d obtained %d times", c, i, id, seen[id])
				}
			}
			if stolen != i/2 && stolen != i/2+1 {
				t.Fatalf("cap %d, %d Gs: stole %d, want %d or %d", c, i, stolen, i/2, i/2+1)
			}
			if i > 0 && stolen == 0 {
				t.Fatalf("cap %d, %d Gs: a steal from a non-empty ring took nothing", c, i)
			}
		}
	}
}

func TestRunqStealRunnext(t *testing.T) {
	glob := NewGlobalRunq()
	victim, thief := mustRunq(t, 4, glob), mustRunq(t, 4, glob)
	g1 := NewG(1)
	victim.Put(g1, true)
	if g := thief.Steal(victim, false); g != nil {
		t.Fatalf("steal without stealRunNext took runnext %v", g)
	}
	backoffs := 0
	victim.SetStealBackoff(func() { backoffs++ })
	if g := thief.Steal(victim, true); g != g1 {
		t.Fatalf("steal with stealRunNext = %v, want %v", g, g1)
	}
	if backoffs != 1 {
		t.Fatalf("steal backoff ran %d times, want 1", backoffs)
	}
	if !victim.Empty() {
		t.Fatal("victim not empty after its runnext was stolen")
	}
	// With Gs in the ring, the ring is stolen and runnext stays.
	g2, g3 := NewG(2), NewG(3)
	victim.Put(g1, true)
	victim.Put(g2, false)
	victim.Put(g3, false)
	if g := thief.Steal(victim, true); g != g2 {
		t.Fatalf("steal = %v, want the ring's %v", g, g2)
	}
	if next, ring := victim.Contents(); next != g1 || len(ring) != 1 || ring[0] != g3 {
		t.Fatalf("victim after steal: runnext %v ring %v", next, ring)
	}
}

// TestRunqStealOverflow: a thief whose own ring is too full to take half a
// victim's ring stops the world, as the runtime throws.
func TestRunqStealOverflow(t *testing.T) {
	glob := NewGlobalRunq()
	victim, thief := mustRunq(t, 4, glob), mustRunq(t, 4, glob)
	for i := range 4 {
		victim.Put(NewG(uint64(i+1)), false)
		thief.Put(NewG(uint64(i+11)), false)
	}
	if msg := catchPanic(func() { thief.Steal(victim, false) }); msg != "runqsteal: runq overflow" {
		t.Fatalf("steal into a full ring: panic %q", msg)
	}
	if msg := catchPanic(func() { thief.Steal(thief, false) }); !strings.Contains(msg, "itself") {
		t.Fatalf("self-steal: panic %q", msg)
	}
	other := mustRunq(t, 8, glob)
	if msg := catchPanic(func() { thief.Steal(other, false) }); !strings.Contains(msg, "capacity") {
		t.Fatalf("steal across capacities: panic %q", msg)
	}
}

func TestRunqPutSlowSpillsHalf(t *testing.T) {
	for _, c := range testCaps {
		glob := NewGlobalRunq()
		q := mustRunq(t, c, glob)
		for i := range c + 1 {
			q.Put(NewG(uint64(i+1)), false)
		}
		got := glob.Contents()
		if len(got) != c/2+1 {
			t.Fatalf("cap %d: spilled %d Gs, want %d", c, len(got), c/2+1)
		}
		for i, g := range got[:c/2] {
			if g.ID() != uint64(i+1) {
				t.Fatalf("cap %d: spill[%d] = %v, want the ring's head half in order", c, i, g)
			}
		}
		if last := got[c/2]; last.ID() != uint64(c+1) {
			t.Fatalf("cap %d: spill ends with %v, want the G being put", c, last)
		}
	}
}

// TestRunqEmptyNeverSpurious runs a reader calling Empty while the owner
// keeps at least one G in its queue at every instant; Empty must never say
// true. The runnext variant moves a G between runnext and the ring, which is
// the case runqempty's second read of tail exists for: the owner kicks the
// runnext G to the ring with a put(next) and then takes the new runnext,
// then moves the ring's G out by stealing it into a side queue.
func TestRunqEmptyNeverSpurious(t *testing.T) {
	const iters = 100_000
	for _, withRunnext := range []bool{false, true} {
		t.Run(fmt.Sprintf("runnext=%v", withRunnext), func(t *testing.T) {
			glob := NewGlobalRunq()
			q, side := mustRunq(t, 4, glob), mustRunq(t, 4, glob)
			a, b := NewG(1), NewG(2)
			var stop atomic.Bool
			var spurious atomic.Int64
			// The first G goes in before the reader starts: a reader
			// scheduled ahead of it would see a queue that really is empty.
			if withRunnext {
				q.Put(a, true)
			} else {
				q.Put(a, false)
			}
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					if q.Empty() {
						spurious.Add(1)
					}
				}
			}()
			if withRunnext {
				for range iters {
					// runnext=a, ring=[]
					q.Put(b, true) // runnext=b, ring=[a]
					if g, _ := q.Get(); g != b {
						t.Fatalf("get = %v, want %v", g, b)
					}
					q.Put(b, true) // runnext=b, ring=[a]
					if g := side.Steal(q, false); g != a {
						t.Fatalf("side steal = %v, want %v", g, a)
					}
					a, b = b, a // runnext=a, ring=[]
				}
			} else {
				for range iters {
					q.Put(b, false) // ring=[a b]
					if g, _ := q.Get(); g != a {
						t.Fatalf("get = %v, want %v", g, a)
					}
					a, b = b, a
				}
			}
			stop.Store(true)
			wg.Wait()
			if n := spurious.Load(); n > 0 {
				t.Fatalf("runqempty said true %d times while a G was present", n)
			}
		})
	}
}

func TestGlobalRunqGetBatch(t *testing.T) {
	tests := []struct {
		size, n, procs int32
		want           int // Gs taken: the one returned plus the batch
	}{
		{0, 4, 1, 0},
		{1, 4, 1, 1},
		{10, 4, 1, 4},    // capped by n
		{10, 128, 1, 10}, // capped by size
		{10, 128, 4, 3},  // fair share: 10/4+1
		{3, 128, 8, 1},   // 3/8+1
		{10, 0, 1, 1},    // n <= 0 still takes the head
	}
	for _, tt := range tests {
		glob := NewGlobalRunq()
		for i := range tt.size {
			glob.Put(NewG(uint64(i + 1)))
		}
		g, batch := glob.GetBatch(tt.n, tt.procs)
		taken := batch.Len()
		if g != nil {
			taken++
			if g.ID() != 1 {
				t.Errorf("%+v: returned %v, want the head g1", tt, g)
			}
		}
		if taken != tt.want {
			t.Errorf("%+v: took %d, want %d", tt, taken, tt.want)
		}
		if glob.Len() != int(tt.size)-taken {
			t.Errorf("%+v: %d left, want %d", tt, glob.Len(), int(tt.size)-taken)
		}
	}
}
