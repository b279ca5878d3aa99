package mutate

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestMutationSample is the long tier's bounded campaign (GMPCHECK_LONG=1,
// about 10 minutes on 2 cores): 30 mutants, operator and catalog, chosen
// by a seed printed in the log (GMPCHECK_MUTATE_SEED to repeat one; default
// the day's date), judged as 'gmpcheck mutate -sample 30 -seed N' judges
// them. It fails when the baseline fails, or when a judged mutant that is
// not argued equivalent survives in an area below 95%.
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
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	ops, err := Operators(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	sel := Sample(append(ops, Catalog...), 30, seed)
	var areas []Area
	for _, a := range Areas {
		if len(Select(sel, []Area{a}, nil)) > 0 {
			areas = append(areas, a)
		}
	}
	r := NewRunner(Options{Root: root, Parallel: 2, TLC: os.Getenv("TLA2TOOLS_JAR")})
	if _, err := r.Baseline(ctx, areas); err != nil {
		t.Fatal(err)
	}
	if bad := r.BaselineFailures(); len(bad) > 0 {
		t.Fatalf("the unmutated tree fails: %v", bad)
	}
	rs := r.Run(ctx, sel)
	for _, res := range rs {
		t.Log(res.Line())
	}
	per, total := Summary(rs)
	t.Logf("killed %d, survived %d, equivalent %d, not viable %d, stale %d, inconclusive %d", total.Killed, total.Survived,
		total.Equivalent, total.NotViable, total.Stale, total.Inconclusive)
	for a, tl := range per {
		if tl.Judged() > 0 && tl.Rate() < 0.95 {
			t.Errorf("%s: kill rate %.1f%% (%d/%d) < 95%%", a, 100*tl.Rate(), tl.Killed, tl.Judged())
		}
	}
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
