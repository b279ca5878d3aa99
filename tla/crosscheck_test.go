package tla

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// The cross-check of GMP.tla against the executable spec lives in
// tlacheck (gmpgraph.go), shared with 'gmpcheck tla' and with the liveness
// method for temporal cfgs (golive.go). Here it runs on every passing GMP
// cfg, with self-tests that it bites.

// crossCheck compares the graph a checker exported for a GMP cfg with the
// spec's: tla-checker's DOT of a non-temporal cfg, labelled
// (tlacheck.CompareGMPGraph; temporal cfgs get it inside GoLiveness), or
// TLC's dump of a long cfg outside the long tier, unlabelled
// (tlacheck.CompareTLCGraph). The log line starts with what, the
// graph's source (.ci/run prints TLC's).
func crossCheck(t *testing.T, c tlacheck.Cfg, what, dotPath string, compare graphCompare) {
	t.Helper()
	b, err := tlacheck.BoundsFromCfg(c)
	if err != nil {
		t.Fatal(err)
	}
	summary, err := graphDiff(compare, dotPath, b, timeoutFor(c))
	if err != nil {
		t.Errorf("%s against the spec: %v", what, err)
		return
	}
	t.Logf("%s: %s", what, summary)
}

// crossCheckSelfTests shows, on GMP.cfg's graph, that the comparison bites:
// the same graph against the spec with a seeded bug (gosched-local) must
// differ, and so must the graph with one edge relabelled.
func crossCheckSelfTests(t *testing.T, c tlacheck.Cfg, dotPath string) {
	t.Helper()
	b, err := tlacheck.BoundsFromCfg(c)
	if err != nil {
		t.Fatal(err)
	}
	mutant := b
	mutant.Bug = spec.BugGoschedLocal
	if _, err := graphDiff(tlacheck.CompareGMPGraph, dotPath, mutant, cfgTimeout); !errors.Is(err, tlacheck.ErrGraphsDiffer) {
		t.Errorf("cross-check self-test: GMP.tla's graph against the spec with bug %v: err = %v, want a difference", mutant.Bug, err)
	} else {
		t.Logf("cross-check self-test: against the %v spec it reports: %v", mutant.Bug, firstLine(err.Error()))
	}
	// The labels and agents are compared too: the fairness argument rests
	// on them. One RunqGet relabelled as another schedule step, and one
	// Gosched relabelled as a Preempt (same states, another fairness
	// family), must each be caught.
	text, err := os.ReadFile(dotPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, swap := range [][2]string{{"RunqGet", "GlobRunqGetBatch"}, {"Gosched", "Preempt"}} {
		relabel(t, b, dotPath, string(text), swap[0], swap[1])
	}
}

func relabel(t *testing.T, b spec.Bounds, dotPath, text, from, to string) {
	t.Helper()
	relabelled := strings.Replace(text, `[label="`+from+`"]`, `[label="`+to+`"]`, 1)
	if relabelled == text {
		t.Fatalf("cross-check self-test: no %s edge in %s", from, dotPath)
	}
	mut := filepath.Join(t.TempDir(), "relabelled.dot")
	if err := os.WriteFile(mut, []byte(relabelled), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := graphDiff(tlacheck.CompareGMPGraph, mut, b, cfgTimeout); !errors.Is(err, tlacheck.ErrGraphsDiffer) {
		t.Errorf("cross-check self-test: a %s edge relabelled %s was not reported (err = %v)", from, to, err)
	} else {
		t.Logf("cross-check self-test: a %s edge relabelled %s is reported: %v", from, to, firstLine(err.Error()))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// graphCompare is tlacheck.CompareGMPGraph or tlacheck.CompareTLCGraph.
type graphCompare func(context.Context, string, spec.Bounds) (tlacheck.Comparison, error)

// graphDiff returns a one-line summary when the exported graph and the
// spec's graph under b are equal, else an error describing the difference.
func graphDiff(compare graphCompare, dotPath string, b spec.Bounds, limit time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmp, err := compare(ctx, dotPath, b)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%v: %v", b, cmp), nil
}

// TestKeyMapping checks the two renderings on the initial state, without
// any checker: a mismatch here would make every cross-check fail.
func TestKeyMapping(t *testing.T) {
	b := spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2}
	md, err := spec.NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	const label = `st=[G |-> <<"running", "idle">>, GCWaiting |-> false, M |-> (0 :> [curg |-> 1, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> 0, pc |-> "run", scan |-> {}, spinning |-> false, wake |-> "none", tainted |-> false, victim |-> -1, oldp |-> -1, yield |-> false, snapps |-> 0] @@ 1 :> [curg |-> 0, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> -1, pc |-> "idle", scan |-> {}, spinning |-> false, wake |-> "none", tainted |-> false, victim |-> -1, oldp |-> -1, yield |-> false, snapps |-> 0] @@ 2 :> [curg |-> 0, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> -1, pc |-> "idle", scan |-> {}, spinning |-> false, wake |-> "none", tainted |-> false, victim |-> -1, oldp |-> -1, yield |-> false, snapps |-> 0]), NMSpinning |-> 0, NPIdle |-> 1, NeedSpinning |-> false, NilRead |-> false, RetakeP |-> -1, P |-> (0 :> [ring |-> <<>>, runnext |-> 0, status |-> "running", tick |-> 0] @@ 1 :> [ring |-> <<>>, runnext |-> 0, status |-> "idle", tick |-> 0]), Pidle |-> <<1>>, Procs |-> 2, Runq |-> <<>>, STWLeft |-> 0, STWPhase |-> "none", SpawnLeft |-> 1, StopWait |-> 0]`
	vars, err := tlacheck.ParseAssignments(label)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tlacheck.TLAKey(vars, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := tlacheck.SpecKey(md.Init()); got != want {
		t.Errorf("initial state:\nTLA+ %s\nspec %s", got, want)
	}
	// A different state must not map to the same key.
	for _, other := range []string{
		strings.Replace(label, `SpawnLeft |-> 1`, `SpawnLeft |-> 0`, 1),
		strings.Replace(label, `spinning |-> false, wake |-> "none"`, `spinning |-> false, wake |-> "pending"`, 1),
	} {
		vars, _ = tlacheck.ParseAssignments(other)
		if k, _ := tlacheck.TLAKey(vars, b); k == got {
			t.Errorf("two different states rendered alike: %s", k)
		}
	}
	// The scan set, needspinning, an M's taint and the stop-the-world
	// fields are part of the state too.
	for _, mut := range [][2]string{
		{`pc |-> "run", scan |-> {}`, `pc |-> "run", scan |-> {1}`},
		{`NeedSpinning |-> false`, `NeedSpinning |-> true`},
		{`tainted |-> false`, `tainted |-> true`},
		{`GCWaiting |-> false`, `GCWaiting |-> true`},
		{`STWPhase |-> "none"`, `STWPhase |-> "wakep"`},
		{`Procs |-> 2`, `Procs |-> 1`},
		{`NilRead |-> false`, `NilRead |-> true`},
		{`RetakeP |-> -1`, `RetakeP |-> 0`},
		{`Pidle |-> <<1>>`, `Pidle |-> <<0>>`},
		{`Pidle |-> <<1>>`, `Pidle |-> <<>>`},
		{`Pidle |-> <<1>>`, `Pidle |-> <<1, 1>>`},
	} {
		vars, err := tlacheck.ParseAssignments(strings.Replace(label, mut[0], mut[1], 1))
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := tlacheck.TLAKey(vars, b); k == got {
			t.Errorf("%s -> %s: rendered like the initial state", mut[0], mut[1])
		}
	}
	s := md.Init()
	s.M[0].Scan = 1 << 1
	s.NeedSpinning = true
	vars, err = tlacheck.ParseAssignments(strings.NewReplacer(`pc |-> "run", scan |-> {}`, `pc |-> "run", scan |-> {1}`,
		`NeedSpinning |-> false`, `NeedSpinning |-> true`).Replace(label))
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := tlacheck.TLAKey(vars, b); k != tlacheck.SpecKey(s) {
		t.Errorf("scan and needspinning:\nTLA+ %s\nspec %s", k, tlacheck.SpecKey(s))
	}
	// sched.pidle, in order, on both sides: p0 released after p1 is on
	// top (last); and a spec entry past npidle renders as no TLA+ state.
	s = md.Init()
	s.M[0] = spec.MState{PC: spec.MIdle, P: spec.NoP}
	s.G[1] = spec.GWaiting
	s.P[0].Status, s.IdlePs[1], s.NPIdle = spec.PIdle, 0, 2
	vars, err = tlacheck.ParseAssignments(strings.NewReplacer(`Pidle |-> <<1>>`, `Pidle |-> <<1, 0>>`, `NPIdle |-> 1`, `NPIdle |-> 2`,
		`status |-> "running"`, `status |-> "idle"`, `G |-> <<"running", "idle">>`, `G |-> <<"waiting", "idle">>`,
		`[curg |-> 1, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> 0, pc |-> "run"`, `[curg |-> 0, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> -1, pc |-> "idle"`).Replace(label))
	if err != nil {
		t.Fatal(err)
	}
	k, _ := tlacheck.TLAKey(vars, b)
	if k != tlacheck.SpecKey(s) {
		t.Errorf("sched.pidle <<1, 0>>:\nTLA+ %s\nspec %s", k, tlacheck.SpecKey(s))
	}
	s.IdlePs[0], s.IdlePs[1] = 0, 1
	if k == tlacheck.SpecKey(s) {
		t.Errorf("sched.pidle <<0, 1>> rendered like <<1, 0>>: %s", k)
	}
	s = md.Init()
	s.IdlePs[1] = 1
	if tlacheck.SpecKey(s) == tlacheck.SpecKey(md.Init()) {
		t.Errorf("an entry past npidle rendered like none: %s", tlacheck.SpecKey(s))
	}
}

// TestKeyMappingPoll checks the renderings of the blocking poller's and
// the timers' fields (Bounds.PollBlock, Bounds.Timers) on the initial
// state and on states that differ from it in one of them.
func TestKeyMappingPoll(t *testing.T) {
	b := spec.Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 2}
	md, err := spec.NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	const m0 = `[curg |-> 1, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> 0, pc |-> "run", scan |-> {}, spinning |-> false, wake |-> "none", tainted |-> false, victim |-> -1, oldp |-> -1, yield |-> false, snapps |-> 0, wasspinning |-> false, polluntil |-> 0, checked |-> false, inherit |-> false]`
	const m1 = `[curg |-> 0, inj |-> 0, lockedg |-> 0, nextp |-> -1, p |-> -1, pc |-> "idle", scan |-> {}, spinning |-> false, wake |-> "none", tainted |-> false, victim |-> -1, oldp |-> -1, yield |-> false, snapps |-> 0, wasspinning |-> false, polluntil |-> 0, checked |-> false, inherit |-> false]`
	label := `st=[G |-> <<"running", "idle">>, GCWaiting |-> false, M |-> (0 :> ` + m0 + ` @@ 1 :> ` + m1 + `), NMSpinning |-> 0, NPIdle |-> 1, NeedSpinning |-> false, NilRead |-> false, RetakeP |-> -1, P |-> (0 :> [ring |-> <<>>, runnext |-> 0, status |-> "running", tick |-> 0] @@ 1 :> [ring |-> <<>>, runnext |-> 0, status |-> "idle", tick |-> 0]), Pidle |-> <<1>>, Procs |-> 2, Runq |-> <<>>, STWLeft |-> 0, STWPhase |-> "none", SpawnLeft |-> 1, StopWait |-> 0, LastPoll |-> true, PollUntil |-> 0, TimerP |-> <<-1, -1>>, TimerWhen |-> <<0, 0>>]`
	key := func(text string) string {
		t.Helper()
		vars, err := tlacheck.ParseAssignments(text)
		if err != nil {
			t.Fatal(err)
		}
		k, err := tlacheck.TLAKey(vars, b)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	init := md.Init()
	if got, want := key(label), tlacheck.SpecKey(init); got != want {
		t.Fatalf("initial state:\nTLA+ %s\nspec %s", got, want)
	}
	// One field at a time, on both sides.
	for _, c := range []struct {
		from, to string
		set      func(*spec.State)
	}{
		{`LastPoll |-> true`, `LastPoll |-> false`, func(s *spec.State) { s.LastPoll = false }},
		{`PollUntil |-> 0`, `PollUntil |-> 2`, func(s *spec.State) { s.PollUntil = 2 }},
		{`TimerP |-> <<-1, -1>>, TimerWhen |-> <<0, 0>>`, `TimerP |-> <<-1, 1>>, TimerWhen |-> <<0, 2>>`,
			func(s *spec.State) { s.TimerP[2], s.TimerWhen[2] = 2, 2 }},
		{`wasspinning |-> false, polluntil |-> 0, checked |-> false, inherit |-> false]`,
			`wasspinning |-> true, polluntil |-> 3, checked |-> false, inherit |-> false]`,
			func(s *spec.State) { s.M[0].WasSpinning, s.M[0].PollUntil = true, 3 }},
		{`checked |-> false, inherit |-> false]`, `checked |-> true, inherit |-> false]`,
			func(s *spec.State) { s.M[0].Checked = true }},
		{`checked |-> false, inherit |-> false]`, `checked |-> false, inherit |-> true]`,
			func(s *spec.State) { s.M[0].Inherit = true }},
	} {
		mutated := strings.Replace(label, c.from, c.to, 1)
		s := init
		c.set(&s)
		got, want := key(mutated), tlacheck.SpecKey(s)
		if got != want {
			t.Errorf("%s -> %s:\nTLA+ %s\nspec %s", c.from, c.to, got, want)
		}
		if got == tlacheck.SpecKey(init) {
			t.Errorf("%s -> %s: rendered like the initial state", c.from, c.to)
		}
	}
}
