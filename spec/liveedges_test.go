package spec

import (
	"context"
	"fmt"
	"testing"
)

// The edges computed once and the properties checked at once change
// nothing but the time: on models that fail several properties (the
// locked handoff's timer; syscalls with a stop-the-world and procresize,
// Go 1.26's allp lost wakeup) and on every seeded liveness bug but
// ready-no-wakep (its bounds are the verify bound's), with and without
// symmetry, with and without All, the groups, their counts and their
// lassos are those of the pass run one property after another, each
// stepping its states as it walks.
func TestLivenessEdgesChangeNothing(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	type tc struct {
		name string
		b    Bounds
		opt  Options
	}
	var cases []tc
	timer := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1, LockOSThread: true}
	mech := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true, STW: true, ProcResize: true}
	for _, all := range []bool{false, true} {
		for _, sym := range []struct{ m, g bool }{{false, false}, {true, false}, {true, true}} {
			opt := Options{Liveness: true, ThreadLimit: true, All: all, Symmetry: sym.m, GSymmetry: sym.g}
			cases = append(cases,
				tc{fmt.Sprintf("locked-timer/all=%v/sym=%v,%v", all, sym.m, sym.g), timer, opt},
				tc{fmt.Sprintf("stw-procresize/all=%v/sym=%v,%v", all, sym.m, sym.g), mech, opt})
		}
	}
	for _, c := range SeededBugCases() {
		// ready-no-wakep's bounds are the verify bound's (2.7 M states):
		// the allp lost wakeup above fails the same property.
		if c.Kind.Liveness() && c.Bounds.Bug != BugReadyNoWakep {
			opt := SeededBugOptions
			opt.All = true
			cases = append(cases, tc{c.Bounds.Bug.String(), c.Bounds, opt})
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := c.opt
			old.oneByOne = true
			want, err := Explore(context.Background(), c.b, old)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Explore(context.Background(), c.b, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if want.Violation == nil {
				t.Fatalf("no violation: the case shows nothing: %v", want)
			}
			if want.sharedEdges || !got.sharedEdges {
				t.Fatalf("edges shared: %v one by one, %v by default; want false, true", want.sharedEdges, got.sharedEdges)
			}
			if fmt.Sprint(got.Violation) != fmt.Sprint(want.Violation) {
				t.Fatalf("first violation differs:\n%v\nwant\n%v", got.Violation, want.Violation)
			}
			if len(got.Violations) != len(want.Violations) {
				t.Fatalf("%d groups, want %d", len(got.Violations), len(want.Violations))
			}
			for i := range want.Violations {
				g, w := got.Violations[i], want.Violations[i]
				if g.Key != w.Key || g.Count != w.Count || fmt.Sprint(g.First) != fmt.Sprint(w.First) {
					t.Errorf("group %d: %s (%d), want %s (%d)", i, g.Key, g.Count, w.Key, w.Count)
				}
			}
		})
	}
}

// The pass's goroutines (the edges' workers, two properties at once) run
// under the race detector here, on a model small enough for it: the
// locked handoff's timer under M and G symmetry, every property, two
// workers. (The other liveness tests check full bounds and skip under
// -race.)
func TestLivenessConcurrentPass(t *testing.T) {
	b := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1, LockOSThread: true}
	opt := Options{Liveness: true, ThreadLimit: true, All: true, Symmetry: true, GSymmetry: true, Workers: 2}
	old := opt
	old.oneByOne = true
	want, err := Explore(context.Background(), b, old)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Explore(context.Background(), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want.sharedEdges || !got.sharedEdges {
		t.Fatalf("edges shared: %v one by one, %v by default; want false, true", want.sharedEdges, got.sharedEdges)
	}
	if got.Distinct < 2*4096 {
		t.Fatalf("%d orbits: too few for two edge workers", got.Distinct)
	}
	if len(want.Violations) == 0 || len(got.Violations) != len(want.Violations) {
		t.Fatalf("%d groups, want %d (at least one)", len(got.Violations), len(want.Violations))
	}
	for i, w := range want.Violations {
		g := got.Violations[i]
		if g.Key != w.Key || g.Count != w.Count || fmt.Sprint(g.First) != fmt.Sprint(w.First) {
			t.Errorf("group %d: %s (%d), want %s (%d)", i, g.Key, g.Count, w.Key, w.Count)
		}
	}
}
