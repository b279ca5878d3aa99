package tlacheck

import (
	"regexp"
	"strconv"
	"strings"
)

// Coverage is TLC's coverage report of one run (-coverage): each expression
// of the modules that TLC could attribute to a source range, and how often
// the run evaluated it (for an action, the distinct states it found). It
// answers one question, which the mutation harness asks: did this cfg's
// search evaluate anything on these lines? A cfg that never evaluated a
// line explores the same states whatever that line says, so a change there
// cannot fail it; a cfg that did is where to look first.
type Coverage []CoverSpan

// CoverSpan is one entry of a coverage report: the lines From..To of
// Module (1-based, inclusive) and the entry's count.
type CoverSpan struct {
	Module   string
	From, To int
	Count    int
}

// coverEntry matches an entry: "line 338, col 5 to line 341, col 11 of
// module GMP: 768", indented by nesting bars, or an operator's header
// "<Init line 180, col 1 to line 180, col 4 of module GMP>: 3:3". An
// invariant's header has no count and is skipped; its expressions have.
var coverEntry = regexp.MustCompile(`line (\d+), col \d+ to line (\d+), col \d+ of module (\w+)(?: \([^)]*\))?>?: (\d+)`)

// coverHeader opens a coverage report; TLC prints one per interval and
// one at the end, and the last is the whole run's.
const coverHeader = "The coverage statistics"

// ParseCoverage reads the last coverage report in TLC's output (nil when
// there is none).
func ParseCoverage(out string) Coverage {
	i := strings.LastIndex(out, coverHeader)
	if i < 0 {
		return nil
	}
	var cov Coverage
	for _, line := range strings.Split(out[i:], "\n")[1:] {
		m := coverEntry.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		from, _ := strconv.Atoi(m[1])
		to, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[4])
		cov = append(cov, CoverSpan{Module: m[3], From: from, To: to, Count: n})
	}
	return cov
}

// Reaches reports whether the run evaluated an expression lying wholly on
// lines from..to of module (reached), and whether the report has any
// expression there at all (known). An expression that merely encloses the
// lines, such as the whole action, says nothing about them: its other
// branches may be what was evaluated.
func (c Coverage) Reaches(module string, from, to int) (reached, known bool) {
	for _, s := range c {
		if s.Module == module && s.From >= from && s.To <= to {
			known = true
			if s.Count > 0 {
				return true, true
			}
		}
	}
	return false, known
}
