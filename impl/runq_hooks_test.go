//go:build gmpcheck_hooks

package impl

import "testing"

// TestHooksRunqEmptyRecheck replays, through the yield hooks, the interleaving
// runqempty's second read of tail guards against, which real timing almost
// never produces: the reader has read head and tail (ring empty, runnext
// full) when the owner kicks runnext to the ring with a put(next) and takes
// the new runnext. Then the reader sees runnext empty. A G was present all
// along, so Empty must not say true.
func TestHooksRunqEmptyRecheck(t *testing.T) {
	glob := NewGlobalRunq()
	q := mustRunq(t, 4, glob)
	a, b := NewG(1), NewG(2)
	q.Put(a, true) // runnext=a, ring=[]

	// Only the reader reaches runnext's load before it is paused: the
	// owner acts only once the reader is paused.
	atRunnext, resume := pauseFirst(t, q, OpLoadRunnext)
	result := make(chan bool)
	go func() { result <- q.Empty() }()
	<-atRunnext
	q.Put(b, true) // runnext=b, ring=[a]
	if g, _ := q.Get(); g != b {
		t.Fatalf("get = %v, want %v", g, b)
	}
	resume()
	if <-result {
		t.Fatal("runqempty said true while g1 moved from runnext to the ring")
	}
}

// pauseFirst is PauseFirst for tests.
func pauseFirst(t *testing.T, q Yielder, ops ...Op) (reached <-chan struct{}, release func()) {
	t.Helper()
	reached, release, err := PauseFirst(q, ops...)
	if err != nil {
		t.Fatal(err)
	}
	return reached, release
}

// takeAll empties the queues given and counts how often each G id came out.
func takeAll(counts map[uint64]int, qs ...*Runq) {
	for _, q := range qs {
		gq := q.Drain()
		for g := gq.Pop(); g != nil; g = gq.Pop() {
			counts[g.ID()]++
		}
	}
}

func requireOnce(t *testing.T, counts map[uint64]int, ids ...uint64) {
	t.Helper()
	for _, id := range ids {
		if counts[id] != 1 {
			t.Errorf("g%d obtained %d times, want exactly once (all: %v)", id, counts[id], counts)
		}
	}
}

// TestHooksRunqGetCommitRace: the owner's get has read the head slot when a thief
// steals that G. The owner's commit must fail and move on to the next G.
func TestHooksRunqGetCommitRace(t *testing.T) {
	glob := NewGlobalRunq()
	q, thief := mustRunq(t, 4, glob), mustRunq(t, 4, glob)
	q.Put(NewG(1), false)
	q.Put(NewG(2), false)
	reached, release := pauseFirst(t, q, OpCasHead, OpStoreHead)
	got := make(chan *G)
	go func() { g, _ := q.Get(); got <- g }()
	<-reached
	counts := map[uint64]int{}
	if g := thief.Steal(q, false); g != nil {
		counts[g.ID()]++
	}
	release()
	if g := <-got; g != nil {
		counts[g.ID()]++
	}
	takeAll(counts, q, thief)
	requireOnce(t, counts, 1, 2)
}

// TestHooksRunqStealCommitRace: a thief has copied its batch when another thief
// steals the same Gs. The first thief's commit must fail and retry.
func TestHooksRunqStealCommitRace(t *testing.T) {
	glob := NewGlobalRunq()
	q, t1, t2 := mustRunq(t, 4, glob), mustRunq(t, 4, glob), mustRunq(t, 4, glob)
	q.Put(NewG(1), false)
	q.Put(NewG(2), false)
	reached, release := pauseFirst(t, q, OpCasHead, OpStoreHead)
	got := make(chan *G)
	go func() { got <- t1.Steal(q, false) }()
	<-reached
	counts := map[uint64]int{}
	if g := t2.Steal(q, false); g != nil {
		counts[g.ID()]++
	}
	release()
	if g := <-got; g != nil {
		counts[g.ID()]++
	}
	takeAll(counts, q, t1, t2)
	requireOnce(t, counts, 1, 2)
}

// TestHooksRunqPublishRace: a thief steals while the owner's put is between its
// two stores. The thief must either miss the new G or get it, never a slot
// that does not hold it yet.
func TestHooksRunqPublishRace(t *testing.T) {
	glob := NewGlobalRunq()
	q, thief := mustRunq(t, 4, glob), mustRunq(t, 4, glob)
	reached, release := pauseFirst(t, q, OpStoreSlot)
	done := make(chan struct{})
	go func() { q.Put(NewG(1), false); close(done) }()
	<-reached
	counts := map[uint64]int{}
	if g := thief.Steal(q, false); g != nil {
		counts[g.ID()]++
	}
	release()
	<-done
	takeAll(counts, q, thief)
	requireOnce(t, counts, 1)
}
