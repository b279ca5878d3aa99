package tlacheck

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGraphSize: the explorer's estimate is what the checkers count (each
// pinned cfg's states line, with the line ignored; the whole graph of a cfg
// expected to fail a temporal property, as tla-checker and TLC reported
// it), a pinned count is taken as it is, and a cfg the explorer cannot
// read is unknown.
func TestGraphSize(t *testing.T) {
	parse := func(name string) Cfg {
		c, err := ParseCfg(filepath.Join("..", name+".cfg"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	for _, name := range []string{"GMP", "GMP_mechanisms", "GMP_sysnet"} {
		c := parse(name)
		want := c.States
		if want == 0 {
			t.Fatalf("%s pins no states", name)
		}
		c.States = 0
		if got := GraphSize(ctx, c, 1<<20); got != want {
			t.Errorf("%s: explorer's estimate %d, the cfg pins %d", name, got, want)
		}
	}
	// Its whole graph: 27436 states under tla-checker and TLC alike
	// (25068 before the no-P recheck's becomeSpinning was a step of its
	// own).
	if got := GraphSize(ctx, parse("GMP_bug_ready_no_wakep_live"), 1<<20); got != 27436 {
		t.Errorf("GMP_bug_ready_no_wakep_live: estimate %d, want 27436", got)
	}
	if got := GraphSize(ctx, parse("GMP_mechanisms"), 10); got != parse("GMP_mechanisms").States {
		t.Errorf("a pinned count is taken as it is: %d", got)
	}
	if got := GraphSize(ctx, Cfg{Module: "GMP", Name: "broken"}, 1<<20); got != 0 {
		t.Errorf("bounds that do not parse: %d, want 0", got)
	}
	if got := GraphSize(ctx, parse("RunQueue_bug_cas_store"), 1<<20); got != 0 {
		t.Errorf("an unpinned RunQueue cfg: %d, want 0", got)
	}
}

// TestUnexportedGraph: a graph past maxDOTStates is not asked of
// tla-checker as DOT (GMP_np3's crashed it); its tla-checker run is held to
// the spec's by the distinct-state count, and a count that differs is an
// Error, as a graph that differs is. maxDOTStates is lowered under a
// two-G GMP.cfg's count to take that path at a test's cost.
func TestUnexportedGraph(t *testing.T) {
	dir, err := FindDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckInstalled(dir); err != nil {
		t.Fatal(err)
	}
	parse := func(name string) Cfg {
		c, err := ParseCfg(filepath.Join(dir, name+".cfg"))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	for name, want := range map[string]bool{"GMP_np3": false, "GMP_timers_stw": true, "GMP": true} {
		if got := DOTFits(ctx, parse(name)); got != want {
			t.Errorf("DOTFits(%s) = %v, want %v", name, got, want)
		}
	}

	// GMP.cfg with two Gs and one spawn (a few hundred states, a fifth of
	// a tla-checker second each run), in a directory of its own: the four
	// checker runs below cost what GMP.cfg's took in one.
	src := t.TempDir()
	mod, err := os.ReadFile(filepath.Join(dir, "GMP.tla"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "GMP.tla"), mod, 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(parse("GMP").Path)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, cfg string) Cfg {
		t.Helper()
		path := filepath.Join(src, name+".cfg")
		if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := ParseCfg(path)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	small := regexp.MustCompile(`(?m)^\\\* states: \d+\n`).ReplaceAllString(string(text), "")
	small = strings.Replace(strings.Replace(small, "NG = 3", "NG = 2", 1), "Spawn = 2", "Spawn = 1", 1)
	gmp := write("GMP_small", small)
	if gmp.States != 0 || gmp.Constants["NG"] != "2" || gmp.Constants["Spawn"] != "1" {
		t.Fatalf("GMP.cfg made small: states line %d, NG %s, Spawn %s", gmp.States, gmp.Constants["NG"], gmp.Constants["Spawn"])
	}
	n := GraphSize(ctx, gmp, 1<<20)
	if n < 100 {
		t.Fatalf("GMP_small: %d states, too few to lower maxDOTStates under", n)
	}
	defer func(n int) { maxDOTStates = n }(maxDOTStates)
	maxDOTStates = n - 1
	notExported := fmt.Sprintf("not exported (%d states", n)
	found := fmt.Sprintf("tla-checker found %d states", n)

	res, err := GoLiveness(ctx, dir, gmp, "")
	if err != nil || res.Outcome != Pass || res.States != n || !strings.Contains(res.Message, notExported) {
		t.Errorf("GMP_small, its graph not exported: %v, %v\n%s", res.Outcome, err, res.Message)
	}

	// The explorer reads the bounds from the parsed constants, tla-checker
	// from the file: one spawn more makes the counts differ (and keeps
	// the explorer's graph past maxDOTStates).
	more := gmp
	more.Constants = maps.Clone(more.Constants)
	more.Constants["Spawn"] = "2"
	res, err = GoLiveness(ctx, dir, more, "")
	if err != nil || res.Outcome != Error || !strings.Contains(res.Message, found) {
		t.Errorf("counts that differ: %v, %v\n%s", res.Outcome, err, res.Message)
	}

	// checkUnexported, CheckCfg's path for a passing GMP cfg that is not
	// temporal: the same bounds under Spec, without the properties.
	cfg := strings.Replace(small, "SPECIFICATION FairSpec", "SPECIFICATION Spec", 1)
	cfg = regexp.MustCompile(`(?s)PROPERTIES\n.*?\nINVARIANTS`).ReplaceAllString(cfg, "INVARIANTS")
	safety := write("GMP_safety", cfg)
	if safety.Temporal() {
		t.Fatal("GMP_safety is temporal")
	}
	res, err = CheckCfg(ctx, dir, safety)
	if err != nil || res.Outcome != Pass || !strings.Contains(res.Message, notExported) {
		t.Errorf("GMP_small under Spec, its graph not exported: %v, %v\n%s", res.Outcome, err, res.Message)
	}
	safety.Constants["Spawn"] = "2"
	res, err = CheckCfg(ctx, dir, safety)
	if err != nil || res.Outcome != Error || !strings.Contains(res.Message, found) {
		t.Errorf("counts that differ under Spec: %v, %v\n%s", res.Outcome, err, res.Message)
	}
}
