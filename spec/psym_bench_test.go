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

// BenchmarkPSymmetryPastSTW measures what P symmetry could add on a model
// with the stop-the-world, where it cannot apply to every state (the
// restart lists the idle Ps in allp order; procresize destroys the highest
// Ps). A group that grows along behaviours could rename the live Ps (those
// below gomaxprocs) of the states past the last stop-the-world (STWLeft 0,
// no stop in progress), and no others: a state there has only such states
// after it. States where an M's allp snapshot for the no-P recheck covers
// only some live Ps are left unrenamed, and so are all states before the
// last stop. It explores the model under M and G symmetry, counts the
// representatives by phase, and the orbits left when the states past the
// last stop are identified under renamings of their live Ps. On every
// 7th renamable state it checks that each renaming of the live Ps maps the
// successors to the renamed successors, up to that identification: a step
// that names a live P by position after the last stop would fail it.
//
//	go test ./spec -run '^$' -bench PSymmetryPastSTW -benchtime 1x
func BenchmarkPSymmetryPastSTW(b *testing.B) {
	for _, c := range []estimateModel{
		{"P3M3G1S0-stw-procresize", Bounds{Ps: 3, Ms: 3, Gs: 1, Cap: 2, SchedTick: 1, STW: true, ProcResize: true}},
		{"P3M3G2S1-stw", Bounds{Ps: 3, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, STW: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			md, err := NewModel(c.b)
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				g, full := bfs(context.Background(), md, Options{Symmetry: true, GSymmetry: true, ThreadLimit: true})
				if !full.Complete {
					b.Fatalf("search incomplete: %v", full)
				}
				var before, during, past, renamable int
				orbits := map[string]struct{}{}
				for id := 0; id < g.len(); id++ {
					s := g.state(uint32(id))
					switch {
					case s.STW != STWNone:
						during++
					case s.STWLeft > 0:
						before++
					default:
						past++
					}
					if pastSTWRenamable(&s) {
						renamable++
						if id%7 == 0 {
							want := pastSTWSuccKeys(&md, &s)
							for _, q := range pPermsOf[s.Procs][1:] {
								perm := identityPPerm()
								copy(perm[:], q)
								x := renameP(&s, (*[MaxPs]int8)(&perm))
								if got := pastSTWSuccKeys(&md, &x); !slices.Equal(got, want) {
									b.Fatalf("renaming the live Ps by %v changes the successors of\n%v", perm[:s.nP], s)
								}
							}
						}
					}
					orbits[pastSTWKey(&s)] = struct{}{}
				}
				b.ReportMetric(float64(g.len()), "mg-orbits")
				b.ReportMetric(float64(before), "before-last-stop")
				b.ReportMetric(float64(during), "stopping")
				b.ReportMetric(float64(past), "past-last-stop")
				b.ReportMetric(float64(renamable), "renamable")
				b.ReportMetric(float64(len(orbits)), "orbits")
				b.ReportMetric(float64(g.len())/float64(len(orbits)), "p-factor")
			}
		})
	}
}

// pastSTWRenamable: s is past its model's last stop-the-world, and every
// M's allp snapshot (SnapPs) covers all the live Ps or is not taken.
func pastSTWRenamable(s *State) bool {
	if s.STW != STWNone || s.STWLeft > 0 {
		return false
	}
	for m := 0; m < int(s.nM); m++ {
		if sp := s.M[m].SnapPs; sp != 0 && sp != s.Procs {
			return false
		}
	}
	return true
}

// pastSTWKey is s's representative key under M and G renamings and, when
// pastSTWRenamable, renamings of its live Ps: the least over them.
func pastSTWKey(s *State) string {
	rep, _, _ := canonFull(s, true)
	best := rep.Key()
	if !pastSTWRenamable(s) {
		return best
	}
	for _, q := range pPermsOf[s.Procs][1:] {
		perm := identityPPerm()
		copy(perm[:], q)
		t := renameP(s, (*[MaxPs]int8)(&perm))
		rep, _, _ := canonFull(&t, true)
		if k := rep.Key(); k < best {
			best = k
		}
	}
	return best
}

// pastSTWSuccKeys lists s's successors by pastSTWKey.
func pastSTWSuccKeys(md *Model, s *State) []string { return succKeysBy(md, s, pastSTWKey) }
