package mutate

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMutationSample is the long tier's bounded campaign (GMPCHECK_LONG=1):
// 30 mutants, operator and catalog, chosen by a seed printed in the log
// (GMPCHECK_MUTATE_SEED to repeat one; default the day's date), judged as
// 'gmpcheck mutate -sample 30 -seed N' and 'gmpcheck verify -long -run
// mutate-sample' judge them. It fails when the baseline fails, when a
// survivor is not argued equivalent (Unhandled), and when a mutant was cut
// short: a sample not judged whole is inconclusive, which a test can only
// report as a failure. It stops 30 s before the test binary's -timeout.
func TestMutationSample(t *testing.T) {
	if os.Getenv("GMPCHECK_LONG") != "1" {
		t.Skip("long tier: GMPCHECK_LONG=1")
	}
	root := moduleRoot(t)
	seed := uint64(time.Now().UTC().Year()*10000 + int(time.Now().UTC().Month())*100 + time.Now().UTC().Day())
	if s := os.Getenv("GMPCHECK_MUTATE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("GMPCHECK_MUTATE_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (repeat: GMPCHECK_MUTATE_SEED=%d, or gmpcheck mutate -sample 30 -seed %d)", seed, seed, seed)
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
	}
	defer cancel()
	ops, err := Operators(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	sel := Sample(append(ops, Catalog...), 30, seed)
	r := NewRunner(Options{Root: root, Parallel: 2, TLC: os.Getenv("TLA2TOOLS_JAR"), Log: testLog{t}, TLAModules: TLAModulesOf(sel)})
	if _, err := r.Baseline(ctx, AreasOf(sel)); err != nil {
		t.Fatalf("baseline cut short (inconclusive): %v", err)
	}
	if bad := r.BaselineFailures(); len(bad) > 0 {
		t.Fatalf("the unmutated tree fails: %v", bad)
	}
	rs := r.Run(ctx, sel)
	for _, res := range rs {
		t.Log(res.Line())
	}
	_, total := Summary(rs)
	t.Logf("killed %d, survived %d, equivalent %d, not viable %d, stale %d, inconclusive %d", total.Killed, total.Survived,
		total.Equivalent, total.NotViable, total.Stale, total.Inconclusive)
	if ids := Unhandled(rs); len(ids) > 0 {
		t.Errorf("survived, not argued equivalent: %v", ids)
	}
	if total.Inconclusive > 0 {
		t.Errorf("inconclusive: %d of %d mutants cut short (run with a longer -timeout)", total.Inconclusive, len(rs))
	}
}

// testLog writes the harness's progress lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestSchemaVerdictsMatchOverlay is the long tier's check that the two
// ways of building a Go mutant agree on the real tree: eight operator
// mutants of the run queues (chosen by GMPCHECK_MUTATE_SEED, default 1)
// judged by the run-queue unit tests and the rapid comparison, once in
// impl's mutant schema and once each on its own overlay build, get the
// same verdicts.
func TestSchemaVerdictsMatchOverlay(t *testing.T) {
	if os.Getenv("GMPCHECK_LONG") != "1" {
		t.Skip("long tier: GMPCHECK_LONG=1")
	}
	root := moduleRoot(t)
	seed := uint64(1)
	if s := os.Getenv("GMPCHECK_MUTATE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("GMPCHECK_MUTATE_SEED=%q: %v", s, err)
		}
		seed = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	ops, err := Operators(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	sel := Sample(Select(ops, []Area{AreaRunq}, nil), 8, seed)
	plan := func(Area) []Technique { return []Technique{techUnit, techRapid} }
	verdicts := func(noSchemata bool) []Result {
		r := NewRunner(Options{Root: root, Parallel: 1, Plan: plan, NoSchemata: noSchemata, PartTimeout: time.Minute})
		if _, err := r.Baseline(ctx, []Area{AreaRunq}); err != nil {
			t.Fatal(err)
		}
		if bad := r.BaselineFailures(); len(bad) > 0 {
			t.Fatalf("the unmutated tree fails: %v", bad)
		}
		return r.Run(ctx, sel)
	}
	schema, overlay := verdicts(false), verdicts(true)
	inSchema := 0
	for i := range sel {
		s, o := schema[i], overlay[i]
		t.Logf("%s: schema %s (switch %d), overlay %s", sel[i].ID, s.Status, s.SchemaID, o.Status)
		if s.Schema {
			inSchema++
		}
		if s.Status != o.Status || len(s.KilledBy) != len(o.KilledBy) {
			t.Errorf("%s: schema %s %v, overlay %s %v", sel[i].ID, s.Status, s.KilledBy, o.Status, o.KilledBy)
		}
	}
	if inSchema == 0 {
		t.Error("no mutant of the sample ran in the schema")
	}
}
