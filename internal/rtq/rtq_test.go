package rtq

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/rtq/harness"
)

// localGOROOT is the toolchain running the tests, whose proc.go is
// extracted (never copied into the repository: mutants are made in a
// temporary directory at test time).
func localGOROOT(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(root, "src", "runtime", "proc.go")); err != nil {
		t.Fatalf("the local toolchain has no src/runtime/proc.go: %v", err)
	}
	return root
}

// quick is a small budget: seconds per release.
var quick = []string{"-seqs", "30", "-steps", "100", "-rapidchecks", "30", "-ops", "20000", "-rounds", "30"}

func TestExtractLocal(t *testing.T) {
	e, err := Extract(localGOROOT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(slices.Clone(Required), Optional...) {
		if !e.has(f) {
			t.Errorf("%s: %s not found", e.Release, f)
		}
	}
	// Go 1.25 changed globrunqget, globrunqputbatch, runqputbatch and
	// runqdrain; the local toolchain is newer.
	if e.Shape.GlobGetLocal || e.Shape.PutBatchQsize || e.Shape.DrainCount || e.Shape.GlobPutBatchN || !e.Shape.GlobSizeInRunq {
		t.Errorf("%s: shape %+v, want 1.25's", e.Release, e.Shape)
	}
	src, err := e.Source("rq4")
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"atomic.", "len(pp.runq)", "[256]guintptr", "randomizeScheduler", "pp.runnext.cas"} {
		if strings.Contains(string(src), gone) {
			t.Errorf("rewritten code still has %q", gone)
		}
	}
}

// mutant is Mutant in a test's temporary directory.
func mutant(t *testing.T, name, fn, re, repl string) string {
	t.Helper()
	root, err := Mutant(localGOROOT(t), t.TempDir(), name, fn, re, repl)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func logReport(t *testing.T, rep *Report) {
	t.Helper()
	t.Logf("%s: %s in %v", rep.Release, rep.Verdict(), rep.Elapsed)
	if rep.Err != nil {
		t.Logf("error: %v", rep.Err)
	}
	for _, r := range rep.Results {
		t.Logf("  %-10s cap %3d %-12s %s %s", r.Check, r.Cap, r.Verdict, r.Count, firstLine(r.Detail))
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

var (
	shared     sync.Once
	sharedReps []*Report
)

// reports checks the local toolchain and every mutant with one build of
// one generated program (building is most of the cost): the local release
// at the quick budget with every check, each mutant with only the check
// that must reject it.
func reports(t *testing.T) (local *Report, muts []*Report) {
	t.Helper()
	shared.Do(func() {
		roots := []string{localGOROOT(t)}
		extra := [][]string{nil}
		caps := [][]int{nil} // the local release at every capacity, the mutants at 4
		for _, m := range mutants {
			roots = append(roots, mutant(t, m.name, m.fn, m.re, m.repl))
			x := []string{"-checks", m.check, "-caps", "4"}
			if m.scenario != "" {
				x = append(x, "-scenarios", m.scenario)
			}
			extra = append(extra, x)
			caps = append(caps, []int{4})
		}
		sharedReps = CheckAll(context.Background(), roots, Options{Args: quick, Extra: extra, Caps: caps})
	})
	if len(sharedReps) != 1+len(mutants) {
		t.Fatal("the shared check did not run")
	}
	return sharedReps[0], sharedReps[1:]
}

func TestLocalToolchainPasses(t *testing.T) {
	rep, _ := reports(t)
	logReport(t, rep)
	if v := rep.Verdict(); v != harness.Pass {
		t.Fatalf("%s: %s, want pass", rep.Release, v)
	}
	for _, check := range []string{"diff", "rapid", "stress", "porcupine", "interleave"} {
		if !slices.ContainsFunc(rep.Results, func(r harness.Result) bool { return r.Check == check }) {
			t.Errorf("check %s did not run", check)
		}
	}
	for _, c := range Caps {
		if !slices.ContainsFunc(rep.Results, func(r harness.Result) bool { return r.Check == "diff" && r.Cap == c }) {
			t.Errorf("no differential at capacity %d", c)
		}
	}
}

// The mutants: each is a bug in a copy of the local proc.go that one of the
// checks must reject. Each runs only that check, to stay fast.
var mutants = []struct {
	name, fn, re, repl string
	check, scenario    string // the check that must reject it (and its one scenario)
}{
	// runqget commits by a store of head instead of its CAS: the owner and
	// a thief take the same G.
	{"get-cas-store", "runqget", `if atomic\.CasRel\(&pp\.runqhead, h, h\+1\) \{`, "if atomic.StoreRel(&pp.runqhead, h+1); true {", "interleave", "steal-put-get"},
	// runqgrab without its "n > len/2" retry of an inconsistent read.
	{"grab-no-retry", "runqgrab", `(?s)if n > uint32\(len\(pp\.runq\)/2\) \{[^}]*\}`, "", "interleave", "stale-grab"},
	// runqgrab takes half rounded down: one G in the ring is never stolen.
	{"grab-half-down", "runqgrab", `n = n - n/2`, "n = n / 2", "diff", ""},
	// runqputslow's batch leaves out its first G, which is lost.
	{"putslow-drops-g", "runqputslow", `gQueue\{batch\[0\]\.guintptr\(\), batch\[n\]\.guintptr\(\), int32\(n \+ 1\)\}`, "gQueue{batch[1].guintptr(), batch[n].guintptr(), int32(n)}", "rapid", ""},
	// runqempty trusts one read of head, tail and runnext.
	{"empty-no-recheck", "runqempty", `if tail == atomic\.Load\(&pp\.runqtail\) \{`, "if true {", "interleave", "empty-recheck"},
	// runqget steals from the wrong end: the ring's tail.
	{"get-from-tail", "runqget", `gp := pp\.runq\[h%uint32\(len\(pp\.runq\)\)\]\.ptr\(\)`, "gp := pp.runq[(t-1)%uint32(len(pp.runq))].ptr()", "porcupine", ""},
}

func TestMutantsRejected(t *testing.T) {
	_, reps := reports(t)
	for i, m := range mutants {
		rep := reps[i]
		logReport(t, rep)
		if rep.Err != nil {
			t.Errorf("%s: the mutant did not build: %v", m.name, rep.Err)
			continue
		}
		if v := rep.Verdict(); v != harness.Fail {
			t.Errorf("%s: %s, want fail", rep.Release, v)
			continue
		}
		if !slices.ContainsFunc(rep.Results, func(r harness.Result) bool { return r.Check == m.check && r.Verdict == harness.Fail }) {
			t.Errorf("%s: its %s check did not fail", m.name, m.check)
		}
	}
}

func TestUnknownNameFails(t *testing.T) {
	root := mutant(t, "unknown-name", "runqget", `next := pp\.runnext`, "next := pp.runnext\n\tgcController.addIdleMarkWorker()")
	rep := Check(context.Background(), root, Options{Args: quick})
	if rep.Err == nil || !strings.Contains(rep.Err.Error(), "gcController") || !strings.Contains(rep.Err.Error(), "unknown-name") {
		t.Fatalf("want an error naming gcController and the release, got %v", rep.Err)
	}
	if rep.Verdict() != harness.Fail {
		t.Fatalf("verdict %s, want fail", rep.Verdict())
	}
}

// A thief's plain load of tail has no yield point: extraction refuses it
// rather than check less than the code does.
func TestPlainLoadFails(t *testing.T) {
	root := mutant(t, "plain-tail", "runqgrab", `t := atomic\.LoadAcq\(&pp\.runqtail\)`, "t := pp.runqtail")
	_, err := Extract(root)
	if err == nil || !strings.Contains(err.Error(), "runqgrab (run by thieves) loads runqtail without an atomic") {
		t.Fatalf("want an error naming runqgrab's plain load of runqtail, got %v", err)
	}
}

func TestMissingFunctionFails(t *testing.T) {
	root := mutant(t, "no-runqgrab", "runqgrab", `^\nfunc runqgrab\(`, "\nfunc runqgrab_gone(")
	_, err := Extract(root)
	if err == nil || !strings.Contains(err.Error(), "runqgrab") || !strings.Contains(err.Error(), "no-runqgrab") {
		t.Fatalf("want an error naming runqgrab and the release, got %v", err)
	}
}
