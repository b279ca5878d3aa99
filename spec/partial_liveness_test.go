package spec

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// checkLassoIsAViolation checks a liveness counterexample without the
// checker that found it: it replays, its cycle returns to its start and
// is fair on its face, and for work conservation every state of the
// cycle is starved.
func checkLassoIsAViolation(t *testing.T, b Bounds, v *Violation) {
	t.Helper()
	checkTraceReplays(t, b, v.Trace)
	if err := cycleUnfair(b, v); err != nil {
		t.Fatal(err)
	}
	if v.Kind != KindWorkConservation || v.Trace.Loop < 0 {
		return
	}
	for i, st := range v.Trace.Steps[v.Trace.Loop:] {
		if !workStarved(&st.State) {
			t.Fatalf("cycle step %d (%v) is not starved:\n%v", v.Trace.Loop+i+1, st.Action, st.State)
		}
	}
}

// A search cut short still checks liveness on the part it found: the
// lost wakeup of ready-no-wakep is in the first sixteenth of the graph,
// and a search stopped there fails with it, a real lasso (replayed,
// fair, starved throughout), M and G symmetry or not. Stopped before the
// lasso's states, it finds nothing and says so: incomplete, not pass.
func TestPartialLivenessFindsTheLostWakeup(t *testing.T) {
	sequentialUnderRace(t)
	b := VerifyBounds()
	b.Bug = BugReadyNoWakep
	full, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, GSymmetry: true})
	if err != nil {
		t.Fatal(err)
	}
	if full.Violation == nil || full.Violation.Kind != KindWorkConservation {
		t.Fatalf("the whole graph: %v", full)
	}
	for _, gsym := range []bool{false, true} {
		t.Run(fmt.Sprintf("gsymmetry=%v", gsym), func(t *testing.T) {
			opt := Options{Liveness: true, ThreadLimit: true, GSymmetry: gsym, MaxStates: full.Distinct / 16}
			if !gsym {
				opt.MaxStates = 40_000 // the unreduced graph is 2.7 M states
			}
			r, err := Explore(context.Background(), b, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Complete || r.Violation == nil || r.Violation.Kind != KindWorkConservation || r.Verdict() != "fail" {
				t.Fatalf("cut at %d states: want a lost wakeup on an incomplete search, got %v", opt.MaxStates, r)
			}
			checkLassoIsAViolation(t, b, r.Violation)

			opt.MaxStates = 200
			r, err = Explore(context.Background(), b, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Violation != nil || r.Verdict() != "incomplete" || !r.LivenessPartial || r.Liveness {
				t.Fatalf("cut at 200 states: want no violation, partial liveness, incomplete; got %v\n%v", r, r.Violation)
			}
			if !strings.Contains(r.String(), "liveness=partial") || !strings.Contains(r.String(), "proves nothing about the rest") {
				t.Errorf("the result does not say the liveness check was partial: %v", r)
			}
		})
	}
}

// Liveness on a cut graph reports nothing that the whole graph does not
// have: on correct models (every mechanism the seeded bugs need, and the
// verify bound) stopped at several points, no violation; on every seeded
// liveness bug stopped at half its graph, the violation found (if any)
// is the bug's property and a real lasso. A stutter or a cycle made up
// by the missing edges of the states not yet expanded would show here.
func TestPartialLivenessReportsOnlyRealViolations(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	found := 0
	for _, c := range SeededBugCases() {
		if !c.Kind.Liveness() {
			continue
		}
		c := c
		t.Run(c.Bounds.Bug.String(), func(t *testing.T) {
			full, err := Explore(context.Background(), c.Bounds, SeededBugOptions)
			if err != nil {
				t.Fatal(err)
			}
			opt := SeededBugOptions
			opt.All = true
			opt.MaxStates = full.Distinct / 2
			r, err := Explore(context.Background(), c.Bounds, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Complete {
				t.Fatalf("cut at %d of %d states, yet complete", opt.MaxStates, full.Distinct)
			}
			for _, g := range r.Violations {
				if g.Kind != c.Kind {
					t.Errorf("%v on half the graph, which fails only %v", g.Key, c.Kind)
				}
				checkLassoIsAViolation(t, c.Bounds, g.First)
				found++
			}
			b := c.Bounds
			b.Bug = BugNone
			ok := requirePass(t, b, SeededBugOptions)
			for _, div := range []int{2, 5, 17} {
				opt.MaxStates = ok.Distinct / div
				r, err := Explore(context.Background(), b, opt)
				if err != nil {
					t.Fatal(err)
				}
				if r.Violation != nil || r.Verdict() != "incomplete" || !r.LivenessPartial {
					t.Fatalf("the correct model cut at %d of %d states: %v\n%v", opt.MaxStates, ok.Distinct, r, r.Violation)
				}
			}
		})
	}
	if found == 0 {
		t.Error("no seeded bug was found on half its graph: the test shows nothing")
	}
	t.Logf("%d seeded liveness bugs found on half their graph", found)
}

// The memory bound leaves the liveness pass its room: a search with
// liveness stopped by MaxMemory still runs the pass on the part found,
// within the bound, and finds ready-no-wakep's lost wakeup there.
func TestMemoryCutLeavesRoomForLiveness(t *testing.T) {
	sequentialUnderRace(t)
	b := VerifyBounds()
	b.Bug = BugReadyNoWakep
	opt := Options{Liveness: true, ThreadLimit: true, MaxMemory: 24 << 20}
	r, err := Explore(context.Background(), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !r.MemoryCut || r.Violation == nil || r.Violation.Kind != KindWorkConservation || r.MemoryBytes > opt.MaxMemory {
		t.Fatalf("a 24 MiB bound on the 2.7 M-state graph: want a memory cut, the lost wakeup and at most 24 MiB; got %v (%d bytes)\n%v", r, r.MemoryBytes, r.Notes)
	}
	checkLassoIsAViolation(t, b, r.Violation)
}

// The periodic liveness check stops a failing search early and leaves a
// passing one alone. With the first check lowered to 1,000 states (checks
// at 1,000, 4,000, 16,000, ...), ready-no-wakep on the verify bound fails
// before the whole graph is found, with a real lasso; the correct model,
// checked at every one of those sizes on the way, passes with the same
// count as without the checks. Under All the search is not stopped.
func TestPeriodicLivenessStopsEarly(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	b := VerifyBounds()
	b.Bug = BugReadyNoWakep
	opt := Options{Liveness: true, ThreadLimit: true, GSymmetry: true}
	full, err := Explore(context.Background(), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	early := opt
	early.firstLiveness = 1000
	r, err := Explore(context.Background(), b, early)
	if err != nil {
		t.Fatal(err)
	}
	if r.Complete || !r.LivenessPartial || r.Violation == nil || r.Violation.Kind != KindWorkConservation || r.Distinct >= full.Distinct {
		t.Fatalf("want the lost wakeup before the whole graph (%d states), got %v", full.Distinct, r)
	}
	checkLassoIsAViolation(t, b, r.Violation)
	t.Logf("stopped at %d of %d states: %v", r.Distinct, full.Distinct, r)

	early.All = true
	r, err = Explore(context.Background(), b, early)
	if err != nil {
		t.Fatal(err)
	}
	if r.Distinct != full.Distinct {
		t.Fatalf("with All the periodic check stopped the search at %d of %d states", r.Distinct, full.Distinct)
	}

	b.Bug = BugNone
	early.All = false
	want, err := Explore(context.Background(), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	r, err = Explore(context.Background(), b, early)
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict() != "pass" || r.Distinct != want.Distinct || want.Verdict() != "pass" {
		t.Fatalf("the correct model with periodic checks: %v; without: %v", r, want)
	}
}
