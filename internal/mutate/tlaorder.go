package mutate

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// tlaBaseline is what the baseline learnt of each TLA+ cfg, for judging a
// mutant's cfgs sooner. runTLA stops at the first cfg that fails, so the
// order in which it checks them decides how soon a kill comes; the set
// checked is the same in any order, and so is every verdict.
//
//   - First the cfgs whose baseline search evaluated the mutant's lines
//     (TLC's coverage). A cfg that never evaluated them explores the same
//     states whatever they say, so it cannot fail; one that did is where a
//     change shows. On the TLA+ catalog this took the median time to the
//     first failure from 20 s to a few (docs/mutation.md, section 0t).
//   - Within each group, shortest baseline run first (walls): with the
//     module's own cfg first and the rest by name, a mutant that broke
//     every cfg of GMP still waited for GMP.cfg's search.
//   - A small cfg runs TLC with the JVM's first-tier compiler only
//     (tlacheck.TLCOptions.QuickStart), which starts sooner; a large one
//     needs the optimizing tier (quickStartStates).
type tlaBaseline struct {
	walls  cfgWalls
	cover  map[string]tlacheck.Coverage // cfg -> TLC's coverage report
	states map[string]int               // cfg -> distinct states TLC found
}

func newTLABaseline() tlaBaseline {
	return tlaBaseline{walls: cfgWalls{}, cover: map[string]tlacheck.Coverage{}, states: map[string]int{}}
}

// quickStartStates: below this many distinct states on the baseline a cfg's
// TLC run is quicker with the first-tier compiler alone. Measured side by
// side on GMP's cfgs (wall, default against first tier): 1,251 states 2.3
// s against 1.5 s, 4,146 2.8 against 2.5; from about 5,000 the optimizing
// tier wins (5,063: 4.7 against 5.5 s; 39,332: 22 against 40 s).
const quickStartStates = 4500

// quickStart reports whether cfg c's TLC run should use QuickStart.
func (b tlaBaseline) quickStart(c tlacheck.Cfg) bool {
	n := b.states[c.Name]
	return n > 0 && n < quickStartStates
}

// lineSpan is a mutant's lines in the unmutated file, 1-based and
// inclusive; the zero span is unknown.
type lineSpan struct{ from, to int }

// changedLines is the span of m's original text in its file.
func changedLines(root string, m Mutant) lineSpan {
	if m.Kind == KindOperator {
		return lineSpan{m.Line, m.Line}
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
	if err != nil || m.Orig == "" {
		return lineSpan{}
	}
	i := strings.Index(string(src), m.Orig)
	if i < 0 {
		return lineSpan{}
	}
	from := 1 + strings.Count(string(src[:i]), "\n")
	return lineSpan{from, from + strings.Count(strings.TrimSuffix(m.Orig, "\n"), "\n")}
}

// reaching names the cfgs whose baseline search evaluated an expression on
// span's lines of module. It is nil when the coverage says nothing of
// those lines (no TLC baseline, or no expression wholly on them): then no
// cfg goes first.
func (b tlaBaseline) reaching(module string, span lineSpan, cfgs []tlacheck.Cfg) map[string]bool {
	if span.from == 0 {
		return nil
	}
	out, known := map[string]bool{}, false
	for _, c := range cfgs {
		reached, k := b.cover[c.Name].Reaches(module, span.from, span.to)
		known = known || k
		if reached {
			out[c.Name] = true
		}
	}
	if !known {
		return nil
	}
	return out
}

// order sorts a mutant's cfgs for technique t: those in first before the
// others, and within each, shortest baseline run under t first.
func (b tlaBaseline) order(t Technique, cfgs []tlacheck.Cfg, first map[string]bool) {
	sort.SliceStable(cfgs, func(i, j int) bool {
		if fi, fj := first[cfgs[i].Name], first[cfgs[j].Name]; fi != fj {
			return fi
		}
		return b.walls.less(t, cfgs[i], cfgs[j])
	})
}

// cfgWalls holds how long each TLA+ cfg took on the baseline, per technique
// (keyed "technique/cfg").
type cfgWalls map[string]time.Duration

func cfgKey(t Technique, c tlacheck.Cfg) string { return t.Name + "/" + c.Name }

// record notes that c took d on the baseline under t.
func (w cfgWalls) record(t Technique, c tlacheck.Cfg, d time.Duration) {
	w[cfgKey(t, c)] = d
}

// less orders a before b when a's baseline run under t was shorter. Cfgs
// no baseline ran come after the others, in their order.
func (w cfgWalls) less(t Technique, a, b tlacheck.Cfg) bool {
	da, aok := w[cfgKey(t, a)]
	db, bok := w[cfgKey(t, b)]
	if aok != bok {
		return aok
	}
	return aok && da < db
}
