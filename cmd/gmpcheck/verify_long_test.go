package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/conform"
	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/internal/mutate"
	"github.com/gmpcheck/gmpcheck/spec"
)

func TestVerifyLongUsage(t *testing.T) {
	checkCmdCases(t, []cmdCase{
		{[]string{"verify", "-seed", "5"}, exitUsage, "-seed goes with -long"},
		{[]string{"verify", "-budget", "1m"}, exitUsage, "-budget goes with -long"},
		{[]string{"verify", "-impl-runs", "10"}, exitUsage, "-impl-runs goes with -long"},
		{[]string{"verify", "-long", "-mutants", "0"}, exitUsage, "-mutants 0: want 1..10000"},
		{[]string{"verify", "-long", "-impl-runs", "4"}, exitUsage, "-impl-runs 4: want a multiple of 3"},
		{[]string{"verify", "-long", "-impl-runs", "4002"}, exitUsage, "-impl-runs 4002: want 3..2001"},
		{[]string{"verify", "-long", "-lifecycles", "100"}, exitUsage, "-lifecycles 100: want 20000.."},
		{[]string{"verify", "-long", "-budget", "-1s"}, exitUsage, "-budget -1s: want 0"},
		{[]string{"verify", "-long", "-timeout", "-1s"}, exitUsage, "-timeout -1s"},
		{[]string{"verify", "-long", "-tlc", "/nonexistent/tla2tools.jar"}, exitUsage, "-tlc /nonexistent/tla2tools.jar: not a tla2tools.jar file"},
		{[]string{"verify", "-long", "-run", "("}, exitUsage, "-run \"(\""},
		// The fast tier's stage names are not long stages.
		{[]string{"verify", "-long", "-run", "^queues$"}, exitUsage, "matches no long stage (stages: stress, explore-ps3, tla-long, mutate-sample, conform-long)"},
		{[]string{"verify", "-h"}, exitPass, "With -long, runs the long tier"},
	})
}

// TestVerifyLongBudgetInconclusive: a long stage cut short by its budget
// is INCONCLUSIVE (exit 3), never PASS, and -json says so per stage.
func TestVerifyLongBudgetInconclusive(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := runContext(testCtx, []string{"verify", "-long", "-json", "-run", "^(stress|explore-ps3)$", "-budget", "200ms", "-seed", "1"}, &stdout, &stderr)
	if code != exitInconclusive {
		t.Fatalf("exit %d, want %d\n%s", code, exitInconclusive, stderr.String())
	}
	stages := 0
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", l, err)
		}
		switch m["kind"] {
		case "stage":
			stages++
			if m["verdict"] != "INCONCLUSIVE" || m["budget_seconds"] != 0.2 {
				t.Errorf("stage row %v: want INCONCLUSIVE with budget_seconds 0.2", m)
			}
			if !strings.Contains(m["summary"].(string), "budget 200ms reached") {
				t.Errorf("stage row %v: the summary does not say the budget ran out", m)
			}
		case "result":
			if m["verdict"] != "INCONCLUSIVE" || m["long"] != true || m["seed"] != float64(1) {
				t.Errorf("result row %v", m)
			}
		}
	}
	if stages != 2 {
		t.Errorf("%d stage rows, want 2", stages)
	}
	if !strings.Contains(stderr.String(), "seed 1 (repeat with -seed 1)") {
		t.Errorf("the log does not print the seed:\n%s", stderr.String())
	}
}

// TestCheckStress runs the stress the queues stage and the long stress
// stage share, small: it passes and names its size, and a cancelled run
// is INCONCLUSIVE, not PASS.
func TestCheckStress(t *testing.T) {
	b := queueBudget{ownerOps: 100_000, seed: 1}
	if r := checkStress(context.Background(), io.Discard, b); r.verdict != pass || !strings.Contains(r.summary, "over 6 stress configs of 100000 owner operations") {
		t.Fatalf("%v %q, want PASS over 6 configs of 100000 operations", r.verdict, r.summary)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := checkStress(ctx, io.Discard, b); r.verdict != inconclusive || !strings.Contains(r.summary, "cut short after 0 of 6") {
		t.Fatalf("cancelled: %v %q, want INCONCLUSIVE cut short after 0 of 6", r.verdict, r.summary)
	}
}

// smallExplore is a bound at which the explore-ps3 stage's code runs in
// about a second: go1.26 passes, go1.19 and the seeded bug lose a wakeup.
func smallExplore() spec.Bounds {
	return spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2}
}

// TestExploreLongStageSeededBug runs the explore-ps3 stage's code on a
// small bound: it passes with its go1.19 self-test caught, and fails when
// the model has a seeded bug.
func TestExploreLongStageSeededBug(t *testing.T) {
	ctx := context.Background()
	res := exploreLongStage(ctx, io.Discard, longOptions{explore: smallExplore()})
	if res.verdict != pass || res.seeded != 1 || res.caught != 1 {
		t.Fatalf("correct model: %v %q (seeded %d, caught %d), want PASS with the go1.19 self-test caught", res.verdict, res.summary, res.seeded, res.caught)
	}
	b := smallExplore()
	b.Bug = spec.BugReadyNoWakep
	res = exploreLongStage(ctx, io.Discard, longOptions{explore: b})
	if res.verdict != fail || !strings.Contains(res.summary, "work conservation") {
		t.Fatalf("seeded bug %v: %v %q, want FAIL on work conservation", b.Bug, res.verdict, res.summary)
	}
}

// TestMutationVerdict: a survivor not argued equivalent fails the sample;
// an argued-equivalent one does not; a mutant cut short makes it
// inconclusive.
func TestMutationVerdict(t *testing.T) {
	var eq string
	for id := range mutate.Equivalents {
		eq = id
		break
	}
	killed := mutate.Result{Mutant: mutate.Mutant{ID: "a", Area: mutate.AreaSpec}, Status: mutate.Killed}
	survived := mutate.Result{Mutant: mutate.Mutant{ID: "b", Area: mutate.AreaSpec}, Status: mutate.Survived}
	equivalent := mutate.Result{Mutant: mutate.Mutant{ID: eq, Area: mutate.AreaSpec}, Status: mutate.Survived, Equivalent: mutate.Equivalents[eq]}
	cut := mutate.Result{Mutant: mutate.Mutant{ID: "c", Area: mutate.AreaSpec}, Status: mutate.Inconclusive}
	for _, tc := range []struct {
		rs   []mutate.Result
		want verdict
	}{
		{[]mutate.Result{killed, equivalent}, pass},
		{[]mutate.Result{killed, survived, equivalent}, fail},
		{[]mutate.Result{killed, survived, cut}, fail},
		{[]mutate.Result{killed, cut}, inconclusive},
	} {
		res := mutationVerdict(tc.rs, 7)
		if res.verdict != tc.want {
			t.Errorf("%d results: %v (%s), want %v", len(tc.rs), res.verdict, res.summary, tc.want)
		}
		if tc.want == fail && !strings.Contains(res.summary, "not argued equivalent: b") {
			t.Errorf("the failing summary does not name the survivor: %s", res.summary)
		}
	}
}

// TestConformTally: any rejected run fails the stage, whatever its
// action (the gaps once excused closed; a startm pairing, a steal and an
// exitsyscall among them here); inconclusive runs are tolerated up to the
// long test's 10 %; too few runs are inconclusive.
func TestConformTally(t *testing.T) {
	rej := func(a spec.ActionKind, reason string) conform.ImplResult {
		return conform.ImplResult{Verdict: conform.Rejected, Index: 3, Event: impl.Event{Kind: impl.EvAction, Action: a}, Reason: reason}
	}
	newTally := func() *implTally { return &implTally{filters: map[string]int{}} }
	ok := conform.ImplResult{Verdict: conform.Accepted, Actions: 10, Filtered: map[string]int{"stale-handoff": 1}}
	inc := conform.ImplResult{Verdict: conform.Inconclusive}

	tl := newTally()
	for i := range 19 {
		tl.add(2, uint64(i), ok)
	}
	tl.add(2, 99, inc)
	if v := tl.verdict(20, false); v != pass {
		t.Errorf("19 accepted, 1 inconclusive in 20: %v (%s), want PASS", v, tl)
	}
	if tl.filters["stale-handoff"] != 19 || tl.actions != 190 {
		t.Errorf("filters %v, actions %d", tl.filters, tl.actions)
	}
	if v := tl.verdict(40, false); v != inconclusive {
		t.Errorf("20 of 40 runs done: %v, want INCONCLUSIVE", v)
	}
	if v := tl.verdict(20, true); v != inconclusive {
		t.Errorf("cut short: %v, want INCONCLUSIVE", v)
	}

	for _, r := range []conform.ImplResult{
		rej(spec.ActGlobRunqMiss, "no candidate ...; e.g. event 599 m0 p0 GlobRunqMiss: m0 holds p-1 in the spec"),
		rej(spec.ActSteal, "the spec runs 5, g7 is bound to 6"),
		rej(spec.ActExitSyscallIdleP, "spec: m1: ExitSyscallIdleP is not enabled"),
		rej(spec.ActNewProc, "spec: m0: NewProc is not enabled"),
	} {
		tl = newTally()
		for i := range 99 {
			tl.add(2, uint64(i), ok)
		}
		tl.add(2, 99, r)
		if v := tl.verdict(100, false); v != fail || !strings.Contains(tl.String(), "1 rejected") {
			t.Errorf("one rejection at %v in 100: %v (%s), want FAIL", r.Event.Action, v, tl)
		}
	}

	tl = newTally()
	for i := range 8 {
		tl.add(2, uint64(i), ok)
	}
	tl.add(2, 98, inc)
	tl.add(2, 99, inc)
	if v := tl.verdict(10, false); v != fail {
		t.Errorf("8 of 10 accepted: %v, want FAIL (under 90 %%)", v)
	}
}

// TestKeepRun: a run not accepted is written where the log says, readable
// by conform.ReadEvents, both runs into the one directory made for the
// first.
func TestKeepRun(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	evs := []impl.Event{{Kind: impl.EvAction, Action: spec.ActNewProc, M: 0, P: 0, G: 1}}
	var log strings.Builder
	dir := ""
	keepRun(&log, &dir, conform.ImplRun{Procs: 4, Seed: 4007, Gs: 40}, evs)
	keepRun(&log, &dir, conform.ImplRun{Procs: 8, Seed: 8001, Gs: 40}, evs)
	if dir == "" {
		t.Fatalf("no directory made: %s", log.String())
	}
	for _, k := range []struct{ procs, name string }{{"4", "conform-p4-s4007.events"}, {"8", "conform-p8-s8001.events"}} {
		name, path := k.name, filepath.Join(dir, k.name)
		if !strings.Contains(log.String(), "CONFORM_REPLAY="+k.procs+","+path) {
			t.Errorf("the log does not say how to check %s again:\n%s", path, log.String())
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := conform.ReadEvents(f)
		f.Close()
		if err != nil || len(got) != 1 || got[0].Action != spec.ActNewProc || got[0].G != 1 {
			t.Errorf("%s read back as %v, %v", name, got, err)
		}
	}
}

// TestVerifyLong runs the whole long tier (GMPCHECK_LONG=1; hours on two
// cores, and its budgets add up to 5 h 50 min: give go test -timeout 6h)
// and requires it to pass.
func TestVerifyLong(t *testing.T) {
	if os.Getenv("GMPCHECK_LONG") != "1" {
		t.Skip("long tier: GMPCHECK_LONG=1")
	}
	start := time.Now()
	code, out := runCmd("verify", "-long")
	t.Logf("verify -long: exit %d in %v\n%s", code, time.Since(start).Round(time.Second), out)
	if code != exitPass {
		t.Errorf("verify -long: exit %d, want %d", code, exitPass)
	}
}
