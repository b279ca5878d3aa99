package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

var nmspin = spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Bug: spec.BugSpinNoDec}

// Stepping, undo and the view: every enabled action of the initial state
// is the spec's, taking one moves the path, undo restores the state.
func TestStepUndo(t *testing.T) {
	s, err := New(nmspin)
	if err != nil {
		t.Fatal(err)
	}
	init := s.State()
	v := s.View()
	if v.Step != 0 || len(v.Enabled) == 0 || v.Invariant != "" || len(v.Ps) != 2 || len(v.Ms) != 3 || len(v.Gs) != 2 {
		t.Fatalf("initial view: %+v", v)
	}
	md, _ := spec.NewModel(nmspin)
	want := md.Enabled(init)
	for i, a := range v.Enabled {
		if a.Label != want[i].String() {
			t.Errorf("enabled %d: %s, the spec says %s", i, a.Label, want[i])
		}
	}
	if err := s.Step(0); err != nil {
		t.Fatal(err)
	}
	next, _ := md.Step(init, want[0])
	if s.State() != next || s.View().Path[0] != want[0].String() || len(s.View().Changed) == 0 {
		t.Errorf("step 0 did not take %v", want[0])
	}
	if err := s.Step(999); err == nil {
		t.Error("a step past the enabled actions was taken")
	}
	if !s.Undo() || s.State() != init || s.Undo() {
		t.Error("undo did not go back to the initial state, once")
	}
	if _, err := json.Marshal(s.View()); err != nil {
		t.Fatal(err)
	}
}

// Load replays the explorer's printed counterexample to the violating
// state, which the live check then flags; a trace with an action that is
// not enabled is refused.
func TestLoadExplorerTrace(t *testing.T) {
	res, err := spec.Explore(context.Background(), nmspin, spec.Options{ThreadLimit: true, Workers: 1})
	if err != nil || res.Violation == nil {
		t.Fatalf("no counterexample: %v", err)
	}
	s, _ := New(nmspin)
	if err := s.Load(res.Violation.String()); err != nil {
		t.Fatal(err)
	}
	v := s.View()
	if v.Step != res.Violation.Trace.Len() || !strings.Contains(v.Invariant, "invariant 5") {
		t.Errorf("after the load: step %d of %d, invariant %q", v.Step, res.Violation.Trace.Len(), v.Invariant)
	}
	if err := s.Load("m2: Steal(p1)\n"); err == nil {
		t.Error("a trace with an action not enabled was loaded")
	}
	if err := s.Load("no actions here"); err == nil {
		t.Error("a text with no action lines was loaded")
	}
}

// Explore in the session finds the same counterexample and loads it; at
// passing bounds it says there is none.
func TestExplore(t *testing.T) {
	s, _ := New(nmspin)
	msg, err := s.Explore(false, 0, 60e9)
	if err != nil || !strings.Contains(msg, "invariant") || s.View().Invariant == "" || s.View().Violation == "" {
		t.Fatalf("explore: %q, %v, view %+v", msg, err, s.View())
	}
	ok, _ := New(spec.Bounds{Ps: 1, Ms: 2, Gs: 1, Cap: 2, SchedTick: 2})
	msg, err = ok.Explore(true, 0, 60e9)
	if err != nil || !strings.Contains(msg, "no violation") {
		t.Errorf("passing bounds: %q, %v", msg, err)
	}
}

func TestBoundsJSON(t *testing.T) {
	b, err := BoundsJSON{Ps: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Go: "go1.19", Bug: "ready-no-wakep"}.Bounds()
	if err != nil || b.Go != spec.Go119 || b.Bug != spec.BugReadyNoWakep {
		t.Errorf("%+v, %v", b, err)
	}
	for _, bad := range []BoundsJSON{{Ps: 9, Gs: 1, Cap: 2}, {Ps: 1, Gs: 1, Cap: 3}, {Ps: 1, Gs: 1, Cap: 2, Go: "go0"}, {Ps: 1, Gs: 1, Cap: 2, Bug: "nope"}} {
		if _, err := bad.Bounds(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if c := Choices(); len(c.Bugs) != len(spec.Bugs())+1 || len(c.Go) != 3 {
		t.Errorf("choices %+v", c)
	}
}
