package viz

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// tlaFixture is the start of tla-checker's counterexample for
// GMP_bug_ready_no_wakep: the initial state, NewProc, Park, RunqGet.
var tlaFixture = func() string {
	b, err := os.ReadFile("testdata/gmp_ready_no_wakep.trace")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func tlaModel(t *testing.T) spec.Model {
	t.Helper()
	c, err := tlacheck.ParseCfg("../../tla/GMP_bug_ready_no_wakep.cfg")
	if err != nil {
		t.Fatal(err)
	}
	b, err := tlacheck.BoundsFromCfg(c)
	if err != nil {
		t.Fatal(err)
	}
	md, err := spec.NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// A GMP.tla trace becomes spec states, lane by lane, and the spec names
// its steps; the page draws them.
func TestTLAViolation(t *testing.T) {
	tr, err := ParseTLATrace(tlaFixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.States) != 4 || tr.Loop != -1 {
		t.Fatalf("%d states, loop %d; want 4, -1", len(tr.States), tr.Loop)
	}
	md := tlaModel(t)
	v, unnamed, err := TLAViolation(md, tr, spec.KindInvariant, "Invariant 1 violated")
	if err != nil {
		t.Fatal(err)
	}
	st := v.Trace.Steps[1].State // after Park
	if st.G[1] != spec.GWaiting || st.G[2] != spec.GRunnable || st.M[0].PC != spec.MSched || st.P[0].RunNext != 2 ||
		!st.M[1].Spinning || st.M[1].P != 1 || st.NMSpinning != 1 || st.NPIdle != 0 {
		t.Errorf("state 3 read wrong:\n%v", st)
	}
	if got := v.Trace.Steps[1].Action.String(); got != "m0: Park" {
		t.Errorf("step 2 named %q, want m0: Park", got)
	}
	// sched.pidle: p1 alone at first, taken by the first step's wakep.
	if init := v.Trace.Init; init.NPIdle != 1 || init.IdlePs != [spec.MaxPs]int8{1} || st.IdlePs != [spec.MaxPs]int8{} {
		t.Errorf("sched.pidle read wrong: %v, then %v", init.IdlePs, st.IdlePs)
	}
	// Every state read is one the spec's invariants accept.
	states := []spec.State{v.Trace.Init}
	for _, step := range v.Trace.Steps {
		states = append(states, step.State)
	}
	for i, s := range states {
		if err := md.Check(s); err != nil {
			t.Errorf("state %d: %v\n%v", i+1, err, s)
		}
	}
	t.Logf("steps the spec does not name: %v", unnamed)
	var buf bytes.Buffer
	labels := map[int]string{}
	for _, i := range unnamed {
		labels[i] = "?: no spec action"
	}
	if err := Write(&buf, Page{Title: "tla", Bounds: md.Bounds(), Violation: v, StepLabels: labels, Note: "from tla-checker"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"from tla-checker", "Invariant 1 violated", "Park"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// Lassos: tla-checker's cycle marker and TLC's "Back to state N".
func TestParseTLATraceLasso(t *testing.T) {
	tr, err := ParseTLATrace(strings.Replace(tlaFixture, "State 3:", "--- cycle ---\nState 3:", 1))
	if err != nil || tr.Loop != 2 || len(tr.States) != 4 {
		t.Errorf("tla-checker lasso: %d states, loop %d, %v; want 4, 2", len(tr.States), tr.Loop, err)
	}
	tlc := "Error: Temporal property B was violated.\n\nError: The following behavior constitutes a counter-example:\n\n" +
		"State 1: <Initial predicate>\n/\\ x = 1\n/\\ y = <<1,\n  2>>\n\nState 2: <Next line 3>\n/\\ x = 2\n/\\ y = <<>>\n\n" +
		"Back to state 1: <Next line 3, col 1 to line 3, col 9 of module M>\n\n7 states generated\n"
	tr, err = ParseTLATrace(tlc)
	if err != nil || tr.Loop != 0 || len(tr.States) != 2 || tr.States[0]["y"].Len() != 2 {
		t.Fatalf("TLC lasso: %+v, %v", tr, err)
	}
	var buf bytes.Buffer
	if err := WriteVarTrace(&buf, VarTracePage{Title: "t", Kind: "property B", Trace: tr, Labels: []string{"Next"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "returns to state 0") || !strings.Contains(buf.String(), "&lt;&lt;1, 2&gt;&gt;") {
		t.Errorf("the variable page lacks the loop or the values:\n%s", buf.String())
	}
}

// sched.pidle is read in order, top last, and a list entry that is not a
// P is an error, not a silent zero.
func TestSpecStateFromTLAPidle(t *testing.T) {
	tr, err := ParseTLATrace(tlaFixture)
	if err != nil {
		t.Fatal(err)
	}
	md := tlaModel(t)
	first := tr.States[0]
	s, err := SpecStateFromTLA(md, first)
	if err != nil || s.NPIdle != 1 || s.IdlePs[0] != 1 {
		t.Fatalf("initial state: npidle %d, pidle %v, %v", s.NPIdle, s.IdlePs, err)
	}
	bad := strings.Replace(strings.SplitN(tlaFixture, "\n\n", 2)[0], "Pidle |-> <<1>>", "Pidle |-> <<7>>", 1)
	btr, err := ParseTLATrace(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SpecStateFromTLA(md, btr.States[0]); err == nil || !strings.Contains(err.Error(), "not a P") {
		t.Errorf("a list entry that is not a P: err = %v", err)
	}
	none := strings.Replace(strings.SplitN(tlaFixture, "\n\n", 2)[0], "Pidle |-> <<1>>, ", "", 1)
	ntr, err := ParseTLATrace(none)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SpecStateFromTLA(md, ntr.States[0]); err == nil {
		t.Error("a state without Pidle was read")
	}
}
