package tla

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// TestGoLivenessRejectsDivergentModule is the liveness method's seeded-bug
// self-test on the TLA+ side: a GMP.tla whose goschedImpl always puts the G
// on runnext (the gosched-local bug, unconditionally) no longer has the
// spec's graph, so the Go explorer's verdict cannot stand for its
// properties. GoLiveness must say so (Outcome Error), never pass.
func TestGoLivenessRejectsDivergentModule(t *testing.T) {
	sequentialUnderRace(t)
	dir, cfgs := loadCfgs(t)
	if err := tlacheck.CheckInstalled(dir); err != nil {
		t.Fatal(err)
	}
	var c tlacheck.Cfg
	for _, x := range cfgs {
		if x.Name == "GMP" {
			c = x
		}
	}
	if !c.Temporal() {
		t.Fatal("GMP.cfg is expected to be a temporal cfg")
	}
	src, err := os.ReadFile(c.ModulePath())
	if err != nil {
		t.Fatal(err)
	}
	const from = `s2 == IF Bug = "gosched-local" THEN`
	mutant := strings.Replace(string(src), from, `s2 == IF TRUE THEN`, 1)
	if mutant == string(src) {
		t.Fatalf("GMP.tla no longer contains %q: update the seeded mutation", from)
	}
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "GMP.tla"), []byte(mutant), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgText, err := os.ReadFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "GMP.cfg"), cfgText, 0o644); err != nil {
		t.Fatal(err)
	}
	mc, err := tlacheck.ParseCfg(filepath.Join(tmp, "GMP.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfgTimeout)
	defer cancel()
	res, err := tlacheck.GoLiveness(ctx, dir, mc, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != tlacheck.Error {
		t.Fatalf("GoLiveness on a module that diverges from the spec: %v (%s), want an error", res, res.Message)
	}
	if v, _ := tlacheck.Judge(mc, res); v == tlacheck.OK {
		t.Errorf("Judge accepted %v", res)
	}
	t.Logf("rejected: %s", firstLine(res.Message))
}
