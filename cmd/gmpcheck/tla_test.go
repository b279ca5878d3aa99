package main

import (
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// TestTLASameStates: with -tlc, a TLC run that passes with another
// distinct-state count than tla-checker's is a wrong verdict; equal counts,
// and rows that did not both pass, are left alone.
func TestTLASameStates(t *testing.T) {
	row := func(tool string, o tlacheck.Outcome, states int) tlaRow {
		return tlaRow{res: tlacheck.Result{Tool: tool, Outcome: o, States: states}, verdict: tlacheck.OK}
	}
	jobs := []tlaJob{{0, false}, {0, true}, {1, false}, {1, true}, {2, false}, {2, true}}
	rows := []tlaRow{
		row("tla-checker", tlacheck.Pass, 576), row("TLC", tlacheck.Pass, 577), // differ
		row("tla-checker", tlacheck.Pass, 100), row("TLC", tlacheck.Pass, 100), // equal
		row("tla-checker", tlacheck.Invariant, 9), row("TLC", tlacheck.Invariant, 12), // a violation: counts are partial
	}
	var log strings.Builder
	sameStates(rows, jobs, &log)
	want := []tlacheck.Verdict{tlacheck.OK, tlacheck.Wrong, tlacheck.OK, tlacheck.OK, tlacheck.OK, tlacheck.OK}
	for k, r := range rows {
		if r.verdict != want[k] {
			t.Errorf("row %d (%s cfg %d): verdict %v, want %v (%s)", k, r.res.Tool, jobs[k].i, r.verdict, want[k], r.why)
		}
	}
	if rows[1].why == "" {
		t.Error("the wrong row says nothing")
	}
	if n := strings.Count(log.String(), "WRONG after all"); n != 1 {
		t.Errorf("log reports %d overturned rows, want 1:\n%s", n, log.String())
	}
}

// TestLongestFirst: the jobs start largest first (a cfg of unknown size
// counts as unknownStates, a TLC run as a tlcShare of tla-checker's), ties
// in cfg order; every job exactly once.
func TestLongestFirst(t *testing.T) {
	names := []string{"small", "unknown", "large", "mid"}
	sizes := []int{4000, 0, 280000, 10000}
	var jobs []tlaJob
	for i := range names {
		jobs = append(jobs, tlaJob{i, false}, tlaJob{i, true})
	}
	var got []string
	for _, k := range longestFirst(jobs, sizes) {
		j := jobs[k]
		name := names[j.i]
		if j.tlc {
			name += "/TLC"
		}
		got = append(got, name)
	}
	want := "large large/TLC unknown mid small unknown/TLC mid/TLC small/TLC"
	if strings.Join(got, " ") != want {
		t.Errorf("order %q, want %q", strings.Join(got, " "), want)
	}
}
