package tla

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// apartHandoffStates is the distinct-state count of apart/'s cfg: the
// spec's explorer with its staleHandoffRead knob finds the same
// (spec.TestStaleHandoffReadLosesAWakeup pins it there too).
const apartHandoffStates = 28174

// TestModelsApart has TLC check what the spec's test knob staleHandoffRead
// found (docs/spec.md, "handoffp's read of nmspinning apart from its lock
// section"): GMP.tla extended with the one interleaving of sysmon's
// handoffp that the model's one step leaves out (apart/GMPApart.tla)
// fails WorkConservation, on as many states as the explorer's. The module
// lives in apart/ so that it is not one of the model's cfgs; TLC runs it
// beside a copy of GMP.tla. It needs a real TLC (TLA2TOOLS_JAR), which
// CI's TLC section gives it; without one it is skipped, and says so.
func TestModelsApart(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("TLA2TOOLS_JAR not set: TLC not run on apart/GMPApart.tla")
	}
	dir := t.TempDir()
	for _, f := range []string{"GMP.tla", "apart/GMPApart.tla", "apart/GMPApart_handoff.cfg"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := tlacheck.ParseCfg(filepath.Join(dir, "GMPApart_handoff.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := tlacheck.RunTLC(ctx, jar, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("TLC: %v", res)
	if res.Outcome != tlacheck.Property || res.Name != c.Expect || res.States != apartHandoffStates {
		t.Errorf("TLC: %v; want %s violated on %d states", res, c.Expect, apartHandoffStates)
	}
}
