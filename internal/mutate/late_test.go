package mutate

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tla-checker's baseline waits for a mutant only when TLC judges first and
// no -matrix asks for every technique on every mutant.
func TestDeferBaseline(t *testing.T) {
	for _, c := range []struct {
		t      Technique
		tlc    string
		matrix bool
		want   bool
	}{
		{techTLAChecker, "tla2tools.jar", false, true},
		{techTLAChecker, "", false, false},
		{techTLAChecker, "tla2tools.jar", true, false},
		{techTLC, "tla2tools.jar", false, false},
		{techTLATests, "tla2tools.jar", false, false},
		{techSpecUnit, "tla2tools.jar", false, false},
	} {
		r := NewRunner(Options{TLC: c.tlc, Matrix: c.matrix, Log: io.Discard})
		if got := r.deferBaseline(c.t); got != c.want {
			t.Errorf("%s, tlc %q, matrix %v: defer %v, want %v", c.t.Name, c.tlc, c.matrix, got, c.want)
		}
	}
}

// Baseline does not run a deferred technique: it reports it deferred, and
// MergeBaselines puts the late run in its row once a mutant reached it.
func TestBaselineDefersTLAChecker(t *testing.T) {
	r := NewRunner(Options{Root: t.TempDir(), TLC: "tla2tools.jar", Log: io.Discard,
		Plan: func(Area) []Technique { return []Technique{techTLAChecker} }})
	base, err := r.Baseline(context.Background(), []Area{AreaTLA})
	if err != nil {
		t.Fatal(err)
	}
	if len(base) != 1 || base[0].Technique != "tla-checker" || base[0].Outcome != "deferred" {
		t.Fatalf("baseline %+v: want tla-checker deferred", base)
	}
	if len(r.LateBaselines()) != 0 || len(r.BaselineFailures()) != 0 {
		t.Fatalf("late %v, failures %v before any mutant", r.LateBaselines(), r.BaselineFailures())
	}
	late := []TechResult{{Technique: "tla-checker", Outcome: "pass", Elapsed: time.Minute}}
	if got := MergeBaselines(base, late); got[0].Outcome != "pass" || base[0].Outcome != "deferred" {
		t.Fatalf("merged %+v (base %+v): want the late row, base unchanged", got, base)
	}
}

// The first mutants to reach a deferred technique run its baseline once
// and wait for it; the wait is reported, and a failing baseline takes the
// technique out as Baseline would.
func TestReachLateRunsTheBaselineOnce(t *testing.T) {
	for _, c := range []struct {
		outcome string
		ok      bool
	}{{"survived", true}, {"killed", false}} {
		r := NewRunner(Options{Log: io.Discard})
		var runs atomic.Int32
		r.ran["tla-checker"] = true
		r.late["tla-checker"] = &lateBaseline{run: func(context.Context) TechResult {
			runs.Add(1)
			time.Sleep(50 * time.Millisecond)
			return TechResult{Technique: "tla-checker", Outcome: c.outcome, Tests: []string{"GMP"}}
		}}
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, waited := r.reachLate(context.Background(), techTLAChecker)
				if ok != c.ok || waited <= 0 {
					t.Errorf("%s: ok %v after %v, want ok %v after a wait", c.outcome, ok, waited, c.ok)
				}
			}()
		}
		wg.Wait()
		if n := runs.Load(); n != 1 {
			t.Errorf("%s: the baseline ran %d times, want once", c.outcome, n)
		}
		if ok, waited := r.reachLate(context.Background(), techTLAChecker); ok != c.ok || waited != 0 {
			t.Errorf("%s: a later mutant: ok %v, waited %v", c.outcome, ok, waited)
		}
		if _, bad := r.BaselineFailures()["tla-checker"]; bad == c.ok {
			t.Errorf("%s: failures %v", c.outcome, r.BaselineFailures())
		}
		if late := r.LateBaselines(); len(late) != 1 || late[0].Outcome != map[bool]string{true: "pass", false: "FAIL"}[c.ok] {
			t.Errorf("%s: late baselines %+v", c.outcome, late)
		}
		// A technique that is not deferred answers from the baseline at once.
		if ok, waited := r.reachLate(context.Background(), techTLC); ok || waited != 0 {
			t.Errorf("tlc, never run: ok %v, waited %v", ok, waited)
		}
	}
}

// A baseline cut short by an interrupt is no verdict on the tree: Baseline
// returns the context's error and records no technique as failing.
func TestCutShortBaselineRecordsNoFailure(t *testing.T) {
	dir := writePackageP(t, hangFixture, hangFixtureTest)
	tech := Technique{Name: "unit", Parts: []Part{{Pkg: "p", Run: "^TestQuick$"}}}
	r := NewRunner(Options{Root: dir, NoSchemata: true, Log: io.Discard,
		Plan: func(Area) []Technique { return []Technique{tech} }})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Baseline(ctx, []Area{AreaRunq}); err == nil {
		t.Fatal("Baseline on a cancelled context returned no error")
	}
	if bad := r.BaselineFailures(); len(bad) != 0 {
		t.Fatalf("a cut-short baseline recorded failures %v", bad)
	}
}

// A deferred baseline cut short by an interrupt is, as in Baseline, no
// verdict on the tree: it records no failure and its row is not FAIL.
func TestCutShortLateBaselineRecordsNoFailure(t *testing.T) {
	r := NewRunner(Options{Log: io.Discard})
	ctx, cancel := context.WithCancel(context.Background())
	r.ran["tla-checker"] = true
	r.late["tla-checker"] = &lateBaseline{run: func(context.Context) TechResult {
		cancel()
		return TechResult{Technique: "tla-checker", Outcome: "inconclusive", Detail: "cut short"}
	}}
	r.reachLate(ctx, techTLAChecker)
	if bad := r.BaselineFailures(); len(bad) != 0 {
		t.Fatalf("a cut-short deferred baseline recorded failures %v", bad)
	}
	if late := r.LateBaselines(); len(late) != 1 || late[0].Outcome == "FAIL" || late[0].Outcome == "pass" {
		t.Fatalf("late baselines %+v: want the cut-short row, neither pass nor FAIL", late)
	}
}
