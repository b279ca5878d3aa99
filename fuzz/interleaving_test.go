//go:build gmpcheck_hooks

package fuzz

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/interleave"
	"github.com/gmpcheck/gmpcheck/spec"
	"pgregory.net/rapid"
)

// FuzzRunQueueInterleaving reads a built-in scenario (first byte, modulo
// the number of scenarios) and a schedule (one byte per atomic step: the
// (b mod n)-th of the n actors that can move takes it; once the bytes run
// out the running actor goes on). It runs the real queue code under that
// schedule and checks conservation, linearizability against spec/ and the
// history against linearize's porcupine model (interleave.Check).
//
// With GMPCHECK_BUG=<bug> the queue code has that seeded bug, which this
// target must find (docs/performance.md lists how fast).
func FuzzRunQueueInterleaving(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := runInterleaving(data); err != nil {
			t.Fatal(err)
		}
	})
}

var scenarios = interleave.Scenarios()

func runInterleaving(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	sc := &scenarios[int(data[0])%len(scenarios)]
	ex, err := interleave.Run(sc, interleave.FromBytes(data[1:]), interleave.RunOptions{})
	if err != nil {
		return err
	}
	if v := interleave.Check(ex); v != nil {
		return errors.New(v.Report())
	}
	if ex.Cut {
		return fmt.Errorf("scenario %s did not finish in %d steps (schedule %s)", sc.Name, interleave.DefaultMaxSteps, ex.Schedule())
	}
	return nil
}

// randomScenario draws a small scenario: an owner with 1-3 calls on its
// pre-filled queue, 1-2 thieves that each steal once (from the owner or
// from each other: chained steals) and may then get, drain or ask
// runqempty, and maybe a reader. A thief never puts and steals once into
// an empty ring, so it cannot overflow, as in the scheduler, which steals
// only when its own queue is empty.
func randomScenario(t *rapid.T) *interleave.Scenario {
	capacity := rapid.SampledFrom([]int{2, 4}).Draw(t, "cap")
	thieves := rapid.IntRange(1, 2).Draw(t, "thieves")
	sc := &interleave.Scenario{Name: "random", Cap: capacity, Queues: 1 + thieves}
	next := spec.GID(1)
	newG := func() spec.GID { next++; return next - 1 }
	var init interleave.QueueInit
	for range rapid.IntRange(0, capacity).Draw(t, "ring") {
		init.Ring = append(init.Ring, newG())
	}
	if rapid.Bool().Draw(t, "runnext") {
		init.RunNext = newG()
	}
	sc.Init = []interleave.QueueInit{init}
	owner := interleave.Actor{Name: "owner", Queue: 0}
	for range rapid.IntRange(1, 3).Draw(t, "ownerCalls") {
		c := interleave.Call{Kind: rapid.SampledFrom([]interleave.CallKind{interleave.Put, interleave.PutNext, interleave.Get, interleave.Drain, interleave.Empty}).Draw(t, "ownerCall")}
		switch c.Kind {
		case interleave.Put, interleave.PutNext:
			c.G = newG()
		case interleave.Empty:
			c.Q = rapid.IntRange(0, thieves).Draw(t, "emptyQ")
		}
		owner.Script = append(owner.Script, c)
	}
	sc.Actors = append(sc.Actors, owner)
	for i := 1; i <= thieves; i++ {
		victim := rapid.IntRange(0, thieves-1).Draw(t, "victim")
		if victim >= i {
			victim++
		}
		kind := rapid.SampledFrom([]interleave.CallKind{interleave.Steal, interleave.StealNext}).Draw(t, "steal")
		a := interleave.Actor{Name: fmt.Sprintf("thief%d", i), Queue: i, Script: []interleave.Call{{Kind: kind, Q: victim}}}
		if rapid.Bool().Draw(t, "after") {
			c := interleave.Call{Kind: rapid.SampledFrom([]interleave.CallKind{interleave.Get, interleave.Drain, interleave.Empty}).Draw(t, "thiefCall")}
			c.Q = rapid.IntRange(0, thieves).Draw(t, "emptyQ")
			a.Script = append(a.Script, c)
		}
		sc.Actors = append(sc.Actors, a)
	}
	if rapid.Bool().Draw(t, "reader") {
		sc.Actors = append(sc.Actors, interleave.Actor{Name: "reader", Queue: -1,
			Script: []interleave.Call{{Kind: interleave.Empty, Q: rapid.IntRange(0, thieves).Draw(t, "readQ")}}})
	}
	if err := sc.Validate(); err != nil {
		t.Fatalf("generated an invalid scenario: %v", err)
	}
	return sc
}

// randomInterleaving runs a random scenario under a random schedule.
func randomInterleaving(t *rapid.T) {
	sc := randomScenario(t)
	schedule := rapid.SliceOfN(rapid.Byte(), 0, 80).Draw(t, "schedule")
	ex, err := interleave.Run(sc, interleave.FromBytes(schedule), interleave.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := interleave.Check(ex); v != nil {
		t.Fatal(v.Report())
	}
	if ex.Cut {
		t.Fatalf("did not finish in %d steps: %v", interleave.DefaultMaxSteps, sc)
	}
}

// FuzzRapidInterleaving is randomInterleaving as a fuzz target: beyond the
// built-in scenarios, any short scripts of two to four actors.
func FuzzRapidInterleaving(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(randomInterleaving))
}

// TestRapidInterleaving runs the property with rapid's generator.
func TestRapidInterleaving(t *testing.T) {
	rapid.Check(t, randomInterleaving)
}
