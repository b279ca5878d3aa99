package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/mutate"
)

func init() {
	registerCommand(command{
		name:    "mutate",
		summary: "mutation testing: operator (go-gremlins) and catalog mutants of impl/, spec/ and tla/, with a kill matrix",
		run:     runMutate,
	})
}

func runMutate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("mutate", "[-area a,b] [-kinds operator,semantic] [-run re] [-sample n -seed s] [-matrix] [-report file] [-list] [flags]",
		`Makes mutants of impl/, spec/ and the TLA+ modules and runs the checks on each
(docs/mutation.md): operator mutants listed by go-gremlins (pinned, run with
'go run'), semantic mutants from internal/mutate's catalog. Go mutants run on an
overlay (go test -c -overlay), never a copy of the tree: the operator mutants
of a package all in one build (a mutant schema, each behind a run-time switch),
the rest one build each; TLA+ mutants in a
temporary directory with tla-checker (and TLC with -tlc or TLA2TOOLS_JAR).
Every technique is first run on the unmutated tree: one that fails there is
reported and not used. Run it in a clean worktree of the commit to measure.
Passes when the kill rate of the judged (viable, non-equivalent) mutants is at
least -min-rate in every area.`)
	fs.addTimeout(0, "overall time limit")
	run := fs.String("run", "", "only the mutants whose ID matches this regular expression")
	areaList := fs.String("area", "", "comma-separated areas: impl/runq, impl/sched, impl/gm, spec, tla (default all)")
	kinds := fs.String("kinds", "operator,semantic", "which mutants: operator (go-gremlins), semantic (the catalog)")
	sample := fs.Int("sample", 0, "judge only this many mutants, chosen at random by -seed (0: all)")
	seed := fs.Uint64("seed", 0, "the sample's seed (0: one from the clock, printed)")
	shuffle := fs.Bool("shuffle", false, "judge the selected catalog mutants first, then the operator mutants in an order shuffled by -seed, so that a run cut short has judged the catalog and a random sample of the rest")
	perArea := fs.Bool("per-area", false, "-sample n takes n mutants from each area rather than n in all")
	fullCatalog := fs.Bool("full-catalog", false, "with -sample: sample the operator mutants only and judge every catalog mutant")
	parallel := fs.Int("parallel", 2, "mutants judged at once (1..2: the checks are CPU-bound)")
	mutantTimeout := fs.Duration("mutant-timeout", mutate.DefaultMutantTimeout, "time limit per mutant, builds included, or twice its area's baseline when that is more (a mutant cut short is inconclusive)")
	partTimeout := fs.Duration("test-timeout", mutate.DefaultPartTimeout, "-test.timeout of each test binary run (a hang is a kill); on a mutant, with hang limits on, at least -hang-factor times that run's baseline")
	hangFactor := fs.Float64("hang-factor", mutate.DefaultHangFactor, "each test's own hang limit on a mutant: this many times its longest baseline run, at least -hang-floor (0: hangs wait for -test-timeout)")
	hangFloor := fs.Duration("hang-floor", mutate.DefaultHangFloor, "the least hang limit of a test")
	noSchemata := fs.Bool("no-schemata", false, "build every Go mutant on its own overlay instead of its package's mutant schema (one build per package, the mutant chosen at run time)")
	matrix := fs.Bool("matrix", false, "run every technique on every mutant (the full kill matrix), not only up to the first kill")
	tlc := fs.String("tlc", os.Getenv("TLA2TOOLS_JAR"), "tla2tools.jar: also check TLA+ mutants with TLC (default $TLA2TOOLS_JAR)")
	report := fs.String("report", "", "write the summary and the kill matrix (markdown) to this file")
	list := fs.Bool("list", false, "list the selected mutants and exit")
	minRate := fs.Float64("min-rate", 0.95, "the kill rate each area must reach to pass (0..1)")
	resume := fs.String("resume", "", "a -json output of an earlier run of the same selection: its judged mutants are not run again and count in this run's summary (a full run in pieces)")
	root := fs.String("root", "", "the module root to mutate (default: the checkout above the working directory)")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if err := intFlag("parallel", *parallel, 1, 2); err != nil {
		return usageError(stderr, "mutate", "%v", err)
	}
	if *sample < 0 {
		return usageError(stderr, "mutate", "-sample %d: want 0 (all) or more", *sample)
	}
	if *minRate < 0 || *minRate > 1 {
		return usageError(stderr, "mutate", "-min-rate %v: want 0..1", *minRate)
	}
	if *mutantTimeout <= 0 || *partTimeout <= 0 || *hangFloor <= 0 {
		return usageError(stderr, "mutate", "-mutant-timeout, -test-timeout and -hang-floor must be positive")
	}
	if *hangFactor < 0 {
		return usageError(stderr, "mutate", "-hang-factor %v: want 0 (off) or more", *hangFactor)
	}
	if *hangFactor == 0 {
		*hangFactor = -1 // Options: negative is off, 0 the default
	}
	re, err := compileRun(*run)
	if err != nil {
		return usageError(stderr, "mutate", "%v", err)
	}
	var areas []mutate.Area
	if *areaList != "" {
		for _, s := range strings.Split(*areaList, ",") {
			a, err := mutate.ParseArea(strings.TrimSpace(s))
			if err != nil {
				return usageError(stderr, "mutate", "-area: %v", err)
			}
			areas = append(areas, a)
		}
	}
	wantOps, wantSem := false, false
	for _, k := range strings.Split(*kinds, ",") {
		switch strings.TrimSpace(k) {
		case "operator":
			wantOps = true
		case "semantic":
			wantSem = true
		default:
			return usageError(stderr, "mutate", "-kinds %q: want operator, semantic or both", *kinds)
		}
	}
	if *tlc != "" {
		if _, err := os.Stat(*tlc); err != nil {
			return usageError(stderr, "mutate", "-tlc %s: %v", *tlc, err)
		}
	}
	if *root == "" {
		r, err := findModuleRoot()
		if err != nil {
			fmt.Fprintf(stderr, "mutate: %v\n", err)
			return exitFail
		}
		*root = r
	}
	out := newOutput(fs, stdout, stderr)
	log := out.human
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()

	var all []mutate.Mutant
	if wantOps && (len(areas) == 0 || !onlyTLA(areas)) {
		fmt.Fprintf(log, "mutate: listing operator mutants with %s (dry run)\n", mutate.GremlinsModule)
		ops, err := mutate.Operators(ctx, *root)
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(log, "mutate: INCONCLUSIVE (%s)\n", interrupted(ctx))
				return out.result(inconclusive, interrupted(ctx), nil)
			}
			fmt.Fprintf(stderr, "mutate: %v\n", err)
			return out.result(fail, err.Error(), nil)
		}
		all = append(all, ops...)
	}
	if wantSem {
		all = append(all, mutate.Catalog...)
	}
	sel := mutate.Select(all, areas, re)
	if *sample > 0 {
		if *seed == 0 {
			*seed = uint64(time.Now().UnixNano())
		}
		var keep []mutate.Mutant
		if *fullCatalog {
			var ops []mutate.Mutant
			for _, m := range sel {
				if m.Kind == mutate.KindSemantic {
					keep = append(keep, m)
				} else {
					ops = append(ops, m)
				}
			}
			sel = ops
		}
		n := len(sel)
		if *perArea {
			var out []mutate.Mutant
			for _, a := range mutate.Areas {
				out = append(out, mutate.Sample(mutate.Select(sel, []mutate.Area{a}, nil), *sample, *seed)...)
			}
			sel = out
		} else {
			sel = mutate.Sample(sel, *sample, *seed)
		}
		fmt.Fprintf(log, "mutate: sample of %d out of %d mutants, seed %d (rerun: -sample %d -seed %d%s)\n", len(sel), n, *seed, *sample, *seed,
			map[bool]string{true: " -per-area"}[*perArea])
		sel = append(sel, keep...)
	}
	if *shuffle {
		if *seed == 0 {
			*seed = uint64(time.Now().UnixNano())
		}
		var sem, ops []mutate.Mutant
		for _, m := range sel {
			if m.Kind == mutate.KindSemantic {
				sem = append(sem, m)
			} else {
				ops = append(ops, m)
			}
		}
		rand.New(rand.NewPCG(*seed, *seed^0x5eed)).Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
		sel = append(sem, ops...)
		fmt.Fprintf(log, "mutate: %d mutants in an order shuffled by seed %d (rerun: -shuffle -seed %d)\n", len(sel), *seed, *seed)
	}
	var earlier []mutate.Result
	if *resume != "" {
		prev, err := readMutationResults(*resume)
		if err != nil {
			return usageError(stderr, "mutate", "-resume: %v", err)
		}
		var rest []mutate.Mutant
		for _, m := range sel {
			if r, ok := prev[m.ID]; ok {
				earlier = append(earlier, r)
			} else {
				rest = append(rest, m)
			}
		}
		fmt.Fprintf(log, "mutate: -resume %s: %d of the %d selected mutants already judged there, %d to run\n", *resume, len(earlier), len(sel), len(rest))
		sel = rest
	}
	if *list {
		for _, m := range sel {
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", m.Area, m.ID, m.What)
		}
		return exitPass
	}
	judged := make([]mutate.Mutant, len(earlier))
	for i, r := range earlier {
		judged[i] = r.Mutant
	}
	used := mutate.AreasOf(sel, judged) // the areas of the mutants judged, here or in the -resume file
	fmt.Fprintf(log, "mutate: %d mutants in %v; root %s; %d at a time\n", len(sel), used, *root, *parallel)
	tlaMods := mutate.TLAModulesOf(sel)
	var results []mutate.Result
	done := 0
	r := mutate.NewRunner(mutate.Options{
		Root: *root, Parallel: *parallel, MutantTimeout: *mutantTimeout, PartTimeout: *partTimeout,
		HangFactor: *hangFactor, HangFloor: *hangFloor,
		Matrix: *matrix, TLC: *tlc, Log: log, TLAModules: tlaMods, NoSchemata: *noSchemata,
		OnResult: func(res mutate.Result) {
			done++
			fmt.Fprintf(log, "[%d/%d] %s\n", done, len(sel), res.Line())
			out.row("mutant", map[string]any{"result": res})
		},
	})
	var base []mutate.TechResult
	if len(sel) > 0 || len(earlier) == 0 {
		fmt.Fprintln(log, "mutate: baseline (every technique on the unmutated tree)")
		base, err = r.Baseline(ctx, used)
	} else {
		fmt.Fprintln(log, "mutate: every selected mutant was judged in the -resume file: no baseline, no run")
	}
	baselineRows := func(trs []mutate.TechResult) {
		for _, tr := range trs {
			out.row("baseline", map[string]any{"technique": tr.Technique, "outcome": tr.Outcome, "seconds": tr.Elapsed.Seconds(), "detail": tr.Detail})
		}
	}
	baselineRows(base)
	if err != nil {
		fmt.Fprintf(log, "mutate: INCONCLUSIVE (baseline: %s)\n", interrupted(ctx))
		return out.result(inconclusive, "baseline cut short", nil)
	}
	if bad := r.BaselineFailures(); len(bad) > 0 {
		for t, why := range bad {
			fmt.Fprintf(log, "mutate: the baseline FAILS technique %s (%s): its verdicts are not used\n", t, why)
		}
	}
	results = append(earlier, r.Run(ctx, sel)...)
	late := r.LateBaselines()
	baselineRows(late) // the deferred baselines a mutant reached
	base = mutate.MergeBaselines(base, late)
	fmt.Fprintln(log)
	mutate.WriteSummary(log, results)
	if *report != "" {
		if err := writeMutationReport(*report, results, base, r.BaselineFailures(), args); err != nil {
			fmt.Fprintf(stderr, "mutate: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(log, "mutate: wrote %s\n", *report)
	}
	per, total := mutate.Summary(results)
	v := pass
	var below []string
	for _, a := range used {
		if t := per[a]; t != nil && t.Judged() > 0 && t.Rate() < *minRate {
			below = append(below, fmt.Sprintf("%s %.1f%%", a, 100*t.Rate()))
		}
	}
	if len(below) > 0 {
		v = fail
	}
	if len(r.BaselineFailures()) > 0 {
		v = fail
		below = append(below, "baseline fails")
	}
	if v == pass && (total.Inconclusive > 0 || ctx.Err() != nil) {
		v = inconclusive
	}
	summary := fmt.Sprintf("%d killed, %d survived, %d equivalent, %d not viable, %d stale, %d inconclusive; kill rate %.1f%%",
		total.Killed, total.Survived, total.Equivalent, total.NotViable, total.Stale, total.Inconclusive, 100*total.Rate())
	if len(below) > 0 {
		summary += "; below -min-rate: " + strings.Join(below, ", ")
	}
	if why := interrupted(ctx); why != "" {
		summary += " (" + why + ")"
	}
	fmt.Fprintf(log, "mutate: %s: %s\n", strings.ToUpper(v.String()), summary)
	return out.result(v, summary, map[string]any{"killed": total.Killed, "survived": total.Survived, "equivalent": total.Equivalent,
		"not_viable": total.NotViable, "stale": total.Stale, "inconclusive": total.Inconclusive, "seed": *seed})
}

func onlyTLA(as []mutate.Area) bool {
	for _, a := range as {
		if a != mutate.AreaTLA {
			return false
		}
	}
	return true
}

// findModuleRoot is the directory above the working directory whose go.mod
// is gmpcheck's.
func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(data), "module github.com/gmpcheck/gmpcheck\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no gmpcheck checkout above %s (give -root)", dir)
		}
	}
}

// writeMutationReport writes the markdown report to path; its first line
// is the command that made it, from args (mutate's flags).
func writeMutationReport(path string, rs []mutate.Result, base []mutate.TechResult, bad map[string]string, args []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "<!-- gmpcheck mutate %s -->\n\n", strings.Join(args, " "))
	fmt.Fprintln(f, "### Baseline")
	fmt.Fprintln(f)
	for _, tr := range base {
		if tr.Outcome == "deferred" {
			fmt.Fprintf(f, "- %s: not run (deferred to the first mutant that reaches it; none did)\n", tr.Technique)
			continue
		}
		fmt.Fprintf(f, "- %s: %s (%.1f s)\n", tr.Technique, tr.Outcome, tr.Elapsed.Seconds())
	}
	for t, why := range bad {
		fmt.Fprintf(f, "- **%s fails on the unmutated tree**: %s\n", t, why)
	}
	fmt.Fprintln(f, "\n### Summary")
	fmt.Fprintln(f)
	mutate.WriteSummary(f, rs)
	fmt.Fprintln(f, "\n### Kill matrix")
	fmt.Fprintln(f)
	mutate.WriteMatrix(f, rs)
	fmt.Fprintln(f, "\n### Records (JSON, one per mutant)")
	fmt.Fprintln(f, "\n```")
	enc := json.NewEncoder(f)
	for _, r := range rs {
		r.Mutant.Orig, r.Mutant.Repl = "", ""
		enc.Encode(r)
	}
	fmt.Fprintln(f, "```")
	return f.Close()
}

// readMutationResults reads the mutant rows of a 'gmpcheck mutate -json'
// output: the judged ones (not inconclusive), by mutant ID.
func readMutationResults(path string) (map[string]mutate.Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]mutate.Result{}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var row struct {
			Kind   string         `json:"kind"`
			Result *mutate.Result `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		if row.Kind == "mutant" && row.Result != nil && row.Result.Status != mutate.Inconclusive {
			r := *row.Result
			if r.Status == mutate.Survived {
				r.Equivalent = mutate.Equivalents[r.Mutant.ID] // as argued now
			}
			out[r.Mutant.ID] = r
		}
	}
	return out, nil
}
