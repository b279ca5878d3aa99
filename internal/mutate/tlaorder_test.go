package mutate

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

func TestTLABaselineOrder(t *testing.T) {
	cfgs := func(names ...string) []tlacheck.Cfg {
		var out []tlacheck.Cfg
		for _, n := range names {
			out = append(out, tlacheck.Cfg{Module: "GMP", Name: n})
		}
		return out
	}
	names := func(cs []tlacheck.Cfg) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	tlc, checker := Technique{Name: "tlc", TLA: "tlc"}, Technique{Name: "tla-checker", TLA: "tla-checker"}
	b := newTLABaseline()
	w := b.walls
	for _, r := range []struct {
		t    Technique
		name string
		d    time.Duration
	}{
		{tlc, "GMP", 40 * time.Second},
		{tlc, "GMP_go121", 3 * time.Second},
		{tlc, "GMP_bug_no_1_61", 2 * time.Second},
		{tlc, "GMP_np3", 5 * time.Minute},
		{checker, "GMP", time.Second},
		{checker, "GMP_go121", time.Minute},
	} {
		w.record(r.t, tlacheck.Cfg{Module: "GMP", Name: r.name}, r.d)
	}
	for _, tc := range []struct {
		name string
		t    Technique
		tier map[string]int
		in   []string
		want []string
	}{
		{"shortest first", tlc, nil, []string{"GMP", "GMP_bug_no_1_61", "GMP_go121", "GMP_np3"},
			[]string{"GMP_bug_no_1_61", "GMP_go121", "GMP", "GMP_np3"}},
		{"per technique", checker, nil, []string{"GMP_go121", "GMP"}, []string{"GMP", "GMP_go121"}},
		{"unknown last, in their order", tlc, nil, []string{"GMP_z", "GMP", "GMP_a", "GMP_go121"},
			[]string{"GMP_go121", "GMP", "GMP_z", "GMP_a"}},
		{"no baseline keeps the order", Technique{Name: "other"}, nil, []string{"GMP", "GMP_np3", "GMP_go121"},
			[]string{"GMP", "GMP_np3", "GMP_go121"}},
		{"tier before time, each tier shortest first", tlc, map[string]int{"GMP_np3": 1, "GMP": 1},
			[]string{"GMP", "GMP_bug_no_1_61", "GMP_go121", "GMP_np3"},
			[]string{"GMP", "GMP_np3", "GMP_bug_no_1_61", "GMP_go121"}},
		{"three tiers, unknown last in its tier", tlc, map[string]int{"GMP_z": 1, "GMP_np3": 1, "GMP_go121": 0},
			[]string{"GMP_z", "GMP", "GMP_np3", "GMP_a", "GMP_go121"},
			[]string{"GMP_go121", "GMP_np3", "GMP_z", "GMP", "GMP_a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := cfgs(tc.in...)
			b.order(tc.t, cs, tc.tier)
			if got := names(cs); !slices.Equal(got, tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
		})
	}
}

// tieredSrc is a module for the tier tests: Inv's definition on lines
// 4..6 (its comment and the blank line after it are not its lines), Act on
// lines 8..9.
const tieredSrc = `---- MODULE GMP ----
\\* Inv: the invariant.
A == 1
Inv ==
    /\\ x > 0
    /\\ y > 0

Act(p) == x' = p
    /\\ UNCHANGED y
\\* the end
====
`

// TestTLABaselineTiers: tier 0 the cfgs expecting a failure of the
// definition holding the lines, tier 1 the cfgs whose coverage has an
// evaluated expression wholly on them, the rest in no tier.
func TestTLABaselineTiers(t *testing.T) {
	b := newTLABaseline()
	b.cover["GMP"] = tlacheck.Coverage{{Module: "GMP", From: 4, To: 9, Count: 5}, {Module: "GMP", From: 5, To: 5, Count: 0}, {Module: "GMP", From: 8, To: 9, Count: 3}}
	b.cover["GMP_timers"] = tlacheck.Coverage{{Module: "GMP", From: 5, To: 5, Count: 9}}
	b.cover["GMP_bug_inv"] = tlacheck.Coverage{{Module: "GMP", From: 5, To: 5, Count: 2}, {Module: "GMP", From: 8, To: 8, Count: 2}}
	b.cover["RunQueue"] = tlacheck.Coverage{{Module: "RunQueue", From: 5, To: 5, Count: 9}}
	cfgs := []tlacheck.Cfg{
		{Module: "GMP", Name: "GMP", Expect: "pass"},
		{Module: "GMP", Name: "GMP_timers", Expect: "pass"},
		{Module: "GMP", Name: "GMP_nocover", Expect: "pass"},
		{Module: "GMP", Name: "GMP_bug_inv", Expect: "Inv"},
		{Module: "GMP", Name: "GMP_bug_deadlock", Expect: "Deadlock"},
		{Module: "RunQueue", Name: "RunQueue", Expect: "pass"},
	}
	for _, tc := range []struct {
		name string
		span lineSpan
		want map[string]int
	}{
		{"a line of Inv: its failing cfg first, then those that evaluated it", lineSpan{5, 5}, map[string]int{"GMP_bug_inv": 0, "GMP_timers": 1}},
		{"all of Inv", lineSpan{4, 6}, map[string]int{"GMP_bug_inv": 0, "GMP_timers": 1}},
		{"an action's lines: coverage only", lineSpan{8, 9}, map[string]int{"GMP": 1, "GMP_bug_inv": 1}},
		{"across two definitions: in neither", lineSpan{5, 8}, map[string]int{"GMP_timers": 1, "GMP_bug_inv": 1}},
		{"only an enclosing expression: no tier", lineSpan{6, 7}, map[string]int{}},
		{"unknown span: no tier", lineSpan{}, map[string]int{}},
	} {
		if got := b.tiers("GMP", []byte(tieredSrc), tc.span, cfgs); !maps.Equal(got, tc.want) {
			t.Errorf("%s: tiers = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDefinitionLines(t *testing.T) {
	for name, want := range map[string]lineSpan{"A": {3, 3}, "Inv": {4, 6}, "Act": {8, 9}, "In": {}, "Missing": {}} {
		if got := definitionLines([]byte(tieredSrc), name); got != want {
			t.Errorf("definitionLines(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestChangedLines: a catalog mutant's span is its original text's lines.
func TestChangedLines(t *testing.T) {
	src := []byte("---- MODULE M ----\nA == 1\nB ==\n    /\\ x\n    /\\ y\n====\n")
	for _, tc := range []struct {
		orig string
		want lineSpan
	}{
		{"A == 1", lineSpan{2, 2}},
		{"    /\\ x\n", lineSpan{4, 4}},
		{"B ==\n    /\\ x\n    /\\ y", lineSpan{3, 5}},
		{"not there", lineSpan{}},
		{"", lineSpan{}},
	} {
		m := Mutant{ID: "tla/x", Kind: KindSemantic, File: "tla/M.tla", Orig: tc.orig}
		if got := changedLines(src, m); got != tc.want {
			t.Errorf("changedLines(%q) = %v, want %v", tc.orig, got, tc.want)
		}
	}
	if got := changedLines(src, Mutant{Kind: KindOperator, File: "tla/M.tla", Line: 7}); got != (lineSpan{7, 7}) {
		t.Errorf("an operator mutant: %v, want its line", got)
	}
}

// TestQuickStartSmallCfgs: QuickStart below quickStartStates baseline
// states, never on a cfg the baseline did not count.
func TestQuickStartSmallCfgs(t *testing.T) {
	b := newTLABaseline()
	b.states["small"], b.states["large"] = 1251, quickStartStates
	for name, want := range map[string]bool{"small": true, "large": false, "unknown": false} {
		if got := b.quickStart(tlacheck.Cfg{Name: name}); got != want {
			t.Errorf("quickStart(%s) = %v, want %v", name, got, want)
		}
	}
}
