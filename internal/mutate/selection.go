package mutate

import (
	"path/filepath"
	"slices"
	"strings"
)

// AreasOf returns the areas that hold at least one of ms, in Areas'
// order: the areas whose techniques a run of ms needs on the baseline.
func AreasOf(ms ...[]Mutant) []Area {
	var out []Area
	for _, a := range Areas {
		for _, list := range ms {
			if slices.ContainsFunc(list, func(m Mutant) bool { return m.Area == a }) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// TLAModulesOf returns the TLA+ modules that ms mutate, in the order first
// met: the modules whose cfgs the TLA+ baseline must check (Options'
// TLAModules). It is empty when ms has no TLA+ mutant.
func TLAModulesOf(ms []Mutant) []string {
	var out []string
	for _, m := range ms {
		if m.Area != AreaTLA {
			continue
		}
		if mod := strings.TrimSuffix(filepath.Base(m.File), ".tla"); !slices.Contains(out, mod) {
			out = append(out, mod)
		}
	}
	return out
}

// Unhandled returns the IDs of the mutants of rs that survived and are not
// argued equivalent (Equivalents): each needs a check that kills it or an
// argument that it cannot be killed.
func Unhandled(rs []Result) []string {
	var out []string
	for _, r := range rs {
		if r.Status == Survived && r.Equivalent == "" {
			out = append(out, r.Mutant.ID)
		}
	}
	return out
}
