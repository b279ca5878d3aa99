package tlacheck

import (
	"context"
	"path/filepath"
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
	// Its whole graph: 25068 states under tla-checker and TLC alike.
	if got := GraphSize(ctx, parse("GMP_bug_ready_no_wakep_live"), 1<<20); got != 25068 {
		t.Errorf("GMP_bug_ready_no_wakep_live: estimate %d, want 25068", got)
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
