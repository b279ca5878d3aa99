package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gmpcheck/gmpcheck/conform"
	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/internal/mutate"
	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// verify -long: the long tier as one command. Each stage runs what a
// GMPCHECK_LONG=1 test runs today, through the owning package's API, with a
// budget of its own; a stage cut short by it is INCONCLUSIVE. -long runs
// only these stages: 'gmpcheck verify' stays the fast tier.

// longHeartbeatEvery is how long a long stage may be silent before verify
// says it is still running (the fast tier's two seconds would flood the
// log of an hour-long stage).
const longHeartbeatEvery = 30 * time.Second

// longOptions are the long tier's knobs (flags of verify -long).
type longOptions struct {
	seed       uint64        // the mutation sample's and the stress roots' seed
	mutants    int           // mutants in the sample
	implRuns   int           // reference-scheduler runs for the trace checker
	lifecycles int           // G lifecycles of the impl stress
	budget     time.Duration // every stage's budget (0: each its own default)
	tlc        string        // tla2tools.jar, or "" (tlcWhy says why)
	tlcWhy     string
	// explore is the explorer's bound (default longExploreBounds); a test
	// sets a seeded bug here to see the stage fail.
	explore spec.Bounds
}

// longExploreBounds is the Ps=3 model of docs/performance.md: three Ps,
// four G slots, three spawns, syscalls and netpoll, Ms=3 as the thread
// limit.
func longExploreBounds() spec.Bounds {
	return spec.Bounds{Ps: 3, Ms: 3, Gs: 4, Cap: 2, Spawn: 3, SchedTick: 2, Syscalls: true, Netpoll: true}
}

// A longStageDef is one stage of the long tier.
type longStageDef struct {
	name   string
	budget time.Duration // default budget
	what   string
	run    func(ctx context.Context, log io.Writer, o longOptions) stageResult
}

// longStageDefs run in this order: cheapest first, so that a run cut short
// by its overall -timeout has decided as many stages as it could.
var longStageDefs = []longStageDef{
	{"stress", 15 * time.Minute, "impl.Stress: the long tier's 10^6 G lifecycles of TestStress (carrier shell at Procs 1, 2, 4, 8; local mix; hand-off shell) with conservation at quiescence; then TestRunqStressConservation's six run-queue configurations at 10^6 owner operations each", stressLongStage},
	{"explore-ps3", 20 * time.Minute, "spec.Explore at Ps=3 Ms=3 Gs=4 Spawn=3 (syscalls, netpoll, Ms as thread limit) with M, G and P symmetry, liveness; self-test: go1.19 on the same bound loses a wakeup", exploreLongStage},
	{"tla-long", 180 * time.Minute, "tla-checker and the state-graph cross-check (Go liveness for temporal cfgs) on tlacheck.LongCfgs, and TLC when a tla2tools.jar is found", tlaLongStage},
	{"mutate-sample", 45 * time.Minute, "a random sample of operator and catalog mutants (-mutants, -seed); a survivor not in mutate.Equivalents fails", mutateLongStage},
	{"conform-long", 90 * time.Minute, "the conform corpus at GOMAXPROCS 1, 2, 4, and -impl-runs runs of the reference scheduler validated by the trace checker", conformLongStage},
}

func longStageNames() []string {
	var names []string
	for _, d := range longStageDefs {
		names = append(names, d.name)
	}
	return names
}

// longStages are the long tier's stages with o bound in.
func longStages(o longOptions) []stage {
	var out []stage
	for i, d := range longStageDefs {
		budget := d.budget
		if o.budget > 0 {
			budget = o.budget
		}
		out = append(out, stage{name: d.name, order: i, budget: budget,
			run: func(ctx context.Context, log io.Writer) stageResult { return d.run(ctx, log, o) }})
	}
	return out
}

func longUsage() string {
	var b strings.Builder
	b.WriteString("With -long, runs the long tier instead (docs/cli.md): only these stages, in this\norder, each within its own budget (-budget overrides them all; past it the stage is\nINCONCLUSIVE), and no overall limit unless -timeout is given:\n")
	for _, d := range longStageDefs {
		fmt.Fprintf(&b, "  %-14s %4s  %s\n", d.name, fmtBudget(d.budget), d.what)
	}
	return strings.TrimRight(b.String(), "\n")
}

func fmtBudget(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return d.String()
}

// longFlags are the flags only -long takes.
type longFlags struct {
	long                          *bool
	seed                          *uint64
	mutants, implRuns, lifecycles *int
	budget                        *time.Duration
	tlc                           *string
}

var longOnlyFlags = []string{"seed", "mutants", "impl-runs", "lifecycles", "budget", "tlc"}

func addLongFlags(fs *cmdFlags) *longFlags {
	return &longFlags{
		long:       fs.Bool("long", false, "run the long tier (stages: "+strings.Join(longStageNames(), ", ")+") instead of the fast one"),
		seed:       fs.Uint64("seed", 0, "-long: seed of the mutation sample and the stress (0: from the clock; printed, so a run can be repeated)"),
		mutants:    fs.Int("mutants", 30, "-long: mutants in the mutation sample, 1..10000"),
		implRuns:   fs.Int("impl-runs", 1002, "-long: reference-scheduler runs for the trace checker, a multiple of 3 in 3..2001 (a third each at Procs 2, 4 and 8)"),
		lifecycles: fs.Int("lifecycles", 1_000_000, "-long: G lifecycles of the stress's carrier variant, 20000..100000000 (fewer leave the local mix too few to steal)"),
		budget:     fs.Duration("budget", 0, "-long: every long stage's own time limit (0: each stage's default; see above)"),
		tlc:        fs.String("tlc", "", "-long: tla2tools.jar for TLC (default $TLA2TOOLS_JAR, else ../shared/tlc/tla2tools.jar beside the checkout or the working directory)"),
	}
}

// rejectWithoutLong: the long tier's flags mean nothing without -long.
func (lf *longFlags) rejectWithoutLong(fs *cmdFlags) error {
	for _, n := range longOnlyFlags {
		if fs.set(n) {
			return fmt.Errorf("-%s goes with -long", n)
		}
	}
	return nil
}

func (lf *longFlags) options(fs *cmdFlags) (longOptions, error) {
	o := longOptions{seed: *lf.seed, mutants: *lf.mutants, implRuns: *lf.implRuns, lifecycles: *lf.lifecycles,
		budget: *lf.budget, explore: longExploreBounds()}
	for _, e := range []error{
		intFlag("mutants", o.mutants, 1, 10000),
		intFlag("impl-runs", o.implRuns, 3, 2001),
		intFlag("lifecycles", o.lifecycles, 20_000, 100_000_000),
	} {
		if e != nil {
			return o, e
		}
	}
	if o.implRuns%3 != 0 {
		return o, fmt.Errorf("-impl-runs %d: want a multiple of 3 (a third each at Procs 2, 4 and 8)", o.implRuns)
	}
	if o.budget < 0 {
		return o, fmt.Errorf("-budget %v: want 0 (each stage's default) or a positive duration", o.budget)
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())
	}
	jar, src := *lf.tlc, "-tlc"
	if !fs.set("tlc") {
		jar, src = os.Getenv("TLA2TOOLS_JAR"), "TLA2TOOLS_JAR"
	}
	if jar != "" {
		if st, err := os.Stat(jar); err != nil || st.IsDir() {
			return o, fmt.Errorf("%s %s: not a tla2tools.jar file", src, jar)
		}
		if _, err := exec.LookPath("java"); err != nil {
			return o, fmt.Errorf("%s %s: TLC needs java on PATH", src, jar)
		}
		o.tlc = jar
		return o, nil
	}
	o.tlc, o.tlcWhy = findSharedTLC()
	return o, nil
}

// findSharedTLC looks for the developers' TLC build beside the checkout
// (../shared/tlc/tla2tools.jar, as .ci/run does) or beside the working
// directory. It returns the jar, or "" and why TLC will not run.
func findSharedTLC() (string, string) {
	var dirs []string
	if root, err := findModuleRoot(); err == nil {
		dirs = append(dirs, root)
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	for _, d := range dirs {
		jar := filepath.Join(filepath.Dir(d), "shared", "tlc", "tla2tools.jar")
		if st, err := os.Stat(jar); err == nil && !st.IsDir() {
			if _, err := exec.LookPath("java"); err != nil {
				return "", jar + " found, but no java on PATH"
			}
			return jar, ""
		}
	}
	return "", "no -tlc, no TLA2TOOLS_JAR, no ../shared/tlc/tla2tools.jar"
}

// header prints what the run will do and how to repeat it.
func (o longOptions) header(log io.Writer, selected []stage) {
	var parts []string
	for _, s := range selected {
		parts = append(parts, fmt.Sprintf("%s (budget %s)", s.name, fmtBudget(s.budget)))
	}
	fmt.Fprintf(log, "verify -long: %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(log, "verify -long: seed %d (repeat with -seed %d)\n", o.seed, o.seed)
	if o.tlc != "" {
		fmt.Fprintf(log, "verify -long: TLC from %s\n", o.tlc)
	} else {
		fmt.Fprintf(log, "verify -long: TLC not run (%s)\n", o.tlcWhy)
	}
}

// --- stress

func stressLongStage(ctx context.Context, log io.Writer, o longOptions) stageResult {
	fmt.Fprintf(log, "impl.Stress: %d lifecycles (carrier) at Procs 1, 2, 4, 8, seed %d\n", o.lifecycles, o.seed)
	runs, err := impl.Stress(ctx, impl.StressConfig{Lifecycles: o.lifecycles, Seed: o.seed, Log: log})
	var total int64
	var steals int64
	for _, r := range runs {
		total += r.Lifecycles
		steals += r.Stats.Steals
	}
	sum := fmt.Sprintf("%d runs, %d G lifecycles, %d steals; conservation at quiescence after each", len(runs), total, steals)
	switch {
	case errors.Is(err, impl.ErrStressCut):
		return stageResult{verdict: inconclusive, summary: sum + "; cut short: " + err.Error()}
	case err != nil:
		fmt.Fprintf(log, "FAIL: %v\n", err)
		return stageResult{verdict: fail, summary: err.Error()}
	}
	// TestRunqStressConservation's configurations, through the queues
	// stage's stress.
	q := checkStress(ctx, log, queueBudget{ownerOps: runqStressLongOps, seed: o.seed})
	return stageResult{verdict: q.verdict, summary: sum + "; run queue: " + q.summary}
}

// runqStressLongOps is the long tier's owner operations per run-queue
// configuration: TestRunqStressConservation's, where the default tier
// runs a quarter.
const runqStressLongOps = 1_000_000

// --- explore-ps3

func exploreLongStage(ctx context.Context, log io.Writer, o longOptions) stageResult {
	b := o.explore
	// P symmetry too: the bound has no stop-the-world. Under M and G
	// symmetry alone it has grown to 80.8 M orbits (9.5 minutes, 21 GB:
	// past the memory bound); with P symmetry 13.6 M (2.5 minutes, 3.6 GB).
	opt := spec.Options{Liveness: true, ThreadLimit: true, GSymmetry: true, PSymmetry: true, MaxMemory: 8 << 30, Progress: throttle(log, 15*time.Second)}
	fmt.Fprintf(log, "%v (Ms is the thread limit), M, G and P symmetry, liveness\n", b)
	restore := limitHeap(opt.MaxMemory)
	r, err := spec.Explore(ctx, b, opt)
	restore()
	if err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	v := reportExplore(log, ctx, r)
	if v != pass {
		sum := fmt.Sprintf("%d orbits: %s", r.Distinct, v)
		if r.Violation != nil {
			sum = fmt.Sprintf("%d orbits: violation: %v (%d steps)", r.Distinct, r.Violation.Kind, r.Violation.Trace.Len())
		}
		return stageResult{verdict: v, summary: sum}
	}
	sum := fmt.Sprintf("%v: %d orbits, %d transitions, liveness ok", b.Go, r.Distinct, r.Transitions)
	if b.Bug != spec.BugNone {
		// A seeded bug that the search passes: the check missed it.
		return stageResult{verdict: fail, summary: sum + "; seeded bug " + b.Bug.String() + " not caught"}
	}
	// Self-test: the release before golang/go#45867's fix must lose a
	// wakeup on the same bound, with the same options.
	old := b
	old.Go = spec.Go119
	fmt.Fprintf(log, "self-test: %v must lose a wakeup\n", old)
	ro, err := spec.Explore(ctx, old, opt)
	if err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	switch {
	case ro.Violation == nil && !ro.Complete:
		return stageResult{verdict: inconclusive, summary: sum + "; go1.19 self-test cut short", seeded: 1}
	case ro.Violation == nil || ro.Violation.Kind != spec.KindWorkConservation:
		fmt.Fprintf(log, "go1.19: %v\n", ro)
		return stageResult{verdict: fail, summary: sum + "; the go1.19 variant did not lose a wakeup", seeded: 1}
	}
	fmt.Fprintf(log, "go1.19 loses a wakeup, as expected: %d orbits, %d-step trace\n", ro.Distinct, ro.Violation.Trace.Len())
	return stageResult{verdict: pass, seeded: 1, caught: 1,
		summary: sum + fmt.Sprintf("; go1.19 loses a wakeup (%d steps)", ro.Violation.Trace.Len())}
}

// throttle passes a write to w only when the last one passed at least
// every ago (the explorer's progress lines come once a second).
func throttle(w io.Writer, every time.Duration) io.Writer {
	return &throttled{w: w, every: every}
}

type throttled struct {
	mu    sync.Mutex
	w     io.Writer
	every time.Duration
	last  time.Time
}

func (t *throttled) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now := time.Now(); now.Sub(t.last) >= t.every {
		t.last = now
		return t.w.Write(b)
	}
	return len(b), nil
}

// --- tla-long

func tlaLongStage(ctx context.Context, log io.Writer, o longOptions) stageResult {
	dir, all, err := loadTLACfgs("", nil)
	if err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	var cfgs []tlacheck.Cfg
	have := map[string]bool{}
	for _, c := range all {
		if tlacheck.LongCfgs[c.Name] {
			cfgs = append(cfgs, c)
			have[c.Name] = true
		}
	}
	var missing []string
	for n := range tlacheck.LongCfgs {
		if !have[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return stageResult{verdict: fail, summary: "tlacheck.LongCfgs names cfgs not in " + dir + ": " + strings.Join(missing, ", ")}
	}
	if err := tlacheck.EnsureInstalled(ctx, dir, log); err != nil {
		fmt.Fprintln(log, err)
		return stageResult{verdict: inconclusive, summary: "TLA+ tools not installed and 'npm ci' could not install them"}
	}
	sv, syntax := checkTLASyntax(ctx, dir, cfgs)
	fmt.Fprintln(log, syntax)
	if o.tlc == "" {
		fmt.Fprintf(log, "TLC not run: %s\n", o.tlcWhy)
	}
	rows := checkTLACfgs(ctx, dir, cfgs, o.tlc, 0, 2, log)
	v := worst(sv, printTLAReport(ctx, "", log, rows, false))
	t := tallyTLARows(rows)
	var names []string
	for _, c := range cfgs {
		names = append(names, c.Name)
	}
	checkers := "tla-checker + graph cross-check / Go liveness"
	if o.tlc != "" {
		checkers += fmt.Sprintf(" + TLC (%d runs)", t.tlcRuns)
	} else {
		checkers += ", no TLC"
	}
	sum := fmt.Sprintf("%s: %d/%d runs as expected (%s)", strings.Join(names, ", "), t.ok, len(rows), checkers)
	if sv != pass {
		sum += "; syntax " + sv.String()
	}
	return stageResult{verdict: v, summary: sum, seeded: t.seeded, caught: t.caught}
}

// --- mutate-sample

func mutateLongStage(ctx context.Context, log io.Writer, o longOptions) stageResult {
	root, err := findModuleRoot()
	if err != nil {
		return stageResult{verdict: fail, summary: "mutation needs a checkout: " + err.Error()}
	}
	fmt.Fprintf(log, "listing operator mutants with %s (dry run)\n", mutate.GremlinsModule)
	ops, err := mutate.Operators(ctx, root)
	if err != nil {
		if ctx.Err() != nil {
			return stageResult{verdict: inconclusive, summary: "listing the operator mutants: cut short"}
		}
		return stageResult{verdict: fail, summary: err.Error()}
	}
	all := append(ops, mutate.Catalog...)
	sel := mutate.Sample(all, o.mutants, o.seed)
	fmt.Fprintf(log, "sample of %d out of %d mutants, seed %d (repeat: gmpcheck verify -long -run mutate-sample -mutants %d -seed %d, or gmpcheck mutate -sample %d -seed %d)\n",
		len(sel), len(all), o.seed, o.mutants, o.seed, o.mutants, o.seed)
	areas := mutate.AreasOf(sel)
	done := 0
	r := mutate.NewRunner(mutate.Options{Root: root, Parallel: 2, TLC: o.tlc, Log: log, TLAModules: mutate.TLAModulesOf(sel),
		OnResult: func(res mutate.Result) {
			done++
			fmt.Fprintf(log, "[%d/%d] %s\n", done, len(sel), res.Line())
		}})
	fmt.Fprintf(log, "baseline (every technique of %v on the unmutated tree)\n", areas)
	if _, err := r.Baseline(ctx, areas); err != nil {
		return stageResult{verdict: inconclusive, summary: "baseline cut short: " + err.Error()}
	}
	if bad := r.BaselineFailures(); len(bad) > 0 {
		var ts []string
		for t, why := range bad {
			ts = append(ts, t+" ("+why+")")
		}
		sort.Strings(ts)
		return stageResult{verdict: fail, summary: "the unmutated tree fails: " + strings.Join(ts, "; ")}
	}
	rs := r.Run(ctx, sel)
	fmt.Fprintln(log)
	mutate.WriteSummary(log, rs)
	return mutationVerdict(rs, o.seed)
}

// mutationVerdict judges a sample: a survivor not argued equivalent
// (mutate.Equivalents) fails the stage; else any mutant not judged (cut
// short) makes it inconclusive. The kills count as caught seeded bugs.
func mutationVerdict(rs []mutate.Result, seed uint64) stageResult {
	_, t := mutate.Summary(rs)
	survivors := mutate.Unhandled(rs)
	sum := fmt.Sprintf("%d mutants, seed %d: %d killed, %d survived, %d equivalent, %d not viable, %d stale, %d inconclusive",
		len(rs), seed, t.Killed, t.Survived, t.Equivalent, t.NotViable, t.Stale, t.Inconclusive)
	res := stageResult{verdict: pass, summary: sum, seeded: t.Killed + t.Survived, caught: t.Killed}
	switch {
	case len(survivors) > 0:
		res.verdict = fail
		res.summary += "; not argued equivalent: " + strings.Join(survivors, ", ")
	case t.Inconclusive > 0:
		res.verdict = inconclusive
	}
	return res
}

// --- conform-long

// implTally counts the reference scheduler's runs. Every rejection is a
// finding: the gaps once excused here (startm's M, a steal of a runqput in
// flight, an exitsyscall whose idle P another step took) were closed in the
// spec and the checker, and the 3,006 runs since were all accepted
// (docs/conformance.md, "Results and figures").
type implTally struct {
	runs, accepted, inconclusive int
	rejected                     []string       // one line each
	errors                       []string       // runs that could not be recorded
	filters                      map[string]int // filters used in accepted runs
	actions                      int
}

func (t *implTally) add(procs int, seed uint64, res conform.ImplResult) {
	t.runs++
	switch res.Verdict {
	case conform.Accepted:
		t.accepted++
		t.actions += res.Actions
		for k, n := range res.Filtered {
			t.filters[k] += n
		}
	case conform.Inconclusive:
		t.inconclusive++
	default:
		t.rejected = append(t.rejected, fmt.Sprintf("procs %d seed %d at event %d: %v", procs, seed, res.Index, res.Event))
	}
}

// verdict: the long test's rule: no run rejected and at least 90 % of the
// runs accepted (the rest inconclusive: too many candidate configurations
// for the checker); a run that could not be recorded fails.
func (t *implTally) verdict(want int, cut bool) verdict {
	switch {
	case len(t.rejected) > 0 || len(t.errors) > 0:
		return fail
	case cut || t.runs < want:
		return inconclusive
	case t.accepted*10 < t.runs*9:
		return fail
	}
	return pass
}

func (t *implTally) String() string {
	s := fmt.Sprintf("%d runs: %d accepted, %d rejected, %d inconclusive", t.runs, t.accepted, len(t.rejected), t.inconclusive)
	if len(t.errors) > 0 {
		s += fmt.Sprintf(", %d not recorded", len(t.errors))
	}
	return s
}

func conformLongStage(ctx context.Context, log io.Writer, o longOptions) stageResult {
	fmt.Fprintf(log, "corpus: building %d programs\n", len(conform.Programs()))
	c, err := conform.BuildCorpus(ctx, nil)
	if err != nil {
		if ctx.Err() != nil {
			return stageResult{verdict: inconclusive, summary: "building the corpus: cut short"}
		}
		return stageResult{verdict: fail, summary: err.Error()}
	}
	defer c.Close()
	var cvs []conform.Verdict
	var cbad []string
	_, err = conform.RunCorpus(ctx, c, nil, []int{1, 2, 4}, func(r conform.CorpusRow) {
		cvs = append(cvs, r.Result.Verdict)
		fmt.Fprintf(log, "corpus %-12s P=%d %-12s %7d events, filters: %s\n", r.Program, r.Procs, r.Result.Verdict, r.Result.Events, conform.Summary(r.Result.Filtered))
		if r.Result.Verdict != conform.Accepted {
			cbad = append(cbad, fmt.Sprintf("%s P=%d %v", r.Program, r.Procs, r.Result.Verdict))
			fmt.Fprintf(log, "    %s\n", strings.ReplaceAll(r.Result.String(), "\n", "\n    "))
		}
	})
	corpus := fmt.Sprintf("corpus %d traces: %s", len(cvs), countVerdicts(cvs))
	cv := conform.Worst(cvs...)
	if err != nil {
		if ctx.Err() != nil {
			return stageResult{verdict: inconclusive, summary: corpus + "; cut short"}
		}
		return stageResult{verdict: fail, summary: corpus + "; " + err.Error()}
	}
	if cv == conform.Rejected {
		return stageResult{verdict: fail, summary: corpus + "; rejected: " + strings.Join(cbad, ", ")}
	}

	t := &implTally{filters: map[string]int{}}
	start := time.Now()
	var check time.Duration
	procsList := []int{2, 4, 8}
	per := o.implRuns / len(procsList)
	fmt.Fprintf(log, "impl: %d runs of 40 Gs at Procs 2, 4 and 8 (seeds 1000*procs+i, i < %d, as TestImplTracesLong)\n", per*len(procsList), per)
	cut := false
	dump := ""
runs:
	for _, procs := range procsList {
		for i := range per {
			if ctx.Err() != nil {
				cut = true
				break runs
			}
			r := conform.ImplRun{Procs: procs, Seed: uint64(1000*procs + i), Gs: 40}
			evs, q, err := r.Record(ctx)
			if err != nil {
				if ctx.Err() != nil {
					cut = true
					break runs
				}
				t.errors = append(t.errors, fmt.Sprintf("procs %d seed %d: %v", procs, r.Seed, err))
				fmt.Fprintf(log, "impl procs %d seed %d: not recorded: %v\n", procs, r.Seed, err)
				continue
			}
			t0 := time.Now()
			res := conform.CheckImpl(ctx, evs, r.Options(q))
			check += time.Since(t0)
			if res.Verdict == conform.Inconclusive && ctx.Err() != nil {
				cut = true
				break runs
			}
			t.add(procs, r.Seed, res)
			if res.Verdict != conform.Accepted {
				fmt.Fprintf(log, "impl procs %d seed %d: %s: %s\n", procs, r.Seed, res.Verdict, firstLineOf(res.Reason))
				keepRun(log, &dump, r, evs)
			}
			if t.runs%50 == 0 {
				fmt.Fprintf(log, "impl: %s (%v)\n", t, time.Since(start).Round(time.Second))
			}
		}
	}
	fmt.Fprintf(log, "impl: %s in %v; %d actions checked", t, time.Since(start).Round(time.Second), t.actions)
	if check > 0 {
		fmt.Fprintf(log, " (%.0f actions/s)", float64(t.actions)/check.Seconds())
	}
	fmt.Fprintln(log)
	if len(t.filters) > 0 {
		fmt.Fprintf(log, "impl: filters used in accepted runs: %s\n", conform.Summary(t.filters))
	}
	for _, u := range t.rejected {
		fmt.Fprintf(log, "impl: rejected: %s\n", u)
	}
	v := t.verdict(o.implRuns, cut)
	if cv == conform.Inconclusive && v == pass {
		v = inconclusive
	}
	return stageResult{verdict: v, summary: corpus + "; impl " + t.String()}
}

// keepRun writes a run the checker did not accept to *dir (a temporary
// directory made at the first such run) and says on log how to check it
// again, so that a rare run is not lost with the stage.
func keepRun(log io.Writer, dir *string, r conform.ImplRun, evs []impl.Event) {
	if *dir == "" {
		d, err := os.MkdirTemp("", "gmpcheck-conform-long-")
		if err != nil {
			fmt.Fprintf(log, "impl procs %d seed %d: not kept: %v\n", r.Procs, r.Seed, err)
			return
		}
		*dir = d
	}
	f, err := dumpEvents(*dir, r, evs)
	if err != nil {
		fmt.Fprintf(log, "impl procs %d seed %d: not kept: %v\n", r.Procs, r.Seed, err)
		return
	}
	fmt.Fprintf(log, "    kept as %s (check it again: CONFORM_REPLAY=%d,%s go test ./conform -run TestImplReplay -v)\n", f, r.Procs, f)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
