package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// explore -html writes the counterexample page on a violation: the seeded
// nmspinning-no-dec bug breaks invariant 5 in two steps, NewProc and
// Steal(p0), and the page names both, in order, with the kind at the top.
func TestExploreHTML(t *testing.T) {
	file := filepath.Join(t.TempDir(), "trace.html")
	code, out := runCmd("explore", "-q", "-ps", "2", "-ms", "3", "-gs", "2", "-spawn", "1", "-syscalls=false",
		"-thread-limit", "-bug", "nmspinning-no-dec", "-html", file)
	if code != exitPass {
		t.Fatalf("exit %d, want %d (the seeded bug caught):\n%s", code, exitPass, out)
	}
	if !strings.Contains(out, "counterexample picture: "+file) {
		t.Errorf("output does not name the page:\n%s", out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	i, j := strings.Index(page, "m0: Gosched"), strings.Index(page, "m1: ResetSpinning")
	if i < 0 || j < i {
		t.Errorf("the page lacks the actions in order (Gosched at %d, ResetSpinning at %d)", i, j)
	}
	for _, want := range []string{"<title>gmpcheck explore: invariant</title>", "invariant 5", "Bug=nmspinning-no-dec"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("the page refers to the network")
	}
}

// Without a violation no page is written; an unwritable file is a usage error.
func TestExploreHTMLNoViolationAndBadPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "pass.html")
	code, out := runCmd("explore", "-q", "-ps", "1", "-ms", "2", "-gs", "1", "-spawn", "0", "-thread-limit", "-html", file)
	if code != exitPass {
		t.Fatalf("exit %d, want a pass:\n%s", code, out)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a page was written for a pass (stat: %v)", err)
	}
	bad := filepath.Join(dir, "missing", "dir", "x.html")
	checkCmdCases(t, []cmdCase{{[]string{"explore", "-q", "-ps", "2", "-ms", "3", "-gs", "2", "-spawn", "1", "-syscalls=false",
		"-thread-limit", "-bug", "nmspinning-no-dec", "-html", bad}, exitUsage, "-html:"}})
}

// interleave -html writes the seeded get-no-cas bug's execution: a lane per
// actor, a column per atomic step, the access in each, the calls' results,
// the replay command; the page needs no network.
func TestInterleaveHTML(t *testing.T) {
	file := filepath.Join(t.TempDir(), "il.html")
	code, out := runCmd("interleave", "-q", "-run", "^steal-put-get$", "-bug", "get-no-cas", "-html", file)
	if code != exitPass || !strings.Contains(out, "counterexample picture: "+file) {
		t.Fatalf("exit %d, want %d naming the page:\n%s", code, exitPass, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, want := range []string{"conservation", "steal-put-get", "seeded bug get-no-cas", "load head", "owner", "thief", "-replay "} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") || strings.Contains(page, "src=") {
		t.Error("the page refers to the network")
	}
}

// tla -html: a GMP.tla counterexample (the start of tla-checker's for
// GMP_bug_ready_no_wakep) is drawn with the explorer's lanes, the steps
// named by the spec; a RunQueue.tla-style one as a table of variables.
// (In-process on a recorded trace: running tla-checker takes a minute.)
func TestTLAHTML(t *testing.T) {
	dir := t.TempDir()
	trace, err := os.ReadFile("../../internal/viz/testdata/gmp_ready_no_wakep.trace")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tlacheck.ParseCfg("../../tla/GMP_bug_ready_no_wakep.cfg")
	if err != nil {
		t.Fatal(err)
	}
	rq, err := tlacheck.ParseCfg("../../tla/RunQueue_bug_cas_store.cfg")
	if err != nil {
		t.Fatal(err)
	}
	rows := []tlaRow{
		{cfg: cfg, res: tlacheck.Result{Tool: "tla-checker", Outcome: tlacheck.Invariant, Name: "NoStuckLostWakeup",
			Message: "InvariantViolation: Invariant 1 violated", Trace: string(trace)}},
		{cfg: rq, res: tlacheck.Result{Tool: "TLC", Outcome: tlacheck.Invariant, Name: "NoLossNoDup",
			Trace: "State 1: <Initial predicate>\n/\\ x = 1\n\nState 2: <Next>\n/\\ x = 2\n"}},
		{cfg: rq, res: tlacheck.Result{Tool: "tla-checker", Outcome: tlacheck.Pass}},
	}
	var out strings.Builder
	path := filepath.Join(dir, "tla.html")
	writeTLAPages(&out, path, rows)
	second := filepath.Join(dir, "tla-RunQueue_bug_cas_store-tlc.html")
	for _, f := range []string{path, second} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("the output does not name %s:\n%s", f, out.String())
		}
	}
	gmp, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GMP_bug_ready_no_wakep", "NoStuckLostWakeup", "m0: Park", "sched.runq", "Bug=ready-no-wakep"} {
		if !strings.Contains(string(gmp), want) {
			t.Errorf("the GMP page lacks %q", want)
		}
	}
	vars, err := os.ReadFile(second)
	if err != nil || !strings.Contains(string(vars), "NoLossNoDup") {
		t.Errorf("the RunQueue page: %v", err)
	}
	out.Reset()
	writeTLAPages(&out, filepath.Join(dir, "none.html"), rows[2:])
	if !strings.Contains(out.String(), "no page written") {
		t.Errorf("no counterexample: %s", out.String())
	}
}
