package tla

import (
	"errors"
	"sort"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
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

// TestSysnetTakesTheLongCfgsSteps: every action kind the spec takes on
// GMP_syscalls' and GMP_netpoll's bounds it takes on GMP_sysnet's or
// GMP's, which stay in the default tier.
func TestSysnetTakesTheLongCfgsSteps(t *testing.T) {
	_, cfgs := loadCfgs(t)
	byName := map[string]tlacheck.Cfg{}
	for _, c := range cfgs {
		byName[c.Name] = c
	}
	memo := map[string]map[spec.ActionKind]bool{}
	kinds := func(name string) map[spec.ActionKind]bool {
		if k, ok := memo[name]; ok {
			return k
		}
		c, ok := byName[name]
		if !ok {
			t.Fatalf("no cfg %s", name)
		}
		b, err := tlacheck.BoundsFromCfg(c)
		if err != nil {
			t.Fatal(err)
		}
		memo[name] = actionKinds(t, b)
		return memo[name]
	}
	for long, by := range longCoveredBy {
		if !longCfgs[long] {
			t.Errorf("%s is not in tlacheck.LongCfgs: nothing to cover", long)
		}
		have := map[spec.ActionKind]bool{}
		for _, n := range by {
			if longCfgs[n] {
				t.Errorf("%s covers %s but is in the long tier itself", n, long)
			}
			for k := range kinds(n) {
				have[k] = true
			}
		}
		var missing []string
		for k := range kinds(long) {
			if !have[k] {
				missing = append(missing, k.String())
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s takes steps %v that %v never take", long, missing, by)
		}
	}
}

// actionKinds is the set of action kinds on the edges of b's whole state
// graph (transitions cut by the M bound are not edges).
func actionKinds(t *testing.T, b spec.Bounds) map[spec.ActionKind]bool {
	t.Helper()
	md, err := spec.NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	init := md.Init()
	seen := map[spec.State]bool{init: true}
	queue := []spec.State{init}
	kinds := map[spec.ActionKind]bool{}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, a := range md.Enabled(s) {
			next, err := md.Step(s, a)
			if errors.Is(err, spec.ErrNoIdleM) {
				continue // cut by the M bound, as in the graphs compared
			}
			if err != nil {
				t.Fatalf("%v: %v from\n%v: %v", b, a, s, err)
			}
			kinds[a.Kind] = true
			if !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return kinds
}
