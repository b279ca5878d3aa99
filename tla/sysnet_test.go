package tla

import (
	"context"
	"maps"
	"sort"
	"testing"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// longCoveredBy names, for a passing long cfg that left the default tier
// for time alone, the default-tier cfgs that take every kind of step it
// takes, so that tla-checker's labelled graph cross-check still sees each
// of GMP.tla's actions there under its name (at smaller bounds).
var longCoveredBy = map[string][]string{
	"GMP_syscalls": {"GMP_sysnet", "GMP"},
	"GMP_netpoll":  {"GMP_sysnet", "GMP"},
}

// TestSysnetTakesTheLongCfgsSteps: every action label on the spec's graph
// at GMP_syscalls' and GMP_netpoll's bounds is on its graph at GMP_sysnet's
// or GMP's, which stay in the default tier.
func TestSysnetTakesTheLongCfgsSteps(t *testing.T) {
	sequentialUnderRace(t)
	_, cfgs := loadCfgs(t)
	byName := map[string]tlacheck.Cfg{}
	for _, c := range cfgs {
		byName[c.Name] = c
	}
	memo := map[string]map[string]bool{}
	labels := func(name string) map[string]bool {
		if l, ok := memo[name]; ok {
			return l
		}
		c, ok := byName[name]
		if !ok {
			t.Fatalf("no cfg %s", name)
		}
		b, err := tlacheck.BoundsFromCfg(c)
		if err != nil {
			t.Fatal(err)
		}
		g, err := tlacheck.ExploreSpecGraph(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		memo[name] = g.Labels()
		return memo[name]
	}
	for long, by := range longCoveredBy {
		if !longCfgs[long] {
			t.Errorf("%s is not in tlacheck.LongCfgs: nothing to cover", long)
		}
		have := map[string]bool{}
		for _, n := range by {
			if longCfgs[n] {
				t.Errorf("%s covers %s but is in the long tier itself", n, long)
			}
			maps.Copy(have, labels(n))
		}
		var missing []string
		for l := range labels(long) {
			if !have[l] {
				missing = append(missing, l)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s takes steps %v that %v never take", long, missing, by)
		}
	}
}
