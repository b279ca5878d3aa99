package spec

import (
	"context"
	"fmt"
	"testing"
)

// The quotient has exactly one state per orbit of the reachable states:
// canonicalizing every state of the unreduced graph gives as many keys as
// the reduced search finds, on models where the reduction bites.
func TestSymmetryCountsOrbits(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	for _, b := range []Bounds{
		{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2},
		{Ps: 1, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true},
	} {
		md, _ := NewModel(b)
		g, full := bfs(context.Background(), md, Options{})
		orbits := map[string]bool{}
		for i := 0; i < g.len(); i++ {
			s := g.state(uint32(i))
			k := s.AppendKey(nil)
			canonM(k, &s)
			orbits[string(k)] = true
		}
		red, _ := Explore(context.Background(), b, Options{Symmetry: true})
		if red.Distinct != len(orbits) || red.Distinct >= full.Distinct || !red.Symmetry {
			t.Fatalf("%v: %d states, %d orbits, %d with symmetry", b, full.Distinct, len(orbits), red.Distinct)
		}
		t.Logf("%v: %d states, %d orbits", b, full.Distinct, red.Distinct)
	}
}

// Symmetry on and off give the same verdicts on every seeded bug, with
// counterexamples of the same kind and prefix, that replay on the model;
// the same for the go1.19 lost wakeup and the correct model.
func TestSymmetrySameVerdicts(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	reducedKeepsVerdicts(t, "symmetry", func(o *Options) { o.Symmetry = true },
		[]Bounds{
			{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true},
			{Ps: 3, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1},
		},
		func(c SeededBugCase, v *Violation) {
			if c.Kind != KindInvariant {
				return
			}
			if err := c.Match(v); err != nil {
				t.Fatal(err)
			}
			// Fingerprints and symmetry together: the same trace, re-derived
			// from fingerprints.
			rf, _ := Explore(context.Background(), c.Bounds, Options{Symmetry: true, Fingerprint: true})
			if err := c.Match(rf.Violation); err != nil || !rf.Fingerprint {
				t.Fatalf("%v with symmetry and fingerprints: %v, %v", c.Bounds.Bug, err, rf)
			}
			checkTraceReplays(t, c.Bounds, rf.Violation.Trace)
		})
}

// Liveness on the quotient is exact: with Options.All every property gets
// the same verdict with and without symmetry, on models where some
// properties fail through cycles (not only stutters), and each lasso found
// under symmetry replays and returns to its start.
func TestSymmetryLivenessExact(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	cases := []Bounds{
		SeededBugCases()[1].Bounds, // no-61: three starvation cycles
		SeededBugCases()[3].Bounds, // gosched-local
		{Ps: 1, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true, Bug: BugGoschedLocal},
	}
	for _, b := range cases {
		base := Options{Liveness: true, ThreadLimit: true, All: true}
		sym := base
		sym.Symmetry = true
		r0, _ := Explore(context.Background(), b, base)
		r1, _ := Explore(context.Background(), b, sym)
		k0, k1 := groupKeys(r0), groupKeys(r1)
		if k0 != k1 || k0 == "" {
			t.Fatalf("%v: without symmetry %q, with %q", b, k0, k1)
		}
		for _, gr := range r1.Violations {
			checkTraceReplays(t, b, gr.First.Trace)
		}
		t.Logf("%v: %s (%d / %d states)", b, k1, r0.Distinct, r1.Distinct)
	}
}

func groupKeys(r Result) string {
	s := ""
	for _, g := range r.Violations {
		s += g.Key + ";"
	}
	return s
}

// The lifted-frame decision of the families (symUnmet: the M families, and
// under P symmetry the P families) agrees, on every non-trivial bad
// component of representatives met while checking these models, with the
// families computed on the concrete component itself (unfolded state by
// state). The test also counts how often the naive decision in the
// representatives' own frames would have been wrong.
func TestSymmetryLiftedFamilies(t *testing.T) {
	sequentialUnderRace(t)
	checked, naiveWrong, pChecked := 0, 0, 0
	symCheckHook = func(lc *livenessChecker, members []uint32, member func(*State) bool, lifted [3][]int, naiveFair bool) {
		nodes := lc.unfold(lc.g.state(lc.sv(members[0])), member)
		var ex, tk famSet
		for _, n := range nodes {
			lc.excused(&n.s, &ex)
			for _, e := range n.edges {
				e.discharge(&tk)
			}
		}
		ms, rs, ss := lc.unmet(&ex, &tk)
		concrete := len(ms)+len(rs)+len(ss) == 0
		checked++
		if lc.g.psym {
			pChecked++
		}
		if got := [3][]int{ms, rs, ss}; fmt.Sprint(got) != fmt.Sprint(lifted) {
			t.Errorf("component of %d representatives (%d concrete states): the lift leaves Ms, Ps (retake, preemption) and Ps (slice) %v unmet, the concrete component %v", len(members), len(nodes), lifted, got)
		}
		if naiveFair != concrete {
			naiveWrong++
		}
	}
	defer func() { symCheckHook = nil }()
	for _, b := range []Bounds{
		{Ps: 1, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true, Bug: BugGoschedLocal},
		{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true},
	} {
		Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, All: true, Symmetry: true})
		Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, All: true, GSymmetry: true})
	}
	for _, b := range []Bounds{
		{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true},
		{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1},
	} {
		Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, All: true, PSymmetry: true})
		Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, All: true, PSymmetry: true, GSymmetry: true})
	}
	if checked == 0 || pChecked == 0 {
		t.Fatalf("%d components decided on their lifts, %d under P symmetry", checked, pChecked)
	}
	t.Logf("%d components decided on their lifts (%d under P symmetry); the representatives' own frames would have been wrong on %d", checked, pChecked, naiveWrong)
}

// permute applies an M permutation pm (slot i goes to pm[i]) and a G
// renumbering pg (g becomes pg[g]) to s.
func permute(s State, pm mPerm, pg [MaxGs + 1]GID) State {
	c := s
	for g := 1; g <= int(s.nG); g++ {
		c.G[pg[g]] = s.G[g]
	}
	rl := func(g GID) GID {
		if g == NoG {
			return g
		}
		return pg[g]
	}
	for p := 0; p < int(s.nP); p++ {
		c.P[p].RunNext = rl(s.P[p].RunNext)
		for i := 0; i < int(s.P[p].N); i++ {
			c.P[p].Ring[i] = rl(s.P[p].Ring[i])
		}
	}
	for i := 0; i < int(s.Runq.N); i++ {
		c.Runq.Gs[i] = rl(s.Runq.Gs[i])
	}
	for m := 0; m < int(s.nM); m++ {
		c.M[pm[m]] = s.M[m]
		c.M[pm[m]].CurG = rl(s.M[m].CurG)
	}
	return c
}

// canonMG is a canonical form: every M and G permutation of a reachable
// state has the same representative, which is a fixed point; and the
// reduced search counts exactly the orbits of the reachable states.
func TestGSymmetryCanonical(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	b := Bounds{Ps: 1, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true}
	md, _ := NewModel(b)
	g, full := bfs(context.Background(), md, Options{})
	rng := uint64(1)
	rnd := func(n int) int { rng = mix64(rng); return int(rng % uint64(n)) }
	orbits := map[string]bool{}
	for i := 0; i < g.len(); i++ {
		s := g.state(uint32(i))
		c := canonMG(&s)
		orbits[c.Key()] = true
		if cc := canonMG(&c); cc != c {
			t.Fatalf("not a fixed point:\n%v\n%v", c, cc)
		}
		if i%7 != 0 {
			continue
		}
		pm := identityPerm()
		var pg [MaxGs + 1]GID
		for x := 1; x <= b.Gs; x++ {
			pg[x] = GID(x)
		}
		for k := b.Ms - 1; k > 0; k-- {
			j := rnd(k + 1)
			pm[k], pm[j] = pm[j], pm[k]
		}
		for k := b.Gs; k > 1; k-- {
			j := 1 + rnd(k)
			pg[k], pg[j] = pg[j], pg[k]
		}
		ps := permute(s, pm, pg)
		if err := md.Check(ps); err != nil {
			t.Fatalf("a permuted reachable state breaks %v", err)
		}
		if pc := canonMG(&ps); pc != c {
			t.Fatalf("permutation %v %v changes the representative:\n%v\n%v\n%v", pm, pg, s, c, pc)
		}
	}
	red, _ := Explore(context.Background(), b, Options{GSymmetry: true})
	if !full.Complete || red.Distinct != len(orbits) || !red.GSymmetry {
		t.Fatalf("%d orbits, the reduced search %v", len(orbits), red)
	}
	t.Logf("%v: %d states, %d orbits under M and G permutations", b, full.Distinct, len(orbits))
}

// With G symmetry the seeded safety bugs are found with their exact
// traces, which replay; the correct model passes; liveness does not use it.
func TestGSymmetrySafety(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	for _, c := range SeededBugCases() {
		if c.Kind != KindInvariant {
			continue
		}
		r, _ := Explore(context.Background(), c.Bounds, Options{GSymmetry: true, Fingerprint: true})
		if err := c.Match(r.Violation); err != nil {
			t.Fatalf("%v: %v", err, r)
		}
		checkTraceReplays(t, c.Bounds, r.Violation.Trace)
	}
	b := Bounds{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true}
	r0, _ := Explore(context.Background(), b, Options{Symmetry: true})
	r1, _ := Explore(context.Background(), b, Options{GSymmetry: true})
	if r1.Verdict() != "pass" || r1.Distinct >= r0.Distinct || r1.Done == 0 {
		t.Fatalf("M symmetry %v\nM and G %v", r0, r1)
	}
	t.Logf("%v: %d M-orbits, %d M,G-orbits", b, r0.Distinct, r1.Distinct)
}

// Liveness under M and G symmetry: the seeded bugs and go1.19 keep their
// verdicts, properties and prefixes, lassos replay; per property, the
// verdicts (work conservation; starvation of some G) are those of the
// unreduced graph; the correct model passes.
func TestGSymmetryLiveness(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	reducedKeepsVerdicts(t, "G symmetry", func(o *Options) { o.GSymmetry = true },
		[]Bounds{
			{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true},
			{Ps: 1, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true},
		}, nil)
	for _, b := range []Bounds{
		SeededBugCases()[1].Bounds,
		SeededBugCases()[3].Bounds,
		{Ps: 1, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true, Bug: BugGoschedLocal},
		SeededBugCases()[0].Bounds, // ready-no-wakep: work conservation
	} {
		r0, _ := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, All: true})
		r1, _ := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true, All: true, GSymmetry: true})
		want := map[ViolationKind]bool{}
		for _, g := range r0.Violations {
			want[g.Kind] = true
		}
		got := map[ViolationKind]bool{}
		for _, g := range r1.Violations {
			got[g.Kind] = true
			checkTraceReplays(t, b, g.First.Trace)
		}
		if fmt.Sprint(want) != fmt.Sprint(got) || len(got) == 0 {
			t.Fatalf("%v: without symmetry %v, with M and G symmetry %v", b, groupKeys(r0), groupKeys(r1))
		}
		t.Logf("%v: %s (%d states, %d orbits)", b, groupKeys(r1), r0.Distinct, r1.Distinct)
	}
}

// reducedKeepsVerdicts checks a reduction (set switches it on): every seeded
// bug keeps its property and lasso shape, go1.19 still loses a wakeup in 10
// steps, the traces replay on the unreduced model, the result says the
// reduction was on, and the bounds in passing pass. more, if set, checks a
// seeded bug's violation further.
func reducedKeepsVerdicts(t *testing.T, name string, set func(*Options), passing []Bounds, more func(SeededBugCase, *Violation)) {
	t.Helper()
	on := func(r Result) bool { return r.Symmetry || r.GSymmetry }
	for _, c := range SeededBugCases() {
		opt := SeededBugOptions
		set(&opt)
		r, _ := Explore(context.Background(), c.Bounds, opt)
		v := r.Violation
		if v == nil || v.Kind != c.Kind || v.Trace.Loop != c.Loop || v.Trace.Stutter != c.Stutter || !on(r) {
			t.Fatalf("%v with %s: %v\n%v", c.Bounds.Bug, name, r, v)
		}
		if more != nil {
			more(c, v)
		}
		checkTraceReplays(t, c.Bounds, v.Trace)
	}
	b := VerifyBounds()
	b.Go = Go119
	opt := Options{Liveness: true, ThreadLimit: true}
	set(&opt)
	r, _ := Explore(context.Background(), b, opt)
	if r.Violation == nil || r.Violation.Kind != KindWorkConservation || r.Violation.Trace.Len() != 13 {
		t.Fatalf("go1.19 with %s: %v\n%v", name, r, r.Violation)
	}
	checkTraceReplays(t, b, r.Violation.Trace)
	for _, b := range passing {
		r, _ := Explore(context.Background(), b, opt)
		if r.Verdict() != "pass" || !r.Liveness || !on(r) {
			t.Fatalf("%v with %s: %v\n%v", b, name, r, r.Violation)
		}
	}
}
