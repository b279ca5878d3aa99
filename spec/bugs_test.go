package spec

import (
	"context"
	"testing"
)

// Each seeded bug must be rejected, by the property it breaks, with a
// counterexample of a known length (SeededBugCases; the explorer is
// deterministic, so the length is exact). The same bounds with BugNone must
// pass: the failure is the bug's, not the bounds'.
func TestSeededBugsAreFound(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	seen := map[Bug]bool{}
	for _, c := range SeededBugCases() {
		b := c.Bounds
		seen[b.Bug] = true
		t.Run(b.Bug.String(), func(t *testing.T) {
			r, err := Explore(context.Background(), b, SeededBugOptions)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Match(r.Violation); err != nil {
				t.Fatalf("%v\n%v\n%v", err, r, r.Violation)
			}
			checkTraceReplays(t, b, r.Violation.Trace)
			if err := cycleUnfair(b, r.Violation); err != nil {
				t.Fatalf("%v\n%v", err, r.Violation)
			}

			b.Bug = BugNone
			requirePass(t, b, SeededBugOptions)
		})
	}
	for _, b := range Bugs() {
		if !seen[b] {
			t.Errorf("seeded bug %v has no case in SeededBugCases", b)
		}
	}
}

// Match must reject a violation of the wrong property or length, so that a
// bug found "by accident" does not count.
func TestSeededBugCaseMatchRejectsOthers(t *testing.T) {
	c := SeededBugCases()[2] // nmspinning-no-dec: invariant 5, 2 steps
	r, err := Explore(context.Background(), c.Bounds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Violation
	if err := c.Match(v); err != nil {
		t.Fatal(err)
	}
	if c.Match(nil) == nil {
		t.Error("nil violation accepted")
	}
	wrong := *v
	wrong.Kind = KindDeadlock
	if c.Match(&wrong) == nil {
		t.Error("wrong kind accepted")
	}
	wrong = *v
	wrong.Err = &InvariantError{Inv: InvSpinning}
	if c.Match(&wrong) == nil {
		t.Error("wrong invariant accepted")
	}
	wrong = *v
	wrong.Trace.Steps = wrong.Trace.Steps[:1]
	if c.Match(&wrong) == nil {
		t.Error("wrong trace length accepted")
	}
}

// checkTraceReplays replays a counterexample through the exported API: every
// action must be enabled, and every state must be the one printed; a cycle
// must return to the state it started from.
func checkTraceReplays(t *testing.T, b Bounds, tr Trace) {
	t.Helper()
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	checkModelTraceReplays(t, md, tr)
}

func checkModelTraceReplays(t *testing.T, md Model, tr Trace) {
	t.Helper()
	s := md.Init()
	if s.Key() != tr.Init.Key() {
		t.Fatalf("trace starts elsewhere than Init")
	}
	var loopStart State
	for i, st := range tr.Steps {
		if i == tr.Loop {
			loopStart = s
		}
		ns, err := md.Step(s, st.Action)
		if err != nil {
			t.Fatalf("step %d %v: %v", i+1, st.Action, err)
		}
		if ns.Key() != st.State.Key() {
			t.Fatalf("step %d %v: replay gives\n%v\nwant\n%v", i+1, st.Action, ns, st.State)
		}
		s = ns
	}
	if tr.Loop >= 0 && s.Key() != loopStart.Key() {
		t.Fatalf("cycle does not return to its start:\n%v\nvs\n%v", s, loopStart)
	}
}
