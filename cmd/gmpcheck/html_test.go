package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	i, j := strings.Index(page, "m0: NewProc"), strings.Index(page, "m1: Steal(p0)")
	if i < 0 || j < i {
		t.Errorf("the page lacks the actions in order (NewProc at %d, Steal at %d)", i, j)
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
