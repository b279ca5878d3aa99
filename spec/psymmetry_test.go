package spec

import (
	"context"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// pSymModels are models without the stop-the-world, at two and three Ps,
// with the mechanisms that name Ps: syscalls (retake, the old P), netpoll,
// LockOSThread (next P), timers (their Ps, checkTimersNoP).
var pSymModels = []Bounds{
	{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true},
	{Ps: 3, Ms: 3, Gs: 1, Cap: 2, SchedTick: 1},
	{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1},
	{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, LockOSThread: true, SyscallBlock: true, Syscalls: true},
}

// randomPPerm is a random renaming of n Ps (old P p becomes perm[p]).
func randomPPerm(rng *rand.Rand, n int) (perm [MaxPs]int8) {
	for i, p := range rng.Perm(n) {
		perm[i] = int8(p)
	}
	return perm
}

// The P representative is canonical: renaming a reachable state's Ps and
// Ms at random gives the same representative, which is its own.
func TestPSymmetryCanonical(t *testing.T) {
	sequentialUnderRace(t)
	rng := rand.New(rand.NewSource(1))
	for _, b := range pSymModels {
		md, _ := NewModel(b)
		g, _ := bfs(context.Background(), md, Options{})
		step := max(1, g.len()/1000)
		for i := 0; i < g.len(); i += step {
			s := g.state(uint32(i))
			rep, _, _, _ := canonPFull(&s, false)
			want := rep.Key()
			if again, _, _, _ := canonPFull(&rep, false); again.Key() != want {
				t.Fatalf("%v: the representative of\n%v\nis not its own:\n%v", b, s, again)
			}
			for k := 0; k < 4; k++ {
				perm := randomPPerm(rng, b.Ps)
				var pm mPerm
				for j, m := range rng.Perm(b.Ms) {
					pm[j] = int8(m)
				}
				var id [MaxGs + 1]GID
				for g := range id {
					id[g] = GID(g)
				}
				x := renameP(&s, &perm)
				x = permute(x, pm, id)
				if r, _, _, _ := canonPFull(&x, false); r.Key() != want {
					t.Fatalf("%v: renamed by Ps %v and Ms %v,\n%v\nhas another representative:\n%v\nnot\n%v", b, perm[:b.Ps], pm[:b.Ms], s, r, rep)
				}
			}
		}
	}
}

// The reduced search counts the orbits: as many states as the unreduced
// graph has representatives, and fewer than it has states.
func TestPSymmetryCountsOrbits(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	for _, b := range pSymModels[1:3] {
		md, _ := NewModel(b)
		g, full := bfs(context.Background(), md, Options{})
		orbits := map[string]bool{}
		for i := 0; i < g.len(); i++ {
			s := g.state(uint32(i))
			rep, _, _, _ := canonPFull(&s, false)
			orbits[rep.Key()] = true
		}
		red, err := Explore(context.Background(), b, Options{PSymmetry: true})
		if err != nil || red.Distinct != len(orbits) || red.Distinct >= full.Distinct || !red.PSymmetry || !red.Symmetry {
			t.Fatalf("%v: %d states, %d orbits, %v with P symmetry (%v)", b, full.Distinct, len(orbits), red, err)
		}
		t.Logf("%v: %d states, %d M and P orbits", b, full.Distinct, red.Distinct)
	}
}

// pSuccKeys is the sorted list of the representatives of s's successors.
func pSuccKeys(md *Model, s *State) []string {
	return succKeysBy(md, s, func(ns *State) string {
		rep, _, _, _ := canonPFull(ns, false)
		return rep.Key()
	})
}

// succKeysBy lists s's successors by key, sorted; a step the model cuts
// (the M bound) is listed by its kind.
func succKeysBy(md *Model, s *State, key func(*State) string) []string {
	var out []string
	for _, a := range md.appendEnabled(nil, s) {
		ns := *s
		if _, err := md.step(&ns, a); err != nil {
			out = append(out, "cut:"+a.Kind.String())
			continue
		}
		out = append(out, key(&ns))
	}
	slices.Sort(out)
	return out
}

// pAsymmetry returns a reachable state of b (every step-th, at most
// limit) and a renaming of its Ps after which the successors'
// representatives differ, or ok false when none was found: the
// transition relation does not commute with renaming Ps there.
func pAsymmetry(t *testing.T, b Bounds, step, limit int) (State, [MaxPs]int8, bool) {
	t.Helper()
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := bfs(context.Background(), md, Options{})
	seen := 0
	for i := 0; i < g.len() && seen < limit; i += step {
		seen++
		s := g.state(uint32(i))
		want := pSuccKeys(&md, &s)
		for _, q := range pPerms(b.Ps)[1:] {
			var perm [MaxPs]int8
			copy(perm[:], q)
			x := renameP(&s, &perm)
			if got := pSuccKeys(&md, &x); !slices.Equal(got, want) {
				return s, perm, true
			}
		}
	}
	return State{}, [MaxPs]int8{}, false
}

// Renaming Ps commutes with every step of the models without the
// stop-the-world: a renamed state's successors are the renamed
// successors, up to the orbit. The same check finds the stop-the-world's
// restart, which lists the idle Ps in allp order, so it would catch a
// step that names Ps by position.
func TestPSymmetryEquivariant(t *testing.T) {
	sequentialUnderRace(t)
	for _, b := range pSymModels {
		if s, perm, ok := pAsymmetry(t, b, 7, 5000); ok {
			t.Fatalf("%v: renaming Ps by %v changes the successors of\n%v", b, perm[:b.Ps], s)
		}
	}
	stw := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, STW: true}
	s, perm, ok := pAsymmetry(t, stw, 1, 1<<30)
	if !ok {
		t.Fatalf("%v: no state whose successors a renaming of Ps changes; the check cannot see the restart's order", stw)
	}
	t.Logf("%v: renaming Ps by %v changes the successors of\n%v", stw, perm[:stw.Ps], s)
	if _, err := Explore(context.Background(), stw, Options{PSymmetry: true}); err == nil || !strings.Contains(err.Error(), "stop-the-world") {
		t.Fatalf("P symmetry with the stop-the-world: %v, want a refusal", err)
	}
}

// P symmetry keeps every verdict: each seeded bug without the
// stop-the-world is found with the same kind, prefix and stutter (an
// invariant's also with fingerprints), and its lasso replays and is fair; the go1.19 lost wakeup keeps its 13
// steps; the correct models pass; and under All every property has the
// verdict it has on the unreduced graph. The seeded bugs with the
// stop-the-world are refused.
func TestPSymmetryLiveness(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	for _, c := range SeededBugCases() {
		opt := SeededBugOptions
		opt.PSymmetry = true
		r, err := Explore(context.Background(), c.Bounds, opt)
		if c.Bounds.STW {
			if err == nil {
				t.Fatalf("%v: P symmetry with the stop-the-world was not refused", c.Bounds.Bug)
			}
			continue
		}
		v := r.Violation
		if err != nil || v == nil || v.Kind != c.Kind || v.Trace.Loop != c.Loop || v.Trace.Stutter != c.Stutter || !r.PSymmetry {
			t.Fatalf("%v with P symmetry: %v %v\n%v", c.Bounds.Bug, err, r, v)
		}
		if c.Kind == KindInvariant {
			if err := c.Match(v); err != nil {
				t.Fatal(err)
			}
			// With fingerprints, the trace is rebuilt from the actions that
			// reached its states, stepped from P-and-G representatives.
			rf, _ := Explore(context.Background(), c.Bounds, Options{PSymmetry: true, GSymmetry: true, Fingerprint: true})
			if err := c.Match(rf.Violation); err != nil || !rf.Fingerprint {
				t.Fatalf("%v with P and G symmetry and fingerprints: %v, %v", c.Bounds.Bug, err, rf)
			}
			checkTraceReplays(t, c.Bounds, rf.Violation.Trace)
		}
		checkTraceReplays(t, c.Bounds, v.Trace)
		if err := cycleUnfair(c.Bounds, v); err != nil {
			t.Fatalf("%v with P symmetry: %v\n%v", c.Bounds.Bug, err, v)
		}
	}
	b := VerifyBounds()
	b.Go = Go119
	for _, gsym := range []bool{false, true} {
		opt := Options{Liveness: true, ThreadLimit: true, PSymmetry: true, GSymmetry: gsym}
		r, _ := Explore(context.Background(), b, opt)
		if r.Violation == nil || r.Violation.Kind != KindWorkConservation || r.Violation.Trace.Len() != 13 {
			t.Fatalf("go1.19 with P symmetry (G symmetry %v): %v\n%v", gsym, r, r.Violation)
		}
		checkTraceReplays(t, b, r.Violation.Trace)
		for _, b := range pSymModels {
			if r, _ := Explore(context.Background(), b, opt); r.Verdict() != "pass" || !r.Liveness {
				t.Fatalf("%v with P symmetry (G symmetry %v): %v\n%v", b, gsym, r, r.Violation)
			}
		}
	}
	for _, b := range []Bounds{
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true, Go: Go121},
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, LockOSThread: true, Bug: BugHandoffIgnoresPoller},
		{Ps: 2, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1, Bug: BugTimersNotStolen},
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Bug: BugReadyNoWakep},
	} {
		base := Options{Liveness: true, ThreadLimit: true, All: true}
		red := base
		red.PSymmetry = true
		r0, _ := Explore(context.Background(), b, base)
		r1, _ := Explore(context.Background(), b, red)
		if k0, k1 := groupKeys(r0), groupKeys(r1); k0 != k1 || k0 == "" {
			t.Fatalf("%v: without symmetry %q, with P symmetry %q", b, k0, k1)
		}
		for _, gr := range r1.Violations {
			checkTraceReplays(t, b, gr.First.Trace)
		}
		t.Logf("%v: %s (%d states, %d M and P orbits)", b, groupKeys(r1), r0.Distinct, r1.Distinct)
	}
}
