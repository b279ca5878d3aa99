package impl

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// stressOps is the number of owner operations in each stress
// configuration; the thieves' steals come on top.
const stressOps = 1_000_000

// TestRunqStressConservation runs one owner (put, put next, get, with
// occasional takes from the global queue) against 1..3 thieves on a small
// ring that overflows to the global queue, then takes whatever is left.
// Every G put must be taken exactly once: by the owner, by a thief, or from
// the global queue. A duplicate shows a broken CAS; a loss shows a broken
// overflow or publication.
func TestRunqStressConservation(t *testing.T) {
	for _, c := range []int{4, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			t.Run(fmt.Sprintf("cap%d/thieves%d", c, thieves), func(t *testing.T) {
				stressConservation(t, c, thieves, stressOps)
			})
		}
	}
}

func stressConservation(t *testing.T, c, nthieves, ownerOps int) {
	glob := NewGlobalRunq()
	owner := mustRunq(t, c, glob)
	// taken[id] counts how many times G id was taken, by anyone.
	taken := make([]atomic.Int32, ownerOps+1)
	take := func(g *G) {
		if g == nil {
			return
		}
		if n := taken[g.ID()].Add(1); n != 1 {
			panic(fmt.Sprintf("%v taken %d times", g, n))
		}
	}
	var (
		stop       atomic.Bool
		wg         sync.WaitGroup
		thiefTakes atomic.Int64
		failure    atomic.Value
	)
	guard := func() {
		if r := recover(); r != nil {
			failure.CompareAndSwap(nil, fmt.Sprint(r))
			stop.Store(true)
		}
	}
	for i := range nthieves {
		thief := mustRunq(t, c, glob)
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			defer guard()
			rng := rand.New(rand.NewPCG(seed, 1))
			for !stop.Load() {
				g := thief.Steal(owner, rng.IntN(4) == 0)
				if g == nil {
					continue
				}
				take(g)
				thiefTakes.Add(1)
				for g, _ := thief.Get(); g != nil; g, _ = thief.Get() {
					take(g)
					thiefTakes.Add(1)
				}
			}
		}(uint64(i))
	}

	func() {
		defer guard()
		rng := rand.New(rand.NewPCG(42, uint64(c*10+nthieves)))
		id := uint64(0)
		for op := 0; op < ownerOps && !stop.Load(); op++ {
			switch r := rng.IntN(16); {
			case r < 8:
				id++
				owner.Put(NewG(id), r < 3)
			case r < 15:
				g, _ := owner.Get()
				take(g)
			default:
				take(glob.Get())
			}
		}
		stop.Store(true)
		wg.Wait()
		// Quiescent now: take everything left.
		gq := owner.Drain()
		for g := gq.Pop(); g != nil; g = gq.Pop() {
			take(g)
		}
		for g := glob.Get(); g != nil; g = glob.Get() {
			take(g)
		}
		for i := uint64(1); i <= id; i++ {
			if n := taken[i].Load(); n != 1 {
				panic(fmt.Sprintf("g%d taken %d times (of %d put)", i, n, id))
			}
		}
	}()
	if f := failure.Load(); f != nil {
		t.Fatal(f)
	}
	if thiefTakes.Load() == 0 {
		t.Fatal("no thief ever took a G: the stress exercised nothing concurrent")
	}
}
