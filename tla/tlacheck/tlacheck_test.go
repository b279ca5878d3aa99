package tlacheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCfg(t *testing.T, name, text string) string {
	t.Helper()
	dir := t.TempDir()
	mod, _, _ := strings.Cut(strings.TrimSuffix(name, ".cfg"), "_")
	if err := os.WriteFile(filepath.Join(dir, mod+".tla"), []byte("---- MODULE "+mod+" ----\n===="), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseCfg(t *testing.T) {
	good := "\\* expect: Inv2\nCONSTANTS\n    N = 3\n    S = {a, b}\nSPECIFICATION Spec\nINVARIANTS\n    Inv1\n    Inv2\nPROPERTY Live\n"
	c, err := ParseCfg(writeCfg(t, "M_bug_x.cfg", good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Module != "M" || c.Expect != "Inv2" || c.ExpectKind() != "invariant" || !c.IsBug() ||
		strings.Join(c.Invariants, ",") != "Inv1,Inv2" || strings.Join(c.Properties, ",") != "Live" ||
		c.Constants["N"] != "3" || c.Constants["S"] != "{a, b}" {
		t.Errorf("parsed %+v", c)
	}
	bad := map[string]string{
		"no expect":           "INVARIANT Inv\n",
		"bug expecting pass":  "\\* expect: pass\nINVARIANT Inv\n",
		"unknown name":        "\\* expect: Nope\nINVARIANT Inv\n",
		"two properties":      "\\* expect: P1\nPROPERTIES P1 P2\n",
		"states on a bug":     "\\* expect: Inv\n\\* states: 5\nINVARIANT Inv\n",
		"bad checker":         "\\* expect: Inv\n\\* checker: spin\nINVARIANT Inv\n",
		"two expect lines":    "\\* expect: Inv\n\\* expect: Inv\nINVARIANT Inv\n",
		"expect with spaces":  "\\* expect: Inv and more\nINVARIANT Inv\n",
		"states not a number": "\\* expect: pass\n\\* states: many\n",
	}
	for name, text := range bad {
		file := "M_bug_x.cfg"
		if strings.HasPrefix(name, "states not") {
			file = "M.cfg"
		}
		if _, err := ParseCfg(writeCfg(t, file, text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseCfg(filepath.Join(t.TempDir(), "Nope.cfg")); err == nil {
		t.Error("a cfg without its module was accepted")
	}
}

func TestParseChecker(t *testing.T) {
	c := Cfg{Name: "M", Invariants: []string{"TypeOK", "Safe"}, Properties: []string{"Live"}, Expect: "Safe"}
	cases := []struct {
		out     string
		outcome Outcome
		name    string
		states  int
	}{
		{`{"success":true,"states_explored":12,"trace":null,"warnings":[]}`, Pass, "", 12},
		{`{"success":false,"error_type":"InvariantViolation","error_message":"Invariant 1 violated","states_explored":7,"trace":["State 0\n x = 1\n"],"warnings":[]}`, Invariant, "Safe", 7},
		{`{"success":false,"error_type":"LivenessViolation","error_message":"Liveness property violated: <>P","states_explored":7,"trace":["a","b"],"warnings":[]}`, Property, "Live", 7},
		{`{"success":false,"error_type":"Deadlock","error_message":"Deadlock detected","states_explored":3,"trace":["x"],"warnings":[]}`, Deadlock, "Deadlock", 3},
		{`{"success":false,"error_type":"MaxStatesExceeded","error_message":"Max states exceeded: 9","states_explored":9,"trace":null,"warnings":[]}`, Limit, "", 9},
		{`{"success":false,"error_type":"ParseError","error_message":"boom","states_explored":0,"trace":null,"warnings":[]}`, Error, "", 0},
	}
	for _, tc := range cases {
		r, err := parseChecker([]byte(tc.out), c, Result{Tool: "tla-checker"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != tc.outcome || r.Name != tc.name || r.States != tc.states {
			t.Errorf("%s: got %v %q %d", tc.out, r.Outcome, r.Name, r.States)
		}
	}
	if _, err := parseChecker([]byte("not json"), c, Result{}); err == nil {
		t.Error("garbage output accepted")
	}
}

func TestParseTLC(t *testing.T) {
	c := Cfg{Name: "M", Properties: []string{"Live"}}
	cases := []struct {
		out     string
		outcome Outcome
		name    string
		states  int
	}{
		{"Model checking completed. No error has been found.\n1234 states generated, 1,000 distinct states found, 0 states left on queue.\n", Pass, "", 1000},
		{"Error: Invariant Safe is violated.\n...\n10 states generated, 9 distinct states found, 1 states left on queue.\n", Invariant, "Safe", 9},
		{"Error: Temporal properties were violated.\n", Property, "Live", 0},
		{"Error: Deadlock reached.\n", Deadlock, "Deadlock", 0},
	}
	for _, tc := range cases {
		r, err := parseTLC(tc.out, c, Result{Tool: "TLC"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != tc.outcome || r.Name != tc.name || r.States != tc.states {
			t.Errorf("%q: got %v %q %d", tc.out, r.Outcome, r.Name, r.States)
		}
	}
	if _, err := parseTLC("Exception in thread main\n", c, Result{}); err == nil {
		t.Error("TLC output without a verdict accepted")
	}
}

func TestJudge(t *testing.T) {
	passCfg := Cfg{Name: "M", Expect: "pass", States: 10}
	bugCfg := Cfg{Name: "M_bug_x", Expect: "Safe", Invariants: []string{"Safe"}}
	cases := []struct {
		c    Cfg
		r    Result
		want Verdict
	}{
		{passCfg, Result{Outcome: Pass, States: 10}, OK},
		{passCfg, Result{Outcome: Pass, States: 11}, Wrong},
		{passCfg, Result{Outcome: Invariant, Name: "Safe"}, Wrong},
		{passCfg, Result{Outcome: Timeout}, Inconclusive},
		{passCfg, Result{Outcome: Limit}, Inconclusive},
		{bugCfg, Result{Outcome: Invariant, Name: "Safe"}, OK},
		{bugCfg, Result{Outcome: Invariant, Name: "Other"}, Wrong},
		{bugCfg, Result{Outcome: Pass}, Wrong},
		{bugCfg, Result{Outcome: Error}, Wrong},
	}
	for _, tc := range cases {
		if got, why := Judge(tc.c, tc.r); got != tc.want {
			t.Errorf("Judge(%s, %v) = %v (%s), want %v", tc.c.Name, tc.r, got, why, tc.want)
		}
	}
}

func TestParseValue(t *testing.T) {
	in := `[a |-> <<1, -2>>, b |-> (0 :> "x" @@ 1 :> TRUE), c |-> {m1, m2}, d |-> [e |-> false]]`
	v, err := ParseValue(in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := v.Field("b")
	x, err := b.Index(0)
	if err != nil || x.Str != "x" {
		t.Errorf("b[0] = %v, %v", x, err)
	}
	a, _ := v.Field("a")
	if e, _ := a.Index(2); e.Int != -2 {
		t.Errorf("a[2] = %v", e)
	}
	for _, bad := range []string{`<<1, 2`, `[a |-> ]`, `"open`, `(1 :> 2 @@ 3)`, `1 2`} {
		if _, err := ParseValue(bad); err == nil {
			t.Errorf("ParseValue(%q) accepted", bad)
		}
	}
}

func TestSafetyCfg(t *testing.T) {
	in := "\\* expect: pass\nCONSTANTS\n    N = 1\nSPECIFICATION FairSpec \\* fair\nPROPERTIES\n    P1\n    P2 \\* two\nINVARIANTS\n    Inv\nPROPERTY P3\n"
	want := "\\* expect: pass\nCONSTANTS\n    N = 1\nSPECIFICATION Spec \\* fair\n \\* two\nINVARIANTS\n    Inv\n"
	if got := SafetyCfg(in, "Spec"); got != want {
		t.Errorf("SafetyCfg:\n%s\nwant:\n%s", got, want)
	}
	if got := SafetyCfg("SPECIFICATION S\nINVARIANT I\n", ""); got != "SPECIFICATION S\nINVARIANT I\n" {
		t.Errorf("SafetyCfg without properties changed the text: %q", got)
	}
	c, err := ParseCfg(writeCfg(t, "M.cfg", in))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Temporal() || c.Spec != "FairSpec" || strings.Join(c.Properties, ",") != "P1,P2,P3" {
		t.Errorf("parsed %+v", c)
	}
}

func TestAttributeTLA(t *testing.T) {
	idle := tlaM{pc: "idle", p: -1, wake: "none"}
	from := []tlaM{{pc: "sched", p: 0, wake: "none"}, idle, {pc: "run", p: 1, curg: 2, wake: "none"}}
	// m0 runs a G (a spinning M calls wakep): the agent is m0.
	to := []tlaM{{pc: "run", p: 0, curg: 1, wake: "pending"}, idle, from[2]}
	if m, err := attributeTLA("RunqGet", from, to); err != nil || m != 0 {
		t.Errorf("SchedStep: got m%d, %v; want m0", m, err)
	}
	// m0's wakep starts m1: the agent is m0 (whose pc is run), not m1.
	from2 := []tlaM{{pc: "run", p: 0, curg: 1, wake: "cas"}, idle, from[2]}
	to = []tlaM{{pc: "run", p: 0, curg: 1, wake: "none"}, {pc: "sched", p: 1, spinning: true, wake: "none"}, from[2]}
	if m, err := attributeTLA("WakepStartM", from2, to); err != nil || m != 0 {
		t.Errorf("WakepStartM: got m%d, %v; want m0", m, err)
	}
	// Preempt of m2's G on p1.
	to = []tlaM{from[0], idle, {pc: "sched", p: 1, wake: "pending"}}
	if p, err := attributeTLA(labelPreempt, from, to); err != nil || p != 1 {
		t.Errorf("Preempt: got p%d, %v; want p1", p, err)
	}
	// A step that changes no M in its schedule loop cannot be a schedule step.
	if _, err := attributeTLA("RunqGet", from, from); err == nil {
		t.Error("an unattributable SchedStep was accepted")
	}
	if a, err := attributeTLA("Gosched", from, to); err != nil || a != -1 {
		t.Errorf("GoroutineStep: got %d, %v; want -1 (no fairness agent)", a, err)
	}
	// StartLockedM by m1 hands its P to m0, locked and not parked yet (at
	// sched, in its loop): both change, the agent is the M leaving
	// startlocked.
	from3 := []tlaM{{pc: "sched", p: 0, wake: "none", nextp: -1}, {pc: "startlocked", p: 1, curg: 1, wake: "none", nextp: -1}}
	to3 := []tlaM{{pc: "sched", p: 0, wake: "none", nextp: 1}, {pc: "stop", p: -1, wake: "none", nextp: -1}}
	if m, err := attributeTLA("StartLockedM", from3, to3); err != nil || m != 1 {
		t.Errorf("StartLockedM: got m%d, %v; want m1", m, err)
	}
	// An M parked in stoplockedm is not in its loop (spec's excused).
	if inLoop("lockedwait", "none") || !inLoop("startlocked", "none") {
		t.Error("inLoop: lockedwait must be excused, startlocked not")
	}
}

func TestReadDOT(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.dot")
	text := "digraph StateGraph {\n  s0 [label=\"x=0\"];\n  s1 [label=\"x=1\"];\n  s0 -> s1 [label=\"Inc\"];\n  s1 -> s0;\n}\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := ReadDOT(p)
	if err != nil {
		t.Fatal(err)
	}
	// The unlabelled edge is kept (with an empty label), not dropped.
	if len(g.States) != 2 || len(g.Edges) != 2 || g.Edges[0] != (Edge{0, 1, "Inc"}) || g.Edges[1] != (Edge{1, 0, ""}) {
		t.Errorf("ReadDOT = %+v", g)
	}
}
