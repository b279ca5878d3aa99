package bughist

import (
	"context"
	"sync"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Searches asked for at once with the same key are one search: every
// caller gets its result, and the cache holds one entry (run under -race
// too, where the techniques' goroutines share it).
func TestExploreShared(t *testing.T) {
	k := exploreKey{b: smallBounds(spec.Go119, 1)}
	k.b.Spawn = 0 // a bound no other test explores, so the search is this test's
	var wg sync.WaitGroup
	got := make([]spec.Result, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := exploreWith(context.Background(), k)
			if err != nil {
				t.Error(err)
			}
			got[i] = r
		}()
	}
	wg.Wait()
	for i, r := range got {
		if r.Distinct == 0 || r.Distinct != got[0].Distinct || r.Verdict() != got[0].Verdict() {
			t.Errorf("caller %d: %v, caller 0: %v", i, r, got[0])
		}
	}
	explored.Lock()
	x := explored.m[k]
	explored.Unlock()
	if x == nil || !x.conclusive() {
		t.Errorf("the search is not kept: %v", x)
	}
}

// A caller whose context ends while it waits for another's search gets an
// incomplete result (the techniques' "inconclusive"), never a pass; once
// that search ends cut short, the next caller searches itself.
func TestExploreWaitCutShort(t *testing.T) {
	va := &Variant{Go: spec.Go119, Explore: smallBounds(spec.Go119, 1), Kind: spec.KindWorkConservation}
	va.Explore.Cap = 4 // a bound of this test's own
	k := exploreKey{b: va.Explore}
	x := &exploration{done: make(chan struct{})}
	explored.Lock()
	if explored.m == nil {
		explored.m = map[exploreKey]*exploration{}
	}
	explored.m[k] = x
	explored.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := exploreWith(ctx, k)
	if err != nil || r.Complete || r.Violation != nil {
		t.Fatalf("a wait cut short gave %v, %v; want an incomplete result", r, err)
	}
	if tr := runExplore(ctx, va); tr.Verdict != Inconclusive {
		t.Errorf("the explore technique waiting on it: %v (%s), want inconclusive", tr.Verdict, tr.Detail)
	}
	// The search under way ends cut short, and its owner drops it.
	explored.Lock()
	delete(explored.m, k)
	explored.Unlock()
	close(x.done)
	r, err = exploreWith(context.Background(), k)
	if err != nil || !r.Complete {
		t.Fatalf("after the other search was cut short: %v, %v; want a search of its own", r, err)
	}
}
