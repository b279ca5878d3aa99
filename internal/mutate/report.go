package mutate

import (
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Select returns the mutants of the given areas (nil: all) whose ID
// matches re (nil: all), keeping their order.
func Select(ms []Mutant, areas []Area, re *regexp.Regexp) []Mutant {
	var out []Mutant
	for _, m := range ms {
		if len(areas) > 0 && !containsArea(areas, m.Area) {
			continue
		}
		if re != nil && !re.MatchString(m.ID) {
			continue
		}
		out = append(out, m)
	}
	return out
}

func containsArea(as []Area, a Area) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

// Sample returns n of ms chosen by seed (all of them when n >= len(ms)),
// in their original order. The same seed and list give the same sample.
func Sample(ms []Mutant, n int, seed uint64) []Mutant {
	if n >= len(ms) {
		return ms
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := r.Perm(len(ms))[:n]
	sort.Ints(idx)
	out := make([]Mutant, n)
	for i, j := range idx {
		out[i] = ms[j]
	}
	return out
}

// Tally is the count of one row of the summary.
type Tally struct {
	Killed, Survived, Equivalent, NotViable, Stale, Inconclusive int
	kills, runs                                                  []time.Duration
}

// Judged is the number of mutants the rate is over: viable, not stale,
// decided, and not argued equivalent.
func (t Tally) Judged() int { return t.Killed + t.Survived }

// Rate is killed / judged (1 when nothing was judged).
func (t Tally) Rate() float64 {
	if t.Judged() == 0 {
		return 1
	}
	return float64(t.Killed) / float64(t.Judged())
}

// MedianKill is the median time to the first kill, from the mutant's
// start: the overlay builds of the test binaries included.
func (t Tally) MedianKill() time.Duration { return median(t.kills) }

// MedianKillRun is the median, over the killed mutants, of the fastest
// killing technique's time to its first failure, its binaries once built
// (FastestKillRun): the first killing technique's, since a run stops
// there, or with -matrix the fastest of every technique that killed.
func (t Tally) MedianKillRun() time.Duration { return median(t.runs) }

// FastestKillRun is the shortest time to a failure among the techniques
// that killed r (0 if none did): each technique's ToFail, or its whole run
// where there is none (TLA+ techniques, whose checkers stop at the first
// violation, and rows written before ToFail was recorded, whose figure is
// then an upper bound); KillRun for rows that kept no techniques.
func (r Result) FastestKillRun() time.Duration {
	var d time.Duration
	for _, tr := range r.Techs {
		if tr.Outcome != "killed" {
			continue
		}
		t := tr.Elapsed
		if tr.ToFail > 0 {
			t = tr.ToFail
		}
		if d == 0 || t < d {
			d = t
		}
	}
	if d == 0 {
		return r.KillRun
	}
	return d
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	k := append([]time.Duration(nil), ds...)
	sort.Slice(k, func(i, j int) bool { return k[i] < k[j] })
	return k[len(k)/2]
}

func (t *Tally) add(r Result) {
	switch r.Status {
	case Killed:
		t.Killed++
		t.kills = append(t.kills, r.FirstKill)
		t.runs = append(t.runs, r.FastestKillRun())
	case Survived:
		if r.Equivalent != "" {
			t.Equivalent++
		} else {
			t.Survived++
		}
	case NotViable:
		t.NotViable++
	case Stale:
		t.Stale++
	default:
		t.Inconclusive++
	}
}

// Summary tallies results per area and overall.
func Summary(rs []Result) (map[Area]*Tally, *Tally) {
	per := map[Area]*Tally{}
	total := &Tally{}
	for _, r := range rs {
		if per[r.Mutant.Area] == nil {
			per[r.Mutant.Area] = &Tally{}
		}
		per[r.Mutant.Area].add(r)
		total.add(r)
	}
	return per, total
}

// TechTally is one technique's record in one area: how many judged
// mutants it ran on, how many it killed, and how many of those no other
// technique killed (counted on -matrix rows only, where every technique
// ran: that is what a technique adds that the others do not).
type TechTally struct{ Ran, Killed, Alone int }

// TechKey names a technique's tally in one area.
type TechKey struct {
	Area      Area
	Technique string
}

// TechSummary tallies per area and technique (over judged mutants: killed
// or non-equivalent survivors). Without -matrix a technique runs only
// until the first kill, so its Ran counts the mutants that reached it.
func TechSummary(rs []Result) map[TechKey]*TechTally {
	out := map[TechKey]*TechTally{}
	for _, r := range rs {
		if r.Status != Killed && (r.Status != Survived || r.Equivalent != "") {
			continue
		}
		killers := 0
		for _, tr := range r.Techs {
			if tr.Outcome == "killed" {
				killers++
			}
		}
		for _, tr := range r.Techs {
			k := TechKey{r.Mutant.Area, tr.Technique}
			if out[k] == nil {
				out[k] = &TechTally{}
			}
			switch tr.Outcome {
			case "killed":
				out[k].Ran++
				out[k].Killed++
				if r.Matrix && killers == 1 {
					out[k].Alone++
				}
			case "survived":
				out[k].Ran++
			}
		}
	}
	return out
}

// WriteSummary prints the per-area and per-technique tables.
func WriteSummary(w io.Writer, rs []Result) {
	per, total := Summary(rs)
	fmt.Fprintln(w, "| area | killed | survived | equivalent | kill rate (non-equivalent) | not viable | stale | inconclusive | median time to kill (builds included) | median time to the first failure, fastest killing technique |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	row := func(name string, t *Tally) {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %s | %d | %d | %d | %s | %s |\n", name, t.Killed, t.Survived, t.Equivalent,
			pct(t), t.NotViable, t.Stale, t.Inconclusive, t.MedianKill().Round(100*time.Millisecond), t.MedianKillRun().Round(10*time.Millisecond))
	}
	for _, a := range Areas {
		if t := per[a]; t != nil {
			row(string(a), t)
		}
	}
	row("**all**", total)
	fmt.Fprintln(w)
	ts := TechSummary(rs)
	fmt.Fprintln(w, "| area | technique | mutants it ran on | killed | kill rate | killed by it alone (-matrix rows) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, a := range Areas {
		var names []string
		for k := range ts {
			if k.Area == a {
				names = append(names, k.Technique)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			t := ts[TechKey{a, n}]
			rate := "-"
			if t.Ran > 0 {
				rate = fmt.Sprintf("%.0f%%", 100*float64(t.Killed)/float64(t.Ran))
			}
			fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %d |\n", a, n, t.Ran, t.Killed, rate, t.Alone)
		}
	}
}

func pct(t *Tally) string {
	if t.Judged() == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*t.Rate(), t.Killed, t.Judged())
}

// WriteMatrix prints the kill matrix: one row per mutant, one column per
// technique: K killed, . ran and passed, blank not run (an earlier
// technique killed it, or the technique is not in the area's plan), ? cut
// short.
func WriteMatrix(w io.Writer, rs []Result) {
	var cols []string
	seen := map[string]bool{}
	for _, a := range Areas {
		for _, t := range Plan(a) {
			if !seen[t.Name] {
				seen[t.Name] = true
				cols = append(cols, t.Name)
			}
		}
	}
	fmt.Fprintf(w, "| mutant | status | %s | first kill (fastest time to a failure) | killing tests |\n", strings.Join(cols, " | "))
	fmt.Fprintf(w, "|---|---|%s---|---|\n", strings.Repeat("---|", len(cols)))
	for _, r := range rs {
		cell := map[string]string{}
		var tests []string
		for _, tr := range r.Techs {
			switch tr.Outcome {
			case "killed":
				cell[tr.Technique] = "K"
				tests = append(tests, tr.Tests...)
			case "survived":
				cell[tr.Technique] = "."
			default:
				cell[tr.Technique] = "?"
			}
		}
		var cells []string
		for _, c := range cols {
			cells = append(cells, cell[c])
		}
		status := string(r.Status)
		if r.Equivalent != "" {
			status = "equivalent"
		}
		first := ""
		if r.Status == Killed {
			first = fmt.Sprintf("%.1fs (%.2fs)", r.FirstKill.Seconds(), r.FastestKillRun().Seconds())
		}
		if len(tests) > 4 {
			tests = append(tests[:4], "...")
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s |\n", r.Mutant.ID, status, strings.Join(cells, " | "), first, strings.Join(tests, ", "))
	}
}

// Line is a result's one-line log form.
func (r Result) Line() string {
	s := fmt.Sprintf("%-12s %s", r.Status, r.Mutant.ID)
	switch r.Status {
	case Killed:
		s += fmt.Sprintf(" by %s in %.1fs", strings.Join(r.KilledBy, ","), r.FirstKill.Seconds())
		for _, tr := range r.Techs {
			if tr.Outcome == "killed" {
				s += " [" + strings.Join(tr.Tests, ",") + "]"
				break
			}
		}
	case Survived:
		var ran []string
		for _, tr := range r.Techs {
			ran = append(ran, tr.Technique)
		}
		s += " (ran " + strings.Join(ran, ",") + ")"
		if r.Equivalent != "" {
			s += " equivalent: " + r.Equivalent
		}
	default:
		if r.Detail != "" {
			s += ": " + firstLine(r.Detail)
		}
	}
	return s
}
