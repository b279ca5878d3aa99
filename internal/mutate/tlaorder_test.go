package mutate

import (
	"maps"
	"os"
	"path/filepath"
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
		name  string
		t     Technique
		first map[string]bool
		in    []string
		want  []string
	}{
		{"shortest first", tlc, nil, []string{"GMP", "GMP_bug_no_1_61", "GMP_go121", "GMP_np3"},
			[]string{"GMP_bug_no_1_61", "GMP_go121", "GMP", "GMP_np3"}},
		{"per technique", checker, nil, []string{"GMP_go121", "GMP"}, []string{"GMP", "GMP_go121"}},
		{"unknown last, in their order", tlc, nil, []string{"GMP_z", "GMP", "GMP_a", "GMP_go121"},
			[]string{"GMP_go121", "GMP", "GMP_z", "GMP_a"}},
		{"no baseline keeps the order", Technique{Name: "other"}, nil, []string{"GMP", "GMP_np3", "GMP_go121"},
			[]string{"GMP", "GMP_np3", "GMP_go121"}},
		{"reaching first, each group shortest first", tlc, map[string]bool{"GMP_np3": true, "GMP": true},
			[]string{"GMP", "GMP_bug_no_1_61", "GMP_go121", "GMP_np3"},
			[]string{"GMP", "GMP_np3", "GMP_bug_no_1_61", "GMP_go121"}},
		{"reaching first, unknown last in its group", tlc, map[string]bool{"GMP_z": true, "GMP_np3": true},
			[]string{"GMP_z", "GMP", "GMP_np3", "GMP_a"},
			[]string{"GMP_np3", "GMP_z", "GMP", "GMP_a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := cfgs(tc.in...)
			b.order(tc.t, cs, tc.first)
			if got := names(cs); !slices.Equal(got, tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTLABaselineReaching: the cfgs whose baseline coverage has an
// evaluated expression wholly on the mutant's lines, and nil (no
// preference) when no cfg's report has any expression there.
func TestTLABaselineReaching(t *testing.T) {
	b := newTLABaseline()
	b.cover["GMP"] = tlacheck.Coverage{{Module: "GMP", From: 10, To: 40, Count: 5}, {Module: "GMP", From: 12, To: 12, Count: 0}, {Module: "GMP", From: 13, To: 14, Count: 3}}
	b.cover["GMP_timers"] = tlacheck.Coverage{{Module: "GMP", From: 12, To: 12, Count: 9}}
	b.cover["RunQueue"] = tlacheck.Coverage{{Module: "RunQueue", From: 12, To: 12, Count: 9}}
	cfgs := []tlacheck.Cfg{{Module: "GMP", Name: "GMP"}, {Module: "GMP", Name: "GMP_timers"}, {Module: "GMP", Name: "GMP_nocover"}, {Module: "RunQueue", Name: "RunQueue"}}
	for _, tc := range []struct {
		name string
		span lineSpan
		want map[string]bool
	}{
		{"one cfg evaluated the line", lineSpan{12, 12}, map[string]bool{"GMP_timers": true}},
		{"two did, over the span", lineSpan{12, 14}, map[string]bool{"GMP": true, "GMP_timers": true}},
		{"a cfg whose report has the line unevaluated is not first", lineSpan{11, 12}, map[string]bool{"GMP_timers": true}},
		{"only an enclosing expression: no preference", lineSpan{20, 21}, nil},
		{"unknown span: no preference", lineSpan{}, nil},
	} {
		got := b.reaching("GMP", tc.span, cfgs)
		if !maps.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: reaching = %v, want %v", tc.name, got, tc.want)
		}
	}
	b.cover["GMP_timers"] = tlacheck.Coverage{{Module: "GMP", From: 12, To: 12, Count: 0}}
	if got := b.reaching("GMP", lineSpan{12, 12}, cfgs); got == nil || len(got) != 0 {
		t.Errorf("a line every report has and none evaluated: reaching = %v, want an empty set (not nil)", got)
	}
}

// TestChangedLines: a catalog mutant's span is its original text's lines.
func TestChangedLines(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "tla"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "---- MODULE M ----\nA == 1\nB ==\n    /\\ x\n    /\\ y\n====\n"
	if err := os.WriteFile(filepath.Join(root, "tla", "M.tla"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		orig string
		want lineSpan
	}{
		{"A == 1", lineSpan{2, 2}},
		{"    /\\ x\n", lineSpan{4, 4}},
		{"B ==\n    /\\ x\n    /\\ y", lineSpan{3, 5}},
		{"not there", lineSpan{}},
	} {
		m := Mutant{ID: "tla/x", Kind: KindSemantic, File: "tla/M.tla", Orig: tc.orig}
		if got := changedLines(root, m); got != tc.want {
			t.Errorf("changedLines(%q) = %v, want %v", tc.orig, got, tc.want)
		}
	}
	if got := changedLines(root, Mutant{Kind: KindOperator, File: "tla/M.tla", Line: 7}); got != (lineSpan{7, 7}) {
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
