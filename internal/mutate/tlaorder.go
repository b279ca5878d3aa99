package mutate

import (
	"sort"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// tlaBaseline is what the baseline learnt of each TLA+ cfg, for judging a
// mutant's cfgs sooner. runTLA stops at the first cfg that fails, so the
// order in which it checks them decides how soon a kill comes; the set
// checked is the same in any order, and so is every verdict. A mutant's
// cfgs go in three tiers (tiers), each shortest baseline run first:
//
//  0. The cfgs that expect a failure of the invariant or property whose
//     definition holds the mutant's lines. A weakened invariant shows
//     where it is meant to fail, and its lines are evaluated on every
//     cfg that checks it, so coverage alone would not pick these.
//  1. The cfgs whose baseline search evaluated the mutant's lines (TLC's
//     coverage). A cfg that never evaluated them explores the same states
//     whatever they say, so it cannot fail; one that did is where a
//     change shows.
//  2. The rest.
//
// Shortest first within a tier: with the module's own cfg first and the
// rest by name, a mutant that broke every cfg of GMP still waited for
// GMP.cfg's search. A small cfg runs TLC with the JVM's first-tier compiler
// only (tlacheck.TLCOptions.QuickStart), which starts sooner; a large one
// needs the optimizing tier (quickStartStates). On the TLA+ catalog these
// took the median time to the first failure from 20 s to 3.3 s
// (docs/mutation.md, section 0t).
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

// changedLines is the span of m's original text in src, its unmutated
// file.
func changedLines(src []byte, m Mutant) lineSpan {
	if m.Kind == KindOperator {
		return lineSpan{m.Line, m.Line}
	}
	i := strings.Index(string(src), m.Orig)
	if i < 0 || m.Orig == "" {
		return lineSpan{}
	}
	from := 1 + strings.Count(string(src[:i]), "\n")
	return lineSpan{from, from + strings.Count(strings.TrimSuffix(m.Orig, "\n"), "\n")}
}

// tiers ranks cfgs for a mutant whose lines are span of module, whose
// unmutated text is src (see tlaBaseline); a cfg not in the map is in the
// last tier. Without coverage of those lines (no TLC baseline, or no
// expression wholly on them) tier 1 is empty.
func (b tlaBaseline) tiers(module string, src []byte, span lineSpan, cfgs []tlacheck.Cfg) map[string]int {
	out := map[string]int{}
	if span.from == 0 {
		return out
	}
	for _, c := range cfgs {
		if reached, _ := b.cover[c.Name].Reaches(module, span.from, span.to); reached {
			out[c.Name] = 1
		}
		if !c.ExpectPass() && c.Expect != "Deadlock" {
			if d := definitionLines(src, c.Expect); d.from != 0 && d.from <= span.from && span.to <= d.to {
				out[c.Name] = 0
			}
		}
	}
	return out
}

// definitionLines is the span of the top-level definition of name in a
// module's text: from its "name ==" (or "name(...) ==") line to its last
// line before the next line that starts in the first column (comments and
// blank lines are not its lines). The zero span when there is none.
func definitionLines(src []byte, name string) lineSpan {
	lines := strings.Split(string(src), "\n")
	for i, l := range lines {
		rest, ok := strings.CutPrefix(l, name)
		if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " "), "==") && !strings.HasPrefix(rest, "(") {
			continue
		}
		end := i
		for j := i + 1; j < len(lines) && !startsDefinition(lines[j]); j++ {
			if t := strings.TrimSpace(lines[j]); t != "" && !strings.HasPrefix(t, `\*`) {
				end = j
			}
		}
		return lineSpan{i + 1, end + 1}
	}
	return lineSpan{}
}

// startsDefinition: a line in the first column that is not a comment.
func startsDefinition(l string) bool {
	return l != "" && l[0] != ' ' && l[0] != '\t' && !strings.HasPrefix(l, `\*`)
}

// order sorts a mutant's cfgs for technique t: by tier (absent: last),
// and within a tier shortest baseline run under t first.
func (b tlaBaseline) order(t Technique, cfgs []tlacheck.Cfg, tier map[string]int) {
	rank := func(c tlacheck.Cfg) int {
		if n, ok := tier[c.Name]; ok {
			return n
		}
		return 2
	}
	sort.SliceStable(cfgs, func(i, j int) bool {
		if ri, rj := rank(cfgs[i]), rank(cfgs[j]); ri != rj {
			return ri < rj
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
