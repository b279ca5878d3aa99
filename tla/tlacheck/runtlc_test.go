package tlacheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// fakeJava is a stand-in for java on PATH (no TLC can be installed where
// this is tested): it records its working directory, the files there and
// its arguments, leaves a trace-explorer module beside the module as TLC
// 1.8 does on a violation, and prints the TLC output in $FAKE_TLC_OUT.
const fakeJava = `#!/bin/sh
for a; do last=$a; done
{ pwd; ls; echo --; printf '%s\n' "$@"; } > "$FAKE_TLC_LOG"
touch "${last%.tla}_TTrace_1700000000.tla"
cat "$FAKE_TLC_OUT"
exit "$FAKE_TLC_STATUS"
`

// onPathAsJava puts script first on PATH as java and returns the path of
// an empty tla2tools.jar beside it: RunTLC's checks of the jar and the
// JVM pass, and the script answers for TLC.
func onPathAsJava(t *testing.T, script string) string {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "java"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	jar := filepath.Join(bin, "tla2tools.jar")
	if err := os.WriteFile(jar, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return jar
}

// TestRunTLCFakeJava runs RunTLC end to end against fakeJava: the command
// line, the working directory (a copy, never the source directory, which
// must not change) and the parse of the output into a Result.
func TestRunTLCFakeJava(t *testing.T) {
	jar := onPathAsJava(t, fakeJava)
	src := filepath.Dir(writeCfg(t, "M_bug_x.cfg", "\\* expect: Safe\nSPECIFICATION Spec\nINVARIANT Safe\n"))
	if err := os.WriteFile(filepath.Join(src, "Other.tla"), []byte("---- MODULE Other ----\n===="), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ParseCfg(filepath.Join(src, "M_bug_x.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(src)
	logPath := filepath.Join(t.TempDir(), "java.log")
	outPath := filepath.Join(t.TempDir(), "tlc.out")
	t.Setenv("FAKE_TLC_LOG", logPath)
	t.Setenv("FAKE_TLC_OUT", outPath)

	cases := []struct {
		out     string
		status  string
		outcome Outcome
		name    string
		states  int
		err     bool
	}{
		{"Error: Invariant Safe is violated.\n10 states generated, 9 distinct states found, 1 states left on queue.\n", "12", Invariant, "Safe", 9, false},
		{"Model checking completed. No error has been found.\n12 states generated, 11 distinct states found, 0 states left on queue.\n", "0", Pass, "", 11, false},
		{"Error: Temporal property Live was violated.\n\nError: The following behavior constitutes a counter-example:\n\nState 1: <Initial predicate>\nx = 0\n\n9 states generated, 5 distinct states found, 0 states left on queue.\n", "13", Property, "Live", 5, false},
		{"Error: unrecognized option\n", "255", Error, "", 0, true},
		// The output and the exit status must agree.
		{"Model checking completed. No error has been found.\n", "12", Error, "", 0, true},
		{"Error: Invariant Safe is violated.\n", "0", Error, "", 0, true},
	}
	for _, tc := range cases {
		if err := os.WriteFile(outPath, []byte(tc.out), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("FAKE_TLC_STATUS", tc.status)
		r, err := RunTLC(context.Background(), jar, c)
		if (err != nil) != tc.err {
			t.Fatalf("%q: err = %v", firstLineOf(tc.out), err)
		}
		if r.Tool != "TLC" || r.Outcome != tc.outcome || r.Name != tc.name || (!tc.err && r.States != tc.states) {
			t.Errorf("%q: got %v %q %d states", firstLineOf(tc.out), r.Outcome, r.Name, r.States)
		}
		if tc.err && !strings.Contains(err.Error(), firstLineOf(tc.out)) {
			t.Errorf("%q: the error does not quote TLC's line: %v", firstLineOf(tc.out), err)
		}
		if !tc.err && tc.outcome != Pass && (r.Message != strings.TrimSuffix(firstLineOf(tc.out), ".") && r.Message != firstLineOf(tc.out)) {
			t.Errorf("%q: Message = %q, want TLC's error line", firstLineOf(tc.out), r.Message)
		}
		log, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		cwdAndFiles, args, _ := strings.Cut(string(log), "--\n")
		lines := strings.Split(strings.TrimSpace(cwdAndFiles), "\n")
		if lines[0] == src {
			t.Errorf("TLC ran in the source directory %s", lines[0])
		}
		for _, f := range []string{"M.tla", "Other.tla", "M_bug_x.cfg"} {
			if !slices.Contains(lines[1:], f) {
				t.Errorf("TLC's directory lacks %s: %v", f, lines[1:])
			}
		}
		want := []string{"-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-lncheck", "final", "-metadir"}
		got := strings.Split(strings.TrimSpace(args), "\n")
		if len(got) != len(want)+4 || !slices.Equal(got[:len(want)], want) ||
			!slices.Equal(got[len(want)+1:], []string{"-config", "M_bug_x.cfg", "M.tla"}) {
			t.Errorf("java arguments %q", got)
		}
		if _, err := os.Stat(lines[0]); !os.IsNotExist(err) {
			t.Errorf("TLC's working directory %s was not removed (%v)", lines[0], err)
		}
	}
	after, _ := os.ReadDir(src)
	if len(after) != len(before) {
		var names []string
		for _, e := range after {
			names = append(names, e.Name())
		}
		t.Errorf("the source directory changed: %v", names)
	}
}

// TestParseTLCWordings: both ways TLC has worded a violated temporal
// property give the property's name, from the line itself when it says it;
// the message is the error line, the trace starts at the counterexample.
func TestParseTLCWordings(t *testing.T) {
	c := Cfg{Name: "M", Properties: []string{"A", "B"}}
	out := "Progress...\nError: Temporal property B was violated.\n\nError: The following behavior constitutes a counter-example:\n\nState 1: <Initial predicate>\nx = 1\n\nBack to state 1: <Next line 3, col 1 to line 3, col 9 of module M>\n\n7 states generated, 3 distinct states found, 0 states left on queue.\n"
	r, err := parseTLCStatus(out, tlcExitLiveness, c, Result{})
	if err != nil || r.Outcome != Property || r.Name != "B" || r.States != 3 {
		t.Fatalf("new wording: %+v, %v", r, err)
	}
	if r.Message != "Error: Temporal property B was violated" {
		t.Errorf("Message = %q", r.Message)
	}
	if !strings.HasPrefix(r.Trace, "Error: The following behavior") || strings.Contains(r.Trace, "Progress") {
		t.Errorf("Trace = %q", r.Trace)
	}
	old := strings.Replace(out, "Temporal property B was violated", "Temporal properties were violated", 1)
	r, err = parseTLCStatus(old, tlcExitLiveness, Cfg{Name: "M", Properties: []string{"A"}}, Result{})
	if err != nil || r.Outcome != Property || r.Name != "A" {
		t.Fatalf("old wording: %+v, %v", r, err)
	}
	if _, err := parseTLCStatus(out, tlcExitSafety, c, Result{}); err == nil {
		t.Error("a liveness violation with exit status 12 accepted")
	}
}

// realTLCModule has one invariant and one temporal property, each
// violated by its own cfg; TestRunTLCReal runs them with a real TLC.
const realTLCModule = `---- MODULE Tiny ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x' = (x + 1) % 3
Spec == Init /\ [][Next]_x
Small == x < 2
Never == <>(x = 5)
====
`

// TestRunTLCReal runs the tla2tools.jar that TLA2TOOLS_JAR names (CI sets
// it when the shared build is present) on a tiny module: an invariant and a
// temporal property violated, and a pass, each parsed from TLC's exit
// status and output.
func TestRunTLCReal(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("TLA2TOOLS_JAR not set: no real TLC to run")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Tiny.tla"), []byte(realTLCModule), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, cfg string
		outcome   Outcome
		prop      string
	}{
		{"Tiny_bug_inv", "\\* expect: Small\nINIT Init\nNEXT Next\nINVARIANT Small\n", Invariant, "Small"},
		{"Tiny_bug_live", "\\* expect: Never\nSPECIFICATION Spec\nPROPERTY Never\n", Property, "Never"},
		{"Tiny", "\\* expect: pass\nSPECIFICATION Spec\n", Pass, ""},
	}
	for _, tc := range cases {
		path := filepath.Join(dir, tc.name+".cfg")
		if err := os.WriteFile(path, []byte(tc.cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := ParseCfg(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := RunTLC(context.Background(), jar, c)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r.Outcome != tc.outcome || r.Name != tc.prop || r.States != 3 {
			t.Errorf("%s: got %s %q, %d states; want %s %q, 3", tc.name, r.Outcome, r.Name, r.States, tc.outcome, tc.prop)
		}
		if tc.outcome != Pass && !strings.HasPrefix(r.Message, "Error: ") {
			t.Errorf("%s: Message = %q, want TLC's error line", tc.name, r.Message)
		}
		t.Logf("%s: %s: %s", tc.name, r, r.Message)
	}
}

const labelModule = `---- MODULE Lab ----
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
Inc == x' = x + 1 /\ UNCHANGED y
Flip == y' = 1 - y /\ UNCHANGED x
Next == Inc \/ Flip
Small == x < 2
====
`

// TestLabelTrace: a counterexample, in tla-checker's format and in TLC's,
// comes out step by step with the action of each step and the variables it
// changed. Needs tla-checker (npm ci in tla/), as the rest of ./tla does.
func TestLabelTrace(t *testing.T) {
	dir, err := FindDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckInstalled(dir); err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "Lab.tla"), []byte(labelModule), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(src, "Lab_bug_small.cfg")
	if err := os.WriteFile(path, []byte("\\* expect: Small\nINIT Init\nNEXT Next\nINVARIANT Small\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ParseCfg(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunChecker(context.Background(), dir, c, RunOptions{})
	if err != nil || r.Outcome != Invariant {
		t.Fatalf("tla-checker: %v, %v", r, err)
	}
	tlcTrace := "Error: The behavior up to this point is:\nState 1: <Initial predicate>\n/\\ x = 0\n/\\ y = 0\n\nState 2: <Next line 6, col 1 to line 6, col 30 of module Lab>\n/\\ x = 1\n/\\ y = 0\n\nState 3: <Next line 6, col 1 to line 6, col 30 of module Lab>\n/\\ x = 2\n/\\ y = 0\n\n5 states generated, 4 distinct states found, 1 states left on queue.\n"
	for _, tc := range []struct{ tool, trace string }{{"tla-checker", r.Trace}, {"TLC", tlcTrace}} {
		out, err := LabelTrace(context.Background(), dir, c, tc.trace)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.tool, err, tc.trace)
		}
		for _, want := range []string{"initial state:", "x = 0", "  1. Inc\n      x = 1\n", "  2. Inc\n      x = 2\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the labelled trace lacks %q:\n%s", tc.tool, want, out)
			}
		}
	}
	if _, err := LabelTrace(context.Background(), dir, c, "State 1\n  x = 7\n  y = 0\n"); err == nil {
		t.Error("a state outside the graph was labelled")
	}
}

// TestRunTLCGraph has a real TLC dump GMP.cfg's state graph and compares it
// with the spec's (CompareTLCGraph), then shows the comparison bites: the
// same dump against the spec with a seeded bug, and the dump with one of
// its transitions removed, must each be reported as a difference.
func TestRunTLCGraph(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("TLA2TOOLS_JAR not set: no real TLC to run")
	}
	dir, err := FindDir(".")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseCfg(filepath.Join(dir, "GMP.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := BoundsFromCfg(c)
	if err != nil {
		t.Fatal(err)
	}
	dot := filepath.Join(t.TempDir(), "GMP.dot")
	ctx := context.Background()
	r, err := RunTLCDump(ctx, jar, c, dot)
	if err != nil || r.Outcome != Pass {
		t.Fatalf("TLC on GMP.cfg: %v, %v", r, err)
	}
	cmp, err := CompareTLCGraph(ctx, dot, b)
	if err != nil {
		t.Fatalf("TLC's graph against the spec: %v", err)
	}
	if cmp.States != r.States || !cmp.Unlabelled || cmp.Edges == 0 {
		t.Errorf("comparison %v: want TLC's %d states and some unlabelled edges", cmp, r.States)
	}
	t.Log(cmp)

	mutant := b
	mutant.Bug = spec.BugGoschedLocal
	if _, err := CompareTLCGraph(ctx, dot, mutant); !errors.Is(err, ErrGraphsDiffer) {
		t.Errorf("TLC's graph against the spec with bug %v: err = %v, want a difference", mutant.Bug, err)
	} else {
		t.Logf("against the %v spec: %v", mutant.Bug, firstLineOf(err.Error()))
	}

	// Remove every line of one transition between two different states.
	text, err := os.ReadFile(dot)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	var cut string
	for _, l := range lines {
		if m := tlcEdgeRE.FindStringSubmatch(l); m != nil && m[1] != m[2] {
			cut = m[1] + " -> " + m[2] + " "
			break
		}
	}
	if cut == "" {
		t.Fatal("no transition between two states in TLC's dump")
	}
	kept := slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, cut) })
	cutDot := filepath.Join(t.TempDir(), "cut.dot")
	if err := os.WriteFile(cutDot, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CompareTLCGraph(ctx, cutDot, b); !errors.Is(err, ErrGraphsDiffer) || !strings.Contains(err.Error(), "1 only in the spec") {
		t.Errorf("TLC's graph without the transition %q: err = %v, want one edge only in the spec", cut, err)
	} else {
		t.Logf("without one transition: %v", err)
	}
}

// TestRunTLCWithOptions: QuickStart puts the JVM's first-tier flag before
// the class path, Workers sets TLC's -workers, Coverage asks for TLC's
// report, and the zero options are RunTLC's command line.
func TestRunTLCWithOptions(t *testing.T) {
	jar := onPathAsJava(t, fakeJava)
	c, err := ParseCfg(writeCfg(t, "M.cfg", "\\* expect: pass\nSPECIFICATION Spec\n"))
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "java.log")
	outPath := filepath.Join(t.TempDir(), "tlc.out")
	if err := os.WriteFile(outPath, []byte("Model checking completed. No error has been found.\n3 distinct states found\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_TLC_LOG", logPath)
	t.Setenv("FAKE_TLC_OUT", outPath)
	t.Setenv("FAKE_TLC_STATUS", "0")
	for _, tc := range []struct {
		opt  TLCOptions
		head []string // the arguments up to -metadir
		also []string // arguments after it, in this order, adjacent
	}{
		{TLCOptions{}, []string{"-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-lncheck", "final", "-metadir"}, nil},
		{TLCOptions{QuickStart: true}, []string{"-XX:+UseParallelGC", "-XX:TieredStopAtLevel=1", "-cp", jar, "tlc2.TLC", "-workers", "1", "-lncheck", "final", "-metadir"}, nil},
		{TLCOptions{Workers: 2}, []string{"-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "2", "-lncheck", "final", "-metadir"}, nil},
		{TLCOptions{Coverage: true}, []string{"-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-lncheck", "final", "-metadir"}, []string{"-coverage", "60"}},
	} {
		r, err := RunTLCWith(context.Background(), jar, c, tc.opt)
		if err != nil || r.Outcome != Pass || r.States != 3 {
			t.Fatalf("%+v: %v, %v", tc.opt, r, err)
		}
		log, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		_, args, _ := strings.Cut(string(log), "--\n")
		got := strings.Split(strings.TrimSpace(args), "\n")
		if len(got) < len(tc.head) || !slices.Equal(got[:len(tc.head)], tc.head) {
			t.Errorf("%+v: java arguments %q, want them to start %q", tc.opt, got, tc.head)
		}
		if i := slices.Index(got, "-coverage"); (tc.also == nil) != (i < 0) || tc.also != nil && !slices.Equal(got[i:min(i+len(tc.also), len(got))], tc.also) {
			t.Errorf("%+v: java arguments %q, want %q among them", tc.opt, got, tc.also)
		}
	}
}
