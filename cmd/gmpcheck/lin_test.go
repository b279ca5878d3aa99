package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
)

func TestLinExitCodes(t *testing.T) {
	checkCmdCases(t, []cmdCase{
		{[]string{"lin", "-q", "-rounds", "50", "-capacity", "4", "-thieves", "1"}, exitPass, "PASS"},
		{[]string{"lin", "-q", "-rounds", "1000000000", "-timeout", "50ms"}, exitInconclusive, "INCONCLUSIVE"},
		{[]string{"lin", "-rounds", "0"}, exitUsage, "-rounds 0: want 1.."},
		{[]string{"lin", "-capacity", "3"}, exitUsage, "capacity"},
		{[]string{"lin", "-thieves", "0"}, exitUsage, "thieves"},
		{[]string{"lin", "-timeout", "-1s"}, exitUsage, "-timeout"},
		{[]string{"lin", "-stage", "-bug", "get-no-cas"}, exitUsage, "-stage takes no -bug"},
		{[]string{"lin", "-bug", "nosuchbug"}, exitUsage, "nosuchbug"},
		{[]string{"lin", "extra"}, exitUsage, "unexpected arguments"},
	})
}

// TestLinSeededBug: with a seeded queue bug, lin catches it (exit 0) and
// writes the visualization to -html, printing its path. The bugs exist only
// in the instrumented build: a default-build binary builds that and re-runs.
func TestLinSeededBug(t *testing.T) {
	path := filepath.Join(t.TempDir(), "violation.html")
	code, out := runCmd("lin", "-q", "-capacity", "4", "-rounds", "6000", "-bug", string(impl.BugGetNoCAS), "-html", path)
	if impl.ActiveBug() != impl.NoBug {
		t.Errorf("lin left seeded bug %s switched on", impl.ActiveBug())
	}
	if code != exitPass || !strings.Contains(out, "is not linearizable") || !strings.Contains(out, "visualization: "+path) ||
		!strings.Contains(out, "seeded bug get-no-cas CAUGHT") {
		t.Fatalf("exit %d, want %d with the visualization's path %s:\n%s", code, exitPass, path, out)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "<html") {
		t.Fatalf("visualization %s: %v (%d bytes)", path, err, len(b))
	}
}

// TestLinSeededBugNoLeftovers: without -html, a caught seeded bug (the
// command passes) leaves no visualization in the temporary directory; the
// output says it was removed. (A failing check keeps it and prints its
// path: TestLinSeededBug and reportLin.)
func TestLinSeededBugNoLeftovers(t *testing.T) {
	pattern := filepath.Join(os.TempDir(), "gmpcheck-lin-cap4-thieves2-seed1-round*-"+string(impl.BugGetNoCAS)+".html")
	old, _ := filepath.Glob(pattern)
	for _, f := range old {
		os.Remove(f)
	}
	code, out := runCmd("lin", "-q", "-capacity", "4", "-rounds", "6000", "-bug", string(impl.BugGetNoCAS))
	if code != exitPass || !strings.Contains(out, "visualization removed") {
		t.Fatalf("exit %d, want %d and the visualization removed:\n%s", code, exitPass, out)
	}
	if left, _ := filepath.Glob(pattern); len(left) > 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}
