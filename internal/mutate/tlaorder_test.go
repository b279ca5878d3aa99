package mutate

import (
	"slices"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

func TestCfgWallsOrder(t *testing.T) {
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
	w := cfgWalls{}
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
		in   []string
		want []string
	}{
		{"shortest first", tlc, []string{"GMP", "GMP_bug_no_1_61", "GMP_go121", "GMP_np3"},
			[]string{"GMP_bug_no_1_61", "GMP_go121", "GMP", "GMP_np3"}},
		{"per technique", checker, []string{"GMP_go121", "GMP"}, []string{"GMP", "GMP_go121"}},
		{"unknown last, in their order", tlc, []string{"GMP_z", "GMP", "GMP_a", "GMP_go121"},
			[]string{"GMP_go121", "GMP", "GMP_z", "GMP_a"}},
		{"no baseline keeps the order", Technique{Name: "other"}, []string{"GMP", "GMP_np3", "GMP_go121"},
			[]string{"GMP", "GMP_np3", "GMP_go121"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := cfgs(tc.in...)
			w.order(tc.t, cs)
			if got := names(cs); !slices.Equal(got, tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
		})
	}
}
