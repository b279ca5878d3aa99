package mutate

import (
	"context"
	"go/token"
	"os"
	"strings"
	"testing"
	"time"
)

// TestHarnessBites: on the real tree, with one technique (impl's run-queue
// unit tests), a mutant of runqput's room check (t-h -> t+h) is reported
// killed by the tests that see it, an equivalent rewrite of the same line
// survives,
// a mutant whose text is gone is stale, and one that does not compile is
// not viable. The baseline runs first and must pass.
func TestHarnessBites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the impl test binary three times")
	}
	root := moduleRoot(t)
	opt := Options{Root: root, Parallel: 1, MutantTimeout: 2 * time.Minute, PartTimeout: 30 * time.Second,
		Plan: func(Area) []Technique { return []Technique{techUnit} }}
	r := NewRunner(opt)
	ctx := context.Background()
	base, err := r.Baseline(ctx, []Area{AreaRunq})
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 1 || base[0].Outcome != "pass" || len(r.BaselineFailures()) != 0 {
		t.Fatalf("baseline: %+v %v", base, r.BaselineFailures())
	}
	const line = "\t\tif t-h < q.size() {\n"
	ms := []Mutant{
		{ID: "killed", Kind: KindSemantic, Area: AreaRunq, File: "impl/runq.go", Orig: line, Repl: "\t\tif t+h < q.size() {\n"},
		{ID: "noop", Kind: KindSemantic, Area: AreaRunq, File: "impl/runq.go", Orig: line, Repl: "\t\tif (t - h) < q.size() {\n"},
		{ID: "stale", Kind: KindSemantic, Area: AreaRunq, File: "impl/runq.go", Orig: "no such text in runq.go", Repl: "x"},
		{ID: "broken", Kind: KindSemantic, Area: AreaRunq, File: "impl/runq.go", Orig: line, Repl: "\t\tif t-h < q.size {\n"},
	}
	want := map[string]Status{"killed": Killed, "noop": Survived, "stale": Stale, "broken": NotViable}
	for _, res := range r.Run(ctx, ms) {
		t.Log(res.Line())
		if res.Status != want[res.Mutant.ID] {
			t.Errorf("%s: %s (%s), want %s", res.Mutant.ID, res.Status, res.Detail, want[res.Mutant.ID])
		}
		if res.Status == Killed && (len(res.KilledBy) != 1 || res.KilledBy[0] != "unit" || len(res.Techs[0].Tests) == 0 || res.FirstKill <= 0) {
			t.Errorf("%s: killed by %v, tests %v, in %v: want the unit technique naming its failing tests", res.Mutant.ID, res.KilledBy, res.Techs[0].Tests, res.FirstKill)
		}
	}
	if data, err := os.ReadFile(root + "/impl/runq.go"); err != nil || !strings.Contains(string(data), line) {
		t.Fatalf("the tree was modified: %v", err)
	}
}

// TestApplyOperator: gremlins' positions are byte columns; the swap
// replaces exactly that token, and a position without the token is stale.
func TestApplyOperator(t *testing.T) {
	src := []byte("package p\n\nfunc f(a, b int) bool {\n\treturn a < b && a+1 >= b\n}\n")
	cases := []struct {
		line, col int
		typ, want string
	}{
		{4, 11, "CONDITIONALS_BOUNDARY", "return a <= b && a+1 >= b"},
		{4, 11, "CONDITIONALS_NEGATION", "return a >= b && a+1 >= b"},
		{4, 15, "INVERT_LOGICAL", "return a < b || a+1 >= b"},
		{4, 19, "ARITHMETIC_BASE", "return a < b && a-1 >= b"},
		{4, 22, "CONDITIONALS_BOUNDARY", "return a < b && a+1 > b"},
	}
	for _, c := range cases {
		out, err := applyOperator(src, Mutant{ID: "x", File: "p.go", Line: c.line, Col: c.col, Type: c.typ})
		if err != nil {
			t.Errorf("%d:%d %s: %v", c.line, c.col, c.typ, err)
			continue
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%d:%d %s: got\n%s\nwant %q", c.line, c.col, c.typ, out, c.want)
		}
	}
	if _, err := applyOperator(src, Mutant{ID: "x", File: "p.go", Line: 4, Col: 9, Type: "CONDITIONALS_BOUNDARY"}); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Errorf("a position on an identifier: %v, want stale", err)
	}
	if len(TokenSwaps) != 11 {
		t.Errorf("TokenSwaps has %d types, gremlins v0.6.0 has 11", len(TokenSwaps))
	}
	for typ, m := range TokenSwaps {
		for from, to := range m {
			if from == token.ILLEGAL || to == token.ILLEGAL {
				t.Errorf("%s: bad swap %v -> %v", typ, from, to)
			}
		}
	}
}

// TestParseGremlins reads gremlins' -o report: files outside the measured
// set are dropped, IDs carry the path from the module root.
func TestParseGremlins(t *testing.T) {
	data := []byte(`{"go_module":"m","files":[{"file_name":"runq.go","mutations":[{"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED","line":3,"column":4}]},
		{"file_name":"driver.go","mutations":[{"type":"CONDITIONALS_BOUNDARY","status":"NOT COVERED","line":3,"column":4}]}]}`)
	ms, err := parseGremlins(data, "impl")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].ID != "impl/runq.go:3:4/CONDITIONALS_BOUNDARY" || ms[0].Area != AreaRunq {
		t.Fatalf("got %+v", ms)
	}
	if _, err := parseGremlins([]byte(`{"files":[{"file_name":"runq.go","mutations":[{"type":"NEW_KIND","line":1,"column":1}]}]}`), "impl"); err == nil {
		t.Error("an unknown mutation type was accepted")
	}
}

// TestSampleIsSeeded: the same seed gives the same sample, in list order.
func TestSampleIsSeeded(t *testing.T) {
	var ms []Mutant
	for i := range 100 {
		ms = append(ms, Mutant{ID: string(rune('a'+i%26)) + strings.Repeat("x", i)})
	}
	a, b, c := Sample(ms, 30, 7), Sample(ms, 30, 7), Sample(ms, 30, 8)
	same := func(x, y []Mutant) bool {
		for i := range x {
			if x[i].ID != y[i].ID {
				return false
			}
		}
		return true
	}
	if len(a) != 30 || !same(a, b) || same(a, c) {
		t.Fatalf("sample not a function of its seed: %d %v %v", len(a), same(a, b), same(a, c))
	}
	for i := 1; i < len(a); i++ {
		if len(a[i].ID) <= len(a[i-1].ID) {
			t.Fatal("sample not in list order")
		}
	}
}

// TestMedianKillRunTakesTheFastestKiller: with -matrix a mutant is killed
// by several techniques, and the figure the issue measures is the fastest
// one's run, not the first in plan order; a row from before per-technique
// results (KillRun only) still counts.
func TestMedianKillRunTakesTheFastestKiller(t *testing.T) {
	sec := func(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }
	tr := func(name, outcome string, s float64) TechResult {
		return TechResult{Technique: name, Outcome: outcome, Elapsed: sec(s)}
	}
	m := Mutant{Area: AreaTLA}
	rs := []Result{
		// -matrix: TLC first (40 s), tla-checker faster (3 s).
		{Mutant: m, Status: Killed, KillRun: sec(40), Techs: []TechResult{tr("tla-selftests", "survived", 1), tr("tlc", "killed", 40), tr("tla-checker", "killed", 3)}},
		// the first kill stops the run.
		{Mutant: m, Status: Killed, KillRun: sec(7), Techs: []TechResult{tr("tla-selftests", "killed", 7)}},
		// an old row: KillRun alone.
		{Mutant: m, Status: Killed, KillRun: sec(9)},
		// a Go technique's time to its first failure, not its whole run.
		{Mutant: m, Status: Killed, KillRun: sec(30), Techs: []TechResult{{Technique: "spec-unit", Outcome: "killed", Elapsed: sec(30), ToFail: sec(2)}}},
		{Mutant: m, Status: Survived, Techs: []TechResult{tr("tlc", "survived", 50)}},
	}
	for i, want := range []float64{3, 7, 9, 2, 0} {
		if got := rs[i].FastestKillRun(); got != sec(want) {
			t.Errorf("row %d: FastestKillRun %v, want %v", i, got, sec(want))
		}
	}
	_, total := Summary(rs)
	if got := total.MedianKillRun(); got != sec(7) {
		t.Errorf("MedianKillRun %v, want 7s (of 2, 3, 7, 9)", got)
	}
}

// TestTechSummaryPerAreaAndAlone: techniques are tallied per area, and a
// kill counts as a technique's alone only on a -matrix row where no other
// technique killed (a first-kill row stops at its killer, so it cannot say).
func TestTechSummaryPerAreaAndAlone(t *testing.T) {
	tr := func(name, outcome string) TechResult { return TechResult{Technique: name, Outcome: outcome} }
	runq, spec := Mutant{Area: AreaRunq}, Mutant{Area: AreaSpec}
	rs := []Result{
		{Mutant: runq, Status: Killed, Matrix: true, Techs: []TechResult{tr("unit", "survived"), tr("interleave", "killed")}},
		{Mutant: runq, Status: Killed, Matrix: true, Techs: []TechResult{tr("unit", "killed"), tr("interleave", "killed")}},
		{Mutant: runq, Status: Killed, Techs: []TechResult{tr("unit", "killed")}},
		{Mutant: runq, Status: Survived, Equivalent: "why", Techs: []TechResult{tr("unit", "survived"), tr("interleave", "survived")}},
		{Mutant: spec, Status: Killed, Matrix: true, Techs: []TechResult{tr("unit", "killed"), tr("explorer", "inconclusive")}},
		{Mutant: spec, Status: Survived, Matrix: true, Techs: []TechResult{tr("unit", "survived")}},
	}
	want := map[TechKey]TechTally{
		{AreaRunq, "unit"}:       {Ran: 3, Killed: 2, Alone: 0},
		{AreaRunq, "interleave"}: {Ran: 2, Killed: 2, Alone: 1},
		{AreaSpec, "unit"}:       {Ran: 2, Killed: 1, Alone: 1},
		{AreaSpec, "explorer"}:   {},
	}
	got := TechSummary(rs)
	if len(got) != len(want) {
		t.Errorf("%d tallies, want %d", len(got), len(want))
	}
	for k, w := range want {
		if g := got[k]; g == nil || *g != w {
			t.Errorf("%v: %+v, want %+v", k, g, w)
		}
	}
	var b strings.Builder
	WriteSummary(&b, rs)
	if !strings.Contains(b.String(), "| impl/runq | interleave | 2 | 2 | 100% | 1 |") {
		t.Errorf("summary lacks impl/runq's interleave row:\n%s", b.String())
	}
}
