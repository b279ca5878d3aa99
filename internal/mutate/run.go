package mutate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/procgroup"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// Status is a mutant's outcome.
type Status string

const (
	Killed       Status = "killed"       // a technique failed on it
	Survived     Status = "survived"     // every technique run passed
	NotViable    Status = "not-viable"   // does not compile / parse: not counted
	Stale        Status = "stale"        // its target text is gone: not counted
	Inconclusive Status = "inconclusive" // cut short (budget, interrupt) before any kill
)

// Options configure a run.
type Options struct {
	Root          string        // the module root (a worktree of the commit under test)
	Parallel      int           // mutants at a time (1 or 2 on this project's machines)
	MutantTimeout time.Duration // per mutant, builds included; 0: DefaultMutantTimeout
	PartTimeout   time.Duration // per test binary run; 0: DefaultPartTimeout
	// HangFactor and HangFloor set each test's own hang limit on a mutant
	// (hang.go): HangFactor times its longest baseline run, at least
	// HangFloor. 0: DefaultHangFactor, DefaultHangFloor; a negative
	// HangFactor leaves hangs to PartTimeout alone.
	HangFactor float64
	HangFloor  time.Duration
	Matrix     bool         // run every technique of the plan, not only up to the first kill
	TLC        string       // tla2tools.jar: also run TLC on TLA+ mutants
	Log        io.Writer    // progress lines (nil: none)
	OnResult   func(Result) // called once per mutant as it finishes (serialised)
	// Plan, if set, replaces the package's Plan (the techniques per area).
	Plan func(Area) []Technique
	// TLAModules, if set, limits the TLA+ baseline to these modules (those
	// of the mutants to be judged); default every module the catalog mutates.
	TLAModules []string
	// NoSchemata judges every Go mutant on its own overlay build instead of
	// its package's mutant schema (schema.go).
	NoSchemata bool
}

func (o *Options) defaults() {
	if o.Parallel < 1 {
		o.Parallel = 1
	}
	if o.MutantTimeout == 0 {
		o.MutantTimeout = DefaultMutantTimeout
	}
	if o.PartTimeout == 0 {
		o.PartTimeout = DefaultPartTimeout
	}
	if o.HangFactor == 0 {
		o.HangFactor = DefaultHangFactor
	}
	if o.HangFloor == 0 {
		o.HangFloor = DefaultHangFloor
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Plan == nil {
		o.Plan = Plan
	}
}

// TechResult is one technique's verdict on one mutant (or the baseline).
type TechResult struct {
	Technique string        `json:"technique"`
	Outcome   string        `json:"outcome"` // killed, survived, inconclusive, error
	Tests     []string      `json:"tests,omitempty"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	// ToFail is, for a Go technique that killed, the time from its start
	// to the first failure its binaries reported: the first "--- FAIL"
	// line, or the binary's end when it failed without one (a panic, a
	// timeout, a hang killed). The run goes on past it to list every
	// failing test, so Elapsed is longer.
	ToFail time.Duration `json:"to_fail_ns,omitempty"`
	Detail string        `json:"detail,omitempty"`
}

// Result is one mutant's record.
type Result struct {
	Mutant     Mutant        `json:"mutant"`
	Status     Status        `json:"status"`
	KilledBy   []string      `json:"killed_by,omitempty"`
	FirstKill  time.Duration `json:"first_kill_ns,omitempty"` // from the mutant's start (builds included) to its first failing technique's end
	KillRun    time.Duration `json:"kill_run_ns,omitempty"`   // the first killing technique's own run time
	Techs      []TechResult  `json:"techniques,omitempty"`
	Detail     string        `json:"detail,omitempty"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	Equivalent string        `json:"equivalent,omitempty"` // why a survivor is argued equivalent (Equivalents)
	// Schema: the mutant ran on its package's schema build (switch value
	// SchemaID) rather than on an overlay build of its own.
	Schema   bool `json:"schema,omitempty"`
	SchemaID int  `json:"schema_id,omitempty"`
	// Matrix: every technique of the plan ran, not only up to the first
	// kill (-matrix), so Techs says which techniques kill it and which not.
	Matrix bool `json:"matrix,omitempty"`
}

// Runner runs mutants against the techniques of their areas.
type Runner struct {
	opt   Options
	mu    sync.Mutex
	rapid map[string]bool   // binary key -> links rapid (takes -rapid.nofailfile)
	bad   map[string]string // technique -> why it failed on the baseline
	ran   map[string]bool   // techniques the baseline ran
	times testTimes         // each test's longest baseline run, for its hang limit
	walls partWalls         // each part's longest baseline run, for its binary's timeout
	tla   tlaBaseline       // each TLA+ cfg's baseline run, for the order of a mutant's cfgs
	// late are the techniques whose baseline waits for the first mutant
	// that reaches them (deferBaseline), by name.
	late map[string]*lateBaseline
	// schemas are the packages' mutant schemata of the current Run, by
	// package directory.
	schemas map[string]*schemaRun
}

// schemaRun is a package's schema as a run uses it: its shared builder and
// the techniques that failed on it with no mutant on (those judge the
// package's mutants on per-mutant overlay builds instead).
type schemaRun struct {
	s   *Schema
	b   *builder
	bad map[string]string
}

// NewRunner returns a runner for opt.
func NewRunner(opt Options) *Runner {
	opt.defaults()
	return &Runner{opt: opt, rapid: map[string]bool{}, bad: map[string]string{}, ran: map[string]bool{}, times: testTimes{}, walls: partWalls{}, tla: newTLABaseline(), late: map[string]*lateBaseline{}}
}

// lateBaseline is a deferred technique's baseline: run once, by the first
// mutant that reaches the technique, while any other waits for it.
type lateBaseline struct {
	run  func(context.Context) TechResult
	once sync.Once
	tr   TechResult
	ran  bool
}

// deferBaseline reports whether technique t's baseline waits for the
// first mutant that reaches it instead of running before any mutant.
// tla-checker's baseline takes about 23 minutes on the TLA+ cfgs, and with
// TLC given it is the last TLA+ technique (Plan): TLC killed every catalog
// mutant it ran on (docs/mutation.md, section 0t), so the baseline was
// run for nothing. With -matrix every technique judges every mutant, and
// the baseline runs first as for the others.
func (r *Runner) deferBaseline(t Technique) bool {
	return t.TLA == "tla-checker" && r.opt.TLC != "" && !r.opt.Matrix
}

// reachLate runs deferred technique t's baseline if no mutant has yet,
// under ctx (the run's, not a mutant's), and reports whether t passed it.
// It returns how long this mutant waited for the baseline, which is not
// the mutant's time.
func (r *Runner) reachLate(ctx context.Context, t Technique) (ok bool, waited time.Duration) {
	start := time.Now()
	r.mu.Lock()
	lb := r.late[t.Name]
	done := lb == nil || lb.ran
	r.mu.Unlock()
	if done {
		return r.baselineOK(t.Name), 0
	}
	lb.once.Do(func() {
		tr := lb.run(ctx)
		r.mu.Lock()
		lb.tr, lb.ran = tr, true
		if ctx.Err() != nil {
			// Cut short, as in Baseline: no verdict on the tree. The
			// mutants that reach the technique now are cut short too.
			fmt.Fprintf(r.opt.Log, "baseline %-15s cut short (deferred)\n", t.Name)
		} else {
			r.noteBaseline(t, tr, " (deferred: run when the first mutant reached it)")
		}
		r.mu.Unlock()
	})
	return r.baselineOK(t.Name), time.Since(start)
}

// noteBaseline logs technique t's baseline result tr and, when t failed
// there, records why (BaselineFailures). The caller holds r.mu or runs
// before any mutant.
func (r *Runner) noteBaseline(t Technique, tr TechResult, suffix string) {
	fmt.Fprintf(r.opt.Log, "baseline %-15s %-9s %6.1fs %s%s\n", t.Name, map[bool]string{true: "pass", false: tr.Outcome}[tr.Outcome == "survived"], tr.Elapsed.Seconds(), firstLine(tr.Detail), suffix)
	if tr.Outcome != "survived" {
		r.bad[t.Name] = tr.Outcome + ": " + strings.Join(tr.Tests, ",") + " " + firstLine(tr.Detail)
	}
}

// baselineOK reports whether technique name ran on the baseline and passed.
func (r *Runner) baselineOK(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ran[name] && r.bad[name] == ""
}

// LateBaselines returns the deferred baselines that a mutant reached, in
// the form Baseline returns its results (the others never ran: no mutant
// needed them).
func (r *Runner) LateBaselines() []TechResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []TechResult
	for _, lb := range r.late {
		if lb.ran {
			out = append(out, baselineRow(lb.tr))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Technique < out[j].Technique })
	return out
}

// MergeBaselines returns base (Baseline's results) with each deferred
// technique's row replaced by its late baseline, when a mutant reached it.
func MergeBaselines(base, late []TechResult) []TechResult {
	out := slices.Clone(base)
	for _, l := range late {
		for i := range out {
			if out[i].Technique == l.Technique && out[i].Outcome == "deferred" {
				out[i] = l
			}
		}
	}
	return out
}

// baselineRow is a baseline's technique result as reported: pass or FAIL.
func baselineRow(tr TechResult) TechResult {
	switch tr.Outcome {
	case "survived":
		tr.Outcome = "pass"
	case "killed":
		tr.Outcome = "FAIL"
	}
	return tr
}

// Baseline runs every technique the areas need on the unmutated tree. It
// returns the baseline's results; a technique that failed there is not
// used on mutants (BaselineFailures says which and why). The TLA+
// techniques are run only when AreaTLA is among areas.
func (r *Runner) Baseline(ctx context.Context, areas []Area) ([]TechResult, error) {
	tmp, err := os.MkdirTemp("", "gmpcheck-mutate-base-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	b := &builder{r: r, dir: tmp}
	tlaDir := filepath.Join(r.opt.Root, "tla")
	if _, err := os.Stat(filepath.Join(tlaDir, "package.json")); err == nil && r.needsTLATools(areas) {
		// tla/'s tests and the TLA+ techniques need the pinned node tools
		// in the checkout (a TLA+ mutant's tree links them): on a fresh
		// clone they are not there yet. (A root without tla/'s
		// package.json, a test's fixture, leaves the techniques to say
		// what is missing.)
		if err := tlacheck.EnsureInstalled(ctx, tlaDir, r.opt.Log); err != nil {
			return nil, err
		}
	}
	var out []TechResult
	seen := map[string]bool{}
	for _, a := range areas {
		for _, t := range r.opt.Plan(a) {
			if seen[t.Name] || (t.TLA == "tlc" && r.opt.TLC == "") {
				continue
			}
			seen[t.Name] = true
			if r.deferBaseline(t) {
				r.late[t.Name] = &lateBaseline{run: func(ctx context.Context) TechResult { return r.runTLABaseline(ctx, t) }}
				r.ran[t.Name] = true
				fmt.Fprintf(r.opt.Log, "baseline %-15s deferred: runs when a mutant first reaches it (TLC judges first)\n", t.Name)
				out = append(out, TechResult{Technique: t.Name, Outcome: "deferred", Detail: "runs when a mutant first reaches it"})
				continue
			}
			var tr TechResult
			if t.TLA != "" {
				tr = r.runTLABaseline(ctx, t)
			} else {
				tr = r.runGo(ctx, b, t, true, filepath.Join(r.opt.Root, "tla"))
			}
			if ctx.Err() != nil {
				// Cut short: what the technique did is no verdict on the
				// tree, so it is neither noted nor recorded as a failure.
				fmt.Fprintf(r.opt.Log, "baseline %-15s cut short\n", t.Name)
				return out, ctx.Err()
			}
			r.noteBaseline(t, tr, "")
			r.ran[t.Name] = true
			out = append(out, baselineRow(tr))
		}
	}
	return out, nil
}

// mutantBudget is one mutant's time limit: MutantTimeout, or twice what
// the area's techniques took on the baseline if that is more. A mutant no
// technique kills runs them all, and with the machine loaded (verify
// -long's TLA+ stage beside it) the equivalent ones ran past the fixed six
// minutes and came out inconclusive instead of surviving.
func (r *Runner) mutantBudget(a Area) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all time.Duration
	for _, t := range r.opt.Plan(a) {
		for _, p := range t.Parts {
			all += r.walls[partKey(p)]
		}
	}
	return max(r.opt.MutantTimeout, 2*all)
}

// needsTLATools reports whether a technique the areas plan runs tla/'s
// tests or a TLA+ checker.
func (r *Runner) needsTLATools(areas []Area) bool {
	for _, a := range areas {
		for _, t := range r.opt.Plan(a) {
			if t.TLA != "" {
				return true
			}
			for _, p := range t.Parts {
				if p.Pkg == "tla" || strings.HasPrefix(p.Pkg, "tla/") {
					return true
				}
			}
		}
	}
	return false
}

// BaselineFailures names the techniques that failed on the unmutated tree.
func (r *Runner) BaselineFailures() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.bad)
}

// Run judges the mutants, opt.Parallel at a time, and returns their
// results in the order given. Baseline must have run first.
func (r *Runner) Run(ctx context.Context, ms []Mutant) []Result {
	if !r.opt.NoSchemata {
		dir, err := os.MkdirTemp("", "gmpcheck-schemata-")
		if err == nil {
			defer os.RemoveAll(dir)
			r.prepareSchemata(ctx, dir, ms)
			defer func() { r.schemas = nil }()
		} else {
			fmt.Fprintf(r.opt.Log, "schemata: %v: every mutant on its own overlay\n", err)
		}
	}
	res := make([]Result, len(ms))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var cb sync.Mutex
	for range r.opt.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res[i] = r.One(ctx, ms[i])
				cb.Lock()
				if r.opt.OnResult != nil {
					r.opt.OnResult(res[i])
				}
				cb.Unlock()
			}
		}()
	}
	for i := range ms {
		if ctx.Err() != nil {
			res[i] = Result{Mutant: ms[i], Status: Inconclusive, Detail: "not run: " + ctx.Err().Error()}
			continue
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return res
}

// One judges one mutant.
func (r *Runner) One(ctx context.Context, m Mutant) (res Result) {
	start := time.Now()
	res = Result{Mutant: m, Matrix: r.opt.Matrix}
	defer func() {
		res.Elapsed = time.Since(start)
		if res.Status == Survived {
			res.Equivalent = Equivalents[m.ID]
		}
	}()
	src, err := m.Apply(r.opt.Root)
	if errors.Is(err, ErrStale) {
		res.Status, res.Detail = Stale, err.Error()
		return res
	}
	if err != nil {
		res.Status, res.Detail = Inconclusive, err.Error()
		return res
	}
	runCtx := ctx
	ctx, cancel := context.WithTimeout(ctx, r.mutantBudget(m.Area))
	defer cancel()
	tmp, err := os.MkdirTemp("", "gmpcheck-mutant-")
	if err != nil {
		res.Status, res.Detail = Inconclusive, err.Error()
		return res
	}
	defer os.RemoveAll(tmp)

	var b *builder
	var tlaDir string
	var sr *schemaRun
	if m.Kind == KindOperator && r.schemas != nil {
		if x := r.schemas[path.Dir(m.File)]; x != nil && x.s.IDs[m.ID] != 0 {
			sr = x
			res.Schema, res.SchemaID = true, x.s.IDs[m.ID]
		}
	}
	if m.Area == AreaTLA {
		tlaDir, err = r.tlaTree(tmp, m.File, src)
		if err == nil {
			err = r.tlaSyntax(ctx, tlaDir, m.File)
		}
		b = &builder{r: r, dir: tmp} // Go techniques on a TLA+ mutant: no overlay, GMPCHECK_TLA_DIR
	} else {
		b, err = newOverlayBuilder(r, tmp, filepath.Join(r.opt.Root, filepath.FromSlash(m.File)), src)
	}
	if err != nil {
		if errors.Is(err, errNotViable) {
			res.Status, res.Detail = NotViable, err.Error()
		} else {
			res.Status, res.Detail = Inconclusive, err.Error()
		}
		return res
	}
	killed := false
	for _, t := range r.opt.Plan(m.Area) {
		if killed && !r.opt.Matrix {
			break
		}
		ok, waited := r.reachLate(runCtx, t)
		if waited > 0 {
			// The wait for a deferred baseline is not this mutant's time:
			// its budget and its clock move on by as much.
			start = start.Add(waited)
			if d, has := ctx.Deadline(); has {
				later, cancelLater := context.WithDeadline(runCtx, d.Add(waited))
				defer cancelLater()
				ctx = later
			}
		}
		if !ok {
			continue // not run on the baseline, or failing there: no evidence
		}
		var tr TechResult
		switch {
		case t.TLA != "":
			tr = r.runTLA(ctx, t, tlaDir, moduleOf(m.File), &m)
		case sr != nil && sr.bad[t.Name] == "":
			tr = r.runGo(ctx, sr.b, t, false, tlaDir, MutantEnv+"="+strconv.Itoa(res.SchemaID))
		default:
			tr = r.runGo(ctx, b, t, false, tlaDir)
		}
		if tr.Outcome == "error" && strings.HasPrefix(tr.Detail, notViablePrefix) {
			res.Status, res.Detail = NotViable, tr.Detail
			return res
		}
		res.Techs = append(res.Techs, tr)
		if tr.Outcome == "killed" {
			if !killed {
				res.FirstKill = time.Since(start)
				res.KillRun = tr.Elapsed
			}
			killed = true
			res.KilledBy = append(res.KilledBy, t.Name)
		}
		if ctx.Err() != nil {
			break
		}
	}
	switch {
	case killed:
		res.Status = Killed
	case ctx.Err() != nil:
		res.Status, res.Detail = Inconclusive, "cut short: "+ctx.Err().Error()
	default:
		res.Status = Survived
		for _, tr := range res.Techs {
			if tr.Outcome != "survived" {
				res.Status, res.Detail = Inconclusive, tr.Technique+": "+tr.Outcome+" "+firstLine(tr.Detail)
				break
			}
		}
		if len(res.Techs) == 0 {
			res.Status, res.Detail = Inconclusive, "no technique could judge it (each failed on the baseline)"
		}
	}
	return res
}

// builder builds (once per mutant and binary key) the test binaries of a
// mutant's techniques, with the overlay when there is one.
type builder struct {
	mu      sync.Mutex // a schema's builder is shared by the mutants running at once
	r       *Runner
	dir     string
	overlay string
	bins    map[string]string
	errs    map[string]error
	elapsed time.Duration
}

var errNotViable = errors.New("not viable")

// errStart: a test binary did not start (no verdict on the mutant).
var errStart = errors.New("test binary did not start")

const notViablePrefix = "not viable: "

func newOverlayBuilder(r *Runner, dir, file string, src []byte) (*builder, error) {
	mut := filepath.Join(dir, "mutated_"+filepath.Base(file))
	if err := os.WriteFile(mut, src, 0o644); err != nil {
		return nil, err
	}
	ov, err := json.Marshal(map[string]map[string]string{"Replace": {file: mut}})
	if err != nil {
		return nil, err
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, ov, 0o644); err != nil {
		return nil, err
	}
	return &builder{r: r, dir: dir, overlay: overlay}, nil
}

func (b *builder) bin(ctx context.Context, p Part) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bins == nil {
		b.bins, b.errs = map[string]string{}, map[string]error{}
	}
	key := p.binKey()
	if path, ok := b.bins[key]; ok {
		return path, b.errs[key]
	}
	out := filepath.Join(b.dir, strings.NewReplacer("/", "_", "|", "-").Replace(key)+".test")
	args := []string{"test", "-c", "-vet=off", "-o", out}
	if p.Tags != "" {
		args = append(args, "-tags", p.Tags)
	}
	if b.overlay != "" {
		args = append(args, "-overlay", b.overlay)
	}
	args = append(args, "./"+p.Pkg)
	cmd := exec.CommandContext(ctx, "go", args...)
	procgroup.KillOnCancel(cmd)
	cmd.Dir = b.r.opt.Root
	start := time.Now()
	msg, err := cmd.CombinedOutput()
	b.elapsed += time.Since(start)
	switch {
	case err != nil && ctx.Err() != nil:
		err = ctx.Err()
	case err != nil && b.overlay != "":
		err = fmt.Errorf("%w: go %s: %s", errNotViable, strings.Join(args[:len(args)-1], " "), firstLines(string(msg), 3))
	case err != nil:
		err = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, lastLines(string(msg), 10))
	}
	b.bins[key], b.errs[key] = out, err
	if err == nil && b.overlay == "" {
		b.r.probeRapid(ctx, key, out, filepath.Join(b.r.opt.Root, p.Pkg))
	}
	return out, err
}

// probeRapid records whether a binary takes -rapid.nofailfile: rapid must
// not write fail files into the tree (it would replay them on the next
// mutant's run).
func (r *Runner) probeRapid(ctx context.Context, key, bin, dir string) {
	cmd := exec.CommandContext(ctx, bin, "-test.run=^$", "-rapid.nofailfile")
	procgroup.KillOnCancel(cmd)
	cmd.Dir = dir
	err := cmd.Run()
	r.mu.Lock()
	r.rapid[key] = err == nil
	r.mu.Unlock()
}

var (
	failRE    = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)
	runRE     = regexp.MustCompile(`(?m)^=== RUN\s+(\S+)`)
	panicRE   = regexp.MustCompile(`(?m)^panic: (.*)$`)
	timeoutRE = regexp.MustCompile(`(?m)^panic: test timed out after`)
)

// runGo runs technique t's parts. Its outcome is "killed" when a part's
// binary fails (a failing test, a panic, a -test.timeout), "survived" when
// every part passes, "inconclusive" when the mutant's budget ran out, and
// "error" when a binary could not be built for a reason other than the
// mutant (or, on the baseline, selected no test).
func (r *Runner) runGo(ctx context.Context, b *builder, t Technique, baseline bool, tlaDir string, env ...string) (tr TechResult) {
	tr = TechResult{Technique: t.Name, Outcome: "survived"}
	var elapsed time.Duration
	defer func() { tr.Elapsed = elapsed }()
	for _, p := range t.Parts {
		bin, err := b.bin(ctx, p)
		if err != nil {
			tr.Outcome = "error"
			if errors.Is(err, errNotViable) {
				tr.Detail = err.Error() // "not viable: ..."
			} else if ctx.Err() != nil {
				tr.Outcome, tr.Detail = "inconclusive", "cut short while building"
			} else {
				tr.Detail = err.Error()
			}
			return tr
		}
		r.mu.Lock()
		timeout := r.walls.timeout(p, baseline, r.opt.PartTimeout, r.opt.HangFactor)
		r.mu.Unlock()
		args := []string{"-test.run", p.Run, "-test.count=1", "-test.v", "-test.timeout", timeout.String()}
		if p.Skip != "" {
			args = append(args, "-test.skip", p.Skip)
		}
		args = append(args, p.Args...)
		r.mu.Lock()
		rapid := r.rapid[p.binKey()]
		r.mu.Unlock()
		if rapid {
			args = append(args, "-rapid.nofailfile")
		}
		cenv := testEnv()
		if p.TLADir && tlaDir != "" {
			cenv = append(cenv, "GMPCHECK_TLA_DIR="+tlaDir)
		}
		cenv = append(cenv, env...)
		start := time.Now()
		text, hung, failed, err := r.runBinary(ctx, p, bin, args, cenv, baseline)
		d := time.Since(start)
		toFail := elapsed + d
		if !failed.IsZero() {
			toFail = elapsed + failed.Sub(start)
		}
		elapsed += d
		if baseline && err == nil {
			r.mu.Lock()
			r.walls.record(p, d)
			r.mu.Unlock()
		}
		if errors.Is(err, errStart) {
			tr.Outcome, tr.Detail = "error", p.Pkg+": "+err.Error()
			return tr
		}
		if baseline && len(runRE.FindAllString(text, 1)) == 0 {
			tr.Outcome, tr.Detail = "error", fmt.Sprintf("%s: -test.run %q selects no test", p.Pkg, p.Run)
			return tr
		}
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			tr.Outcome, tr.Detail = "inconclusive", "cut short by the mutant's time limit"
			return tr
		}
		tr.Outcome, tr.ToFail = "killed", toFail
		for _, m := range failRE.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(m[1], "/") || !contains(tr.Tests, parentOf(m[1])) {
				tr.Tests = appendNew(tr.Tests, m[1])
			}
		}
		switch {
		case hung != nil:
			tr.Tests = appendNew(tr.Tests, hung.test+" (hang)")
			tr.Detail = p.Pkg + ": " + hung.String()
		case timeoutRE.MatchString(text):
			tr.Tests = appendNew(tr.Tests, "(test timeout)")
			tr.Detail = p.Pkg + ": test timed out (hang)"
		case panicRE.MatchString(text):
			tr.Detail = p.Pkg + ": panic: " + panicRE.FindStringSubmatch(text)[1]
		default:
			tr.Detail = p.Pkg + ": " + failDetail(text)
		}
		if len(tr.Tests) == 0 {
			tr.Tests = []string{p.Pkg + " (exit: " + err.Error() + ")"}
		}
		return tr
	}
	return tr
}

// runBinary runs one part's test binary and returns its output and when
// it first reported a failing test (zero if it did not). On the baseline
// it records each test's time; on a mutant it watches each test against
// its hang limit (hang.go) and, past it, kills the binary and returns the
// test that hung.
func (r *Runner) runBinary(ctx context.Context, p Part, bin string, args, env []string, baseline bool) (string, *hang, time.Time, error) {
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, args...)
	procgroup.KillOnCancel(cmd)
	cmd.Dir = filepath.Join(r.opt.Root, filepath.FromSlash(p.Pkg))
	// A binary killed at its hang limit or time limit never runs its
	// tests' t.TempDir cleanups, so each run gets a TMPDIR of its own,
	// removed once the binary has exited.
	tmp, err := os.MkdirTemp("", "gmpcheck-mutate-run-")
	if err != nil {
		return "", nil, time.Time{}, fmt.Errorf("%w: %v", errStart, err)
	}
	defer os.RemoveAll(tmp)
	cmd.Env = append(slices.Clone(env), "TMPDIR="+tmp)
	clock := newTestClock(time.Now)
	cmd.Stdout, cmd.Stderr = clock, clock.stderr()
	key := p.binKey()
	watch := !baseline && r.opt.HangFactor > 0
	if err := cmd.Start(); err != nil {
		return "", nil, time.Time{}, fmt.Errorf("%w: %v", errStart, err)
	}
	var hung *hang
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		if !watch {
			return
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		limit := func(test string) (time.Duration, time.Duration, bool) {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.times.limit(key, test, r.opt.HangFactor, r.opt.HangFloor)
		}
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if h, ok := clock.overdue(limit); ok {
					hung = &h
					cancel()
					return
				}
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	<-watched
	text := clock.text()
	if baseline {
		r.mu.Lock()
		r.times.record(key, text)
		r.times.observe(key, clock.observed())
		r.mu.Unlock()
	}
	if hung != nil && err == nil {
		err = fmt.Errorf("killed: %s", hung.test)
	}
	return text, hung, clock.firstFail(), err
}

// testEnv is the environment of the test binaries: no seeded bug switched
// on from outside, no long tier.
func testEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GMPCHECK_BUG=") || strings.HasPrefix(kv, "GMPCHECK_LONG=") || strings.HasPrefix(kv, MutantEnv+"=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// failDetail is the first file:line message of the first failing test:
// searched from that test's last "=== RUN", "=== CONT" or "=== NAME" line,
// so that a passing test's log before it (a rapid note, say) is not taken
// for the failure.
func failDetail(text string) string {
	lines := strings.Split(text, "\n")
	from := 0
	if m := failRE.FindStringSubmatchIndex(text); m != nil {
		name := text[m[2]:m[3]]
		for i := strings.Count(text[:m[0]], "\n"); i >= 0; i-- {
			if f := strings.Fields(lines[i]); len(f) == 3 && f[0] == "===" && f[2] == name {
				from = i
				break
			}
		}
	}
	for _, line := range lines[from:] {
		l := strings.TrimSpace(line)
		if strings.Contains(l, ".go:") && !strings.HasPrefix(l, "---") && !strings.HasPrefix(l, "===") {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			return l
		}
	}
	return firstLine(lastLines(text, 1))
}

func parentOf(name string) string {
	if i := strings.Index(name, "/"); i >= 0 {
		return name[:i]
	}
	return name
}

func appendNew(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var keep []string
	for _, l := range lines {
		if strings.HasPrefix(l, "#") {
			continue
		}
		keep = append(keep, strings.TrimSpace(l))
		if len(keep) == n {
			break
		}
	}
	return strings.Join(keep, "; ")
}

// moduleOf is a .tla file's module name.
func moduleOf(file string) string {
	return strings.TrimSuffix(filepath.Base(file), ".tla")
}

// tlaTree writes the TLA+ directory with file replaced by src into dir/tla:
// the modules, the cfgs and the node scripts copied, node_modules linked.
func (r *Runner) tlaTree(dir, file string, src []byte) (string, error) {
	from := filepath.Join(r.opt.Root, "tla")
	to := filepath.Join(dir, "tla")
	if err := os.MkdirAll(to, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == "node_modules":
			if err := os.Symlink(filepath.Join(from, name), filepath.Join(to, name)); err != nil {
				return "", err
			}
		case e.Type().IsRegular() && (strings.HasSuffix(name, ".tla") || strings.HasSuffix(name, ".cfg") ||
			strings.HasSuffix(name, ".mjs") || strings.HasSuffix(name, ".json")):
			data, err := os.ReadFile(filepath.Join(from, name))
			if err != nil {
				return "", err
			}
			if name == filepath.Base(file) && src != nil {
				data = src
			}
			if err := os.WriteFile(filepath.Join(to, name), data, 0o644); err != nil {
				return "", err
			}
		}
	}
	return to, nil
}

// tlaSyntax parses the mutated module: a mutant that does not parse (or
// names what is not defined) is not viable, as a Go mutant that does not
// compile.
func (r *Runner) tlaSyntax(ctx context.Context, dir, file string) error {
	res, err := tlacheck.ParseModules(ctx, dir, []string{filepath.Join(dir, filepath.Base(file))})
	if err != nil {
		return err
	}
	for _, s := range res {
		if len(s.Errors) > 0 {
			return fmt.Errorf("%w: %s: %v", errNotViable, filepath.Base(file), s.Errors[0])
		}
	}
	return nil
}

// tlaMechanismCfgs are the long tier's cfgs the TLA+ techniques check all
// the same: the smallest models of the blocking poller (4,730 states) and
// of timers (5,063), 30-60 s each with tla-checker. Without them no cfg the
// techniques check has PollBlock or NTimers on, and a mutant of those
// actions could only survive. GMP_go119 (golang/go#45867, 9,956 states)
// left the test command for its time, not for the mutants it judges.
// GMP_stw_g1 (24206 states) is the smallest passing model found of stop-the-
// world and procresize, and GMP_timers_sleep (39332) the smallest found where a
// G's time.Sleep breaks a blocked poller's sleep: without them the TLA+
// mutants of GCStopP, DestroyP and WakeNetPoller survived (docs/mutation.md,
// section 0k). They add about ten minutes to every TLA+ mutant that
// reaches them (the baseline went from 314 s to 888 s). GMP_syscalls and
// GMP_netpoll, too, left the test command for its time: the techniques
// checked them before, and a mutant of a syscall or netpoll action that
// only their counts or graphs catch (gmp-needspinning-guard-removed,
// section 0t) would survive without them.
var tlaMechanismCfgs = map[string]bool{"GMP_pollblock": true, "GMP_timers_p1": true, "GMP_go119": true, "GMP_stw_g1": true, "GMP_timers_sleep": true, "GMP_syscalls": true, "GMP_netpoll": true}

// tlaCfgs are the cfgs of module in dir that the TLA+ techniques check:
// all but the long tier's (tlaMechanismCfgs excepted), the module's own
// cfg first, then by name. That is the baseline's order; a mutant's is
// in tiers, each shortest baseline run first (tlaBaseline).
func tlaCfgs(dir, module string) ([]tlacheck.Cfg, error) {
	all, err := tlacheck.FindCfgs(dir)
	if err != nil {
		return nil, err
	}
	var out []tlacheck.Cfg
	for _, c := range all {
		if c.Module == module && (!tlacheck.LongCfgs[c.Name] || tlaMechanismCfgs[c.Name]) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name == module && out[j].Name != module })
	return out, nil
}

// runTLA checks module in dir with technique t on every cfg of it: a cfg
// whose verdict differs from its expect line (or whose pinned state count
// differs, or whose GMP graph differs from the spec's) kills the mutant.
// On the baseline (m nil) it records each cfg's run and TLC's coverage; on
// mutant m it checks the cfgs in the tiers those give (tlaBaseline).
func (r *Runner) runTLA(ctx context.Context, t Technique, dir, module string, m *Mutant) (tr TechResult) {
	baseline := m == nil
	tr = TechResult{Technique: t.Name, Outcome: "survived"}
	start := time.Now()
	defer func() { tr.Elapsed = time.Since(start) }()
	cfgs, err := tlaCfgs(dir, module)
	if err != nil {
		tr.Outcome, tr.Detail = "error", err.Error()
		return tr
	}
	if !baseline {
		src, _ := os.ReadFile(filepath.Join(r.opt.Root, filepath.FromSlash(m.File)))
		span := changedLines(src, *m)
		r.mu.Lock()
		r.tla.order(t, cfgs, r.tla.tiers(module, src, span, cfgs))
		r.mu.Unlock()
	}
	var inconclusive []string
	for _, c := range cfgs {
		cstart := time.Now()
		var res tlacheck.Result
		if t.TLA == "tlc" {
			r.mu.Lock()
			opt := tlacheck.TLCOptions{Coverage: baseline, QuickStart: !baseline && r.tla.quickStart(c)}
			r.mu.Unlock()
			res, err = tlacheck.RunTLCWith(ctx, r.opt.TLC, c, opt)
		} else {
			res, err = tlacheck.CheckCfg(ctx, dir, c)
		}
		if ctx.Err() != nil {
			tr.Outcome, tr.Detail = "inconclusive", "cut short at "+c.Name
			return tr
		}
		if err != nil {
			// The checker could not evaluate the mutated model (an
			// undefined name, a type error in an expression): that is
			// a failure the checker reports, as TLC would.
			tr.Outcome, tr.Tests, tr.Detail = "killed", []string{c.Name}, c.Name+": "+firstLine(err.Error())
			return tr
		}
		if baseline {
			r.mu.Lock()
			r.tla.walls.record(t, c, time.Since(cstart))
			if t.TLA == "tlc" {
				r.tla.cover[c.Name], r.tla.states[c.Name] = res.Coverage, res.States
			}
			r.mu.Unlock()
		}
		v, msg := tlacheck.Judge(c, res)
		switch v {
		case tlacheck.Wrong:
			tr.Outcome, tr.Tests, tr.Detail = "killed", []string{c.Name}, c.Name+": "+msg
			tr.Elapsed = time.Since(start)
			return tr
		case tlacheck.Inconclusive:
			inconclusive = append(inconclusive, c.Name+": "+msg)
		}
	}
	if len(inconclusive) > 0 {
		tr.Outcome, tr.Detail = "inconclusive", strings.Join(inconclusive, "; ")
	}
	return tr
}

// runTLABaseline runs technique t on the unmutated modules.
func (r *Runner) runTLABaseline(ctx context.Context, t Technique) TechResult {
	tmp, err := os.MkdirTemp("", "gmpcheck-mutate-tla-")
	if err != nil {
		return TechResult{Technique: t.Name, Outcome: "error", Detail: err.Error()}
	}
	defer os.RemoveAll(tmp)
	dir, err := r.tlaTree(tmp, "", nil)
	if err != nil {
		return TechResult{Technique: t.Name, Outcome: "error", Detail: err.Error()}
	}
	if err := tlacheck.CheckInstalled(dir); err != nil {
		return TechResult{Technique: t.Name, Outcome: "error", Detail: err.Error()}
	}
	total := TechResult{Technique: t.Name, Outcome: "survived"}
	mods := r.opt.TLAModules
	if len(mods) == 0 {
		mods = tlaModules()
	}
	for _, mod := range mods {
		tr := r.runTLA(ctx, t, dir, mod, nil)
		total.Elapsed += tr.Elapsed
		if tr.Outcome != "survived" {
			tr.Elapsed = total.Elapsed
			return tr
		}
	}
	return total
}

// tlaModules are the modules the catalog mutates.
func tlaModules() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range Catalog {
		if m.Area == AreaTLA && !seen[moduleOf(m.File)] {
			seen[moduleOf(m.File)] = true
			out = append(out, moduleOf(m.File))
		}
	}
	return out
}
