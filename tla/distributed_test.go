package tla

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// distTimeout bounds one distributed run (two JVMs on a loaded 2-core
// machine; GMP.cfg takes TLC about a minute on one worker).
const distTimeout = 5 * time.Minute

// TestDistributedTLC runs GMP.tla under TLC's distributed mode on loopback
// (a TLCServer and one TLCWorker on 127.0.0.1, docs/tla.md "Distributed
// TLC") when TLA2TOOLS_JAR names a tla2tools.jar: a passing cfg must find
// as many distinct states as the Go explorer on the cfg's bounds, and a
// seeded bug must be reported as its invariant. Each run is bounded by
// distTimeout and fails with the server's output when cut short.
//
// A TLC build that cannot hand its fingerprint set to a worker
// (tlacheck.ErrDistributedFPSet: the shared build at tlaplus/tlaplus
// cc6b616cf7e7 is one) is run again with DistributedOptions.ExportFPSet,
// which needs javac; without javac the test skips, saying why.
func TestDistributedTLC(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("TLA2TOOLS_JAR not set: no real TLC to run distributed")
	}
	if abs, err := filepath.Abs(jar); err == nil {
		jar = abs
	}
	cases := []struct {
		cfg     string
		outcome tlacheck.Outcome
		name    string
	}{
		{"GMP.cfg", tlacheck.Pass, ""},
		// A seeded bug whose cfg lists two invariants, so that the
		// violated one is named by checking each alone: TypeOK alone
		// passes (4376 states), InvSpinning alone fails. (It was
		// GMP_bug_nmspinning_no_dec until the top of findRunnable took
		// one read per step: there TypeOK alone fails only once
		// nmspinning has leaked past NM, deeper than a breadth-first
		// search gets in distTimeout: 110k states in 4 minutes.)
		{"GMP_bug_retake_ignores_local.cfg", tlacheck.Invariant, "InvSpinning"},
	}
	var opt tlacheck.DistributedOptions
	for _, tc := range cases {
		c, err := tlacheck.ParseCfg(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), distTimeout)
		r, run, err := tlacheck.RunTLCDistributed(ctx, jar, c, opt)
		cancel()
		if errors.Is(err, tlacheck.ErrDistributedFPSet) && !opt.ExportFPSet {
			t.Logf("TLA2TOOLS_JAR=%s: %v", jar, firstLine(err.Error()))
			if _, lookErr := exec.LookPath("javac"); lookErr != nil {
				t.Skipf("TLA2TOOLS_JAR=%s cannot run distributed as it comes (%v), and the way round it needs javac: %v", jar, tlacheck.ErrDistributedFPSet, lookErr)
			}
			opt.ExportFPSet = true
			ctx, cancel := context.WithTimeout(context.Background(), distTimeout)
			r, run, err = tlacheck.RunTLCDistributed(ctx, jar, c, opt)
			cancel()
		}
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		t.Logf("%s: %s on 127.0.0.1:%d (ExportFPSet %v): %s", c.Name, r, run.Port, opt.ExportFPSet, r.Message)
		if r.Outcome != tc.outcome || r.Name != tc.name {
			t.Errorf("%s: distributed TLC says %s %q, want %s %q\n%s", c.Name, r.Outcome, r.Name, tc.outcome, tc.name, run.ServerOutput)
		}
		if tc.outcome != tlacheck.Pass {
			continue
		}
		ex, err := exploreCfg(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: spec.Explore: %v", c.Name, err)
		}
		if r.States != ex.States {
			t.Errorf("%s: distributed TLC found %d distinct states, spec.Explore %d", c.Name, r.States, ex.States)
		}
	}
}
