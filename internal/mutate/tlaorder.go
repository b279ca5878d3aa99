package mutate

import (
	"sort"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// cfgWalls holds how long each TLA+ cfg took on the baseline, per technique
// (keyed "technique/cfg"). runTLA stops at the first cfg that fails, so the
// order in which it checks a mutant's cfgs decides how soon a kill comes:
// with the module's own cfg first and the rest by name, a mutant that broke
// every cfg of GMP still waited for GMP.cfg's search. On a mutant the cfgs
// are therefore checked shortest baseline run first. The set checked is
// the same in any order; only the time to the first failure changes.
type cfgWalls map[string]time.Duration

func cfgKey(t Technique, c tlacheck.Cfg) string { return t.Name + "/" + c.Name }

// record notes that c took d on the baseline under t.
func (w cfgWalls) record(t Technique, c tlacheck.Cfg, d time.Duration) {
	w[cfgKey(t, c)] = d
}

// order sorts cfgs shortest baseline run under t first. Cfgs no baseline
// ran keep their order, after the others.
func (w cfgWalls) order(t Technique, cfgs []tlacheck.Cfg) {
	sort.SliceStable(cfgs, func(i, j int) bool {
		di, iok := w[cfgKey(t, cfgs[i])]
		dj, jok := w[cfgKey(t, cfgs[j])]
		if iok != jok {
			return iok
		}
		return iok && di < dj
	})
}
