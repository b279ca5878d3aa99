package tla

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// Tests added for the mutants of docs/mutation.md that every other check
// let live. They read the modules from $GMPCHECK_TLA_DIR when it is set
// (the mutation harness points it at a mutant's directory), else from here.

// tlaDirUnderTest is the directory whose modules a kill test checks.
func tlaDirUnderTest(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("GMPCHECK_TLA_DIR"); d != "" {
		return d
	}
	dir, err := tlacheck.FindDir(".")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// variantDir copies dir's modules and node scripts into a temporary
// directory (node_modules linked), with module's text edited by
// orig -> repl, and a cfg named name with the given text.
func variantDir(t *testing.T, dir, module, orig, repl, name, cfg string) (string, tlacheck.Cfg) {
	t.Helper()
	tmp := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		switch {
		case n == "node_modules":
			target, err := filepath.EvalSymlinks(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(tmp, n)); err != nil {
				t.Fatal(err)
			}
		case strings.HasSuffix(n, ".tla") || strings.HasSuffix(n, ".mjs") || strings.HasSuffix(n, ".json"):
			data, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			if n == module+".tla" {
				if strings.Count(string(data), orig) != 1 {
					t.Fatalf("%s: the text to edit is not there exactly once: %q", n, orig)
				}
				data = []byte(strings.Replace(string(data), orig, repl, 1))
			}
			if err := os.WriteFile(filepath.Join(tmp, n), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(tmp, name+".cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := tlacheck.ParseCfg(path)
	if err != nil {
		t.Fatal(err)
	}
	return tmp, c
}

// TestMutationKillTLANoLossNoDupSeesALoss kills the mutant that weakens
// RunQueue.tla's NoLossNoDup from "exactly once" to "at most once". Every
// seeded RunQueue bug duplicates a G, none loses one, so the weakened
// invariant passed every cfg. Here runqputslow's batch never reaches the
// global queue (its Gs are lost), and NoLossNoDup must say so.
func TestMutationKillTLANoLossNoDupSeesALoss(t *testing.T) {
	sequentialUnderRace(t)
	dir := tlaDirUnderTest(t)
	if err := tlacheck.CheckInstalled(dir); err != nil {
		t.Fatal(err)
	}
	tmp, c := variantDir(t, dir, "RunQueue", "    /\\ gq' = gq \\o obatch\n", "    /\\ gq' = gq\n", "RunQueue_bug_slow_loses",
		`\* expect: NoLossNoDup
CONSTANTS
    Cap = 2
    NG = 3
    Thieves = {t1}
    Bug = "none"
SPECIFICATION Spec
INVARIANTS
    TypeOK
    NoLossNoDup
`)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := tlacheck.RunChecker(ctx, tmp, c, tlacheck.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, msg := tlacheck.Judge(c, res); v != tlacheck.OK {
		t.Fatalf("a runqputslow that loses its batch: %s (%s)", msg, res)
	}
}
