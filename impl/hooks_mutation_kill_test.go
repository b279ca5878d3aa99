//go:build gmpcheck_hooks

package impl

import "testing"

// TestMutationKillHooksGrabInconsistentRead kills impl/runq.go's runqgrab
// without its "n > size/2: inconsistent read, retry" guard. The thief reads
// the victim's head, then the owner takes both its Gs and fills the ring,
// then the thief reads tail: t-h is 6 on a ring of 4. Without the guard the
// thief copies 3 slots into its own ring from its tail on, wrapping onto
// its own live Gs, before the CAS that fails; its own G is lost. With the
// guard it re-reads and steals half of the ring, and every G is somewhere
// exactly once.
func TestMutationKillHooksGrabInconsistentRead(t *testing.T) {
	glob := NewGlobalRunq()
	victim, thief := mustRunq(t, 4, glob), mustRunq(t, 4, glob)
	victim.Put(NewG(1), false)
	victim.Put(NewG(2), false)
	thief.Put(NewG(7), false)
	thief.Put(NewG(8), false)
	reached, release := pauseFirst(t, victim, OpLoadTail)
	got := make(chan *G)
	go func() { got <- thief.Steal(victim, false) }()
	<-reached // the thief has read head = 0
	counts := map[uint64]int{}
	for range 2 {
		if g, _ := victim.Get(); g != nil {
			counts[g.ID()]++
		}
	}
	for id := uint64(3); id <= 6; id++ {
		victim.Put(NewG(id), false)
	}
	release()
	if g := <-got; g != nil {
		counts[g.ID()]++
	}
	takeAll(counts, victim, thief)
	requireOnce(t, counts, 1, 2, 3, 4, 5, 6, 7, 8)
}
