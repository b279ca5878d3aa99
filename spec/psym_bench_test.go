package spec

import (
	"context"
	"slices"
	"testing"
)

// BenchmarkPSymmetryEstimate measures what a reduction by P identities
// could add to M and G symmetry: it explores a model without symmetry and
// counts the orbits of its states under M and G permutations (canonFull),
// then under M, G and P permutations (canonPFull, the explorer's own
// representative under -gsymmetry -psymmetry). With the runtime's LIFO idle list in the state
// (State.IdlePs), renaming Ps maps behaviours to behaviours in models
// without the stop-the-world (whose restart lists the idle Ps in allp
// order), as these are; the ratio here is what the renaming removes, net
// of the order the list keeps. Every renamed state must pass the invariants
// and enable as many actions of each kind as the state (a P reference the
// renaming missed breaks one or the other: checked for an M's P and for
// the timers' Ps).
//
//	go test ./spec -run '^$' -bench PSymmetryEstimate -benchtime 1x
func BenchmarkPSymmetryEstimate(b *testing.B) {
	timers := estimateModel{"P2M2G2S1-timers", Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1}}
	for _, c := range append(slices.Clip(estimateBounds), timers) {
		b.Run(c.name, func(b *testing.B) {
			md, err := NewModel(c.b)
			if err != nil {
				b.Fatal(err)
			}
			var states, mg, mgp int
			for i := 0; i < b.N; i++ {
				states, mg, mgp = pOrbits(b, &md)
			}
			b.ReportMetric(float64(states), "states")
			b.ReportMetric(float64(mg), "mg-orbits")
			b.ReportMetric(float64(mgp), "mgp-orbits")
			b.ReportMetric(float64(mg)/float64(mgp), "p-factor")
		})
	}
}

// pOrbits explores md with the explorer's own search (no symmetry) and
// counts its states, their M and G orbits and their M, G and P orbits.
func pOrbits(b *testing.B, md *Model) (states, mg, mgp int) {
	g, full := bfs(context.Background(), *md, Options{})
	perms := pPerms(md.b.Ps)
	mgSet, mgpSet := map[string]struct{}{}, map[string]struct{}{}
	for i := 0; i < g.len(); i++ {
		s := g.state(uint32(i))
		rep, _, _ := canonFull(&s, true)
		mgSet[rep.Key()] = struct{}{}
		prep, _, _, _ := canonPFull(&s, true)
		mgpSet[prep.Key()] = struct{}{}
		kinds := enabledKinds(md, &s)
		for _, q := range perms {
			var perm [MaxPs]int8
			copy(perm[:], q)
			t := renameP(&s, &perm)
			if err := md.check(&t); err != nil {
				b.Fatalf("%v renamed by %v breaks an invariant: %v", s, perm, err)
			}
			if k := enabledKinds(md, &t); k != kinds {
				b.Fatalf("%v renamed by %v enables other kinds of action", s, perm)
			}
		}
	}
	return full.Distinct, len(mgSet), len(mgpSet)
}

// enabledKinds counts the actions enabled in s by kind: a renaming of
// Ps must not change it.
func enabledKinds(md *Model, s *State) (n [numActionKinds]int) {
	for _, a := range md.appendEnabled(nil, s) {
		n[a.Kind]++
	}
	return n
}
