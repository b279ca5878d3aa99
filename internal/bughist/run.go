package bughist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// Verdict of one technique, or of a whole reproduction.
type Verdict string

const (
	Caught       Verdict = "caught"        // the variant fails the check, and go1.26 passes it
	Missed       Verdict = "not caught"    // the variant passed, go1.26 failed, or the mechanism is missing
	Inconclusive Verdict = "inconclusive"  // cut short (time limit, interrupt) or the tool is missing
	NotRun       Verdict = "not run"       // filtered out by Options.Techniques
	Failed       Verdict = "error"         // the check could not run
	NotModelled  Verdict = "not modelled"  // the entry is not expressible
	Unexpressed  Verdict = "inexpressible" // (the whole reproduction of such an entry)
)

// Options tune a reproduction.
type Options struct {
	// Techniques selects techniques by name (nil: every applicable one).
	Techniques []string
	// TLADir is the tla directory (empty: tla/ in the working directory or
	// a parent, else the modules built into the binary, unpacked into the
	// user cache directory).
	TLADir string
	// TLCJar, if set, also runs TLC on the variant's cfg and its twin.
	TLCJar string
	// Log, if set, receives progress lines.
	Log io.Writer
}

// TechResult is one technique's outcome on the variant and on go1.26.
type TechResult struct {
	Technique string
	Verdict   Verdict
	Detail    string // what the variant did
	Bounds    string // the model checked
	// The counterexample: its length in actions and the trace as the
	// explorer prints it (for impl, the trace replayed).
	TraceLen int
	Trace    string
	Elapsed  time.Duration
	// Base is go1.26 on the same check: it must pass (for impl: the
	// reference scheduler as go1.26 must leave the trace).
	BasePass    bool
	BaseDetail  string
	BaseElapsed time.Duration
}

// Report is one entry's reproduction.
type Report struct {
	Entry   Entry
	Verdict Verdict
	Results []TechResult
	Elapsed time.Duration
}

// ExitCode is 0 when every applicable technique caught the bug and go1.26
// passed them, 3 when one was cut short, 1 otherwise (an inexpressible
// entry included).
func (r Report) ExitCode() int {
	switch r.Verdict {
	case Caught:
		return 0
	case Inconclusive:
		return 3
	}
	return 1
}

// Summary is one line: the verdict and each technique's.
func (r Report) Summary() string {
	if !r.Entry.Expressible() {
		return fmt.Sprintf("%s (%s): not caught: expressible: no, needs %s", r.Entry.Name, r.Entry.Link(), r.Entry.Needs)
	}
	var parts []string
	for _, t := range r.Results {
		s := t.Technique + " " + string(t.Verdict)
		if t.Verdict == Caught {
			base := "go1.26 passes"
			if r.Entry.Variant.Open {
				base = "open: no fixed twin"
			}
			s += fmt.Sprintf(" (%d steps, %s; %s)", t.TraceLen, t.Elapsed.Round(time.Millisecond), base)
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("%s (%s, %s): %s: %s", r.Entry.Name, r.Entry.Link(), r.Entry.VariantName(), r.Verdict, strings.Join(parts, "; "))
}

func (o Options) logf(format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", a...)
	}
}

func (o Options) wants(tech string) bool {
	if o.Techniques == nil {
		return true
	}
	for _, t := range o.Techniques {
		if t == tech {
			return true
		}
	}
	return false
}

// Reproduce runs every applicable technique on the entry's variant and on
// go1.26. An entry the model cannot express is reported Unexpressed, with
// no technique run.
func Reproduce(ctx context.Context, e Entry, opt Options) Report {
	start := time.Now()
	rep := Report{Entry: e}
	if !e.Expressible() {
		rep.Verdict = Unexpressed
		return rep
	}
	for _, tech := range e.Applicable() {
		if !opt.wants(tech) {
			rep.Results = append(rep.Results, TechResult{Technique: tech, Verdict: NotRun})
			continue
		}
		opt.logf("%s: %s ...", e.Name, tech)
		var tr TechResult
		switch tech {
		case TechExplore:
			tr = runExplore(ctx, e.Variant)
		case TechTLA:
			tr = runTLA(ctx, e.Variant, opt)
		case TechImpl:
			tr = runImpl(ctx, e.Variant)
		}
		tr.Technique = tech
		opt.logf("%s: %s: %s: %s", e.Name, tech, tr.Verdict, tr.Detail)
		rep.Results = append(rep.Results, tr)
	}
	rep.Verdict = Caught
	ran := 0
	for _, t := range rep.Results {
		switch t.Verdict {
		case NotRun:
			continue
		case Caught:
		case Inconclusive:
			if rep.Verdict == Caught {
				rep.Verdict = Inconclusive
			}
		default:
			rep.Verdict = Missed
		}
		ran++
	}
	if ran == 0 {
		rep.Verdict = Missed
	}
	rep.Elapsed = time.Since(start)
	return rep
}

// exploreOptions is how the catalog explores: liveness, with Ms as the
// thread limit (so that go1.26's pass is conclusive on the same bound).
var exploreOptions = spec.Options{Liveness: true, ThreadLimit: true}

// explored keeps the complete explorations of this process by bounds and
// properties: the go1.26 twin of every variant on the verify bound is one
// search.
var explored struct {
	sync.Mutex
	m map[exploreKey]spec.Result
}

// exploreKey is one exploration: the bound, and whether property (c) is
// checked too (then every violated property is reported).
type exploreKey struct {
	b     spec.Bounds
	local bool
}

func explore(ctx context.Context, b spec.Bounds) (spec.Result, error) {
	return exploreWith(ctx, exploreKey{b: b})
}

func exploreWith(ctx context.Context, k exploreKey) (spec.Result, error) {
	explored.Lock()
	r, ok := explored.m[k]
	explored.Unlock()
	if ok {
		return r, nil
	}
	opt := exploreOptions
	opt.LocalStarvation, opt.All = k.local, k.local
	r, err := spec.Explore(ctx, k.b, opt)
	if err == nil && (r.Complete || r.Violation != nil) {
		explored.Lock()
		if explored.m == nil {
			explored.m = map[exploreKey]spec.Result{}
		}
		explored.m[k] = r
		explored.Unlock()
	}
	return r, err
}

// broken is the first counterexample of kind in r (any property with
// spec.Options.All), or nil.
func broken(r spec.Result, kind spec.ViolationKind) *spec.Violation {
	if r.Violation != nil && r.Violation.Kind == kind {
		return r.Violation
	}
	for i := range r.Violations {
		if r.Violations[i].Kind == kind {
			return r.Violations[i].First
		}
	}
	return nil
}

// runExplore: the variant must break its property on its bound, and
// go1.26 must pass the same bound; for an open bug (va.Open), the bound
// must pass every property but the issue's.
func runExplore(ctx context.Context, va *Variant) TechResult {
	b, kind := va.Explore, va.Kind
	b.Go = va.Go
	tr := TechResult{Bounds: b.String()}
	if va.LocalStarvation {
		tr.Bounds += " with property (c)"
	}
	start := time.Now()
	r, err := exploreWith(ctx, exploreKey{b: b, local: va.LocalStarvation})
	tr.Elapsed = time.Since(start)
	v := broken(r, kind)
	switch {
	case err != nil:
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	case r.Violation == nil && !r.Complete:
		tr.Verdict, tr.Detail = Inconclusive, fmt.Sprintf("cut short after %d states", r.Distinct)
		return tr
	case r.Violation == nil:
		tr.Verdict, tr.Detail = Missed, fmt.Sprintf("the variant passes: %v", r)
		return tr
	case v == nil:
		tr.Verdict, tr.Detail = Missed, fmt.Sprintf("%v fails, want %v", r.Violation.Kind, kind)
		return tr
	}
	tr.TraceLen, tr.Trace = v.Trace.Len(), printViolation(v)
	tr.Detail = fmt.Sprintf("%v in %d steps (%d states)", v.Kind, v.Trace.Len(), r.Distinct)
	base := exploreKey{b: b, local: va.LocalStarvation}
	base.b.Go = spec.Go126
	what := "go1.26"
	if va.Open {
		base.local = false
		what = "go1.26 without property (c)"
	}
	bstart := time.Now()
	rb, err := exploreWith(ctx, base)
	tr.BaseElapsed = time.Since(bstart)
	switch {
	case err != nil:
		tr.Verdict, tr.BaseDetail = Failed, err.Error()
	case rb.Violation != nil:
		tr.Verdict, tr.BaseDetail = Missed, fmt.Sprintf("%s fails too: %v", what, rb.Violation.Kind)
	case rb.Verdict() != "pass":
		tr.Verdict, tr.BaseDetail = Inconclusive, fmt.Sprintf("%s: %s after %d states", what, rb.Verdict(), rb.Distinct)
	default:
		tr.Verdict, tr.BasePass, tr.BaseDetail = Caught, true, fmt.Sprintf("%s passes: %d states, liveness ok", what, rb.Distinct)
	}
	return tr
}

// printViolation is a counterexample as 'gmpcheck explore' prints it.
func printViolation(v *spec.Violation) string {
	return fmt.Sprintf("VIOLATION (%d steps) %v", v.Trace.Len(), v)
}

// runImpl: the explorer's shortest counterexample on the Driver bound,
// played on the reference scheduler as the variant (it must follow and
// starve) and as go1.26 (it must leave the trace).
func runImpl(ctx context.Context, va *Variant) TechResult {
	b := va.Driver
	b.Go = va.Go
	tr := TechResult{Bounds: b.String()}
	start := time.Now()
	r, err := explore(ctx, b)
	switch {
	case err != nil:
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	case r.Violation == nil && !r.Complete:
		tr.Verdict, tr.Detail = Inconclusive, fmt.Sprintf("explorer cut short after %d states", r.Distinct)
		return tr
	case r.Violation == nil || r.Violation.Kind != va.Kind:
		tr.Verdict, tr.Detail = Missed, fmt.Sprintf("the explorer found no %v on the driver bound: %v", va.Kind, r)
		return tr
	}
	t := r.Violation.Trace
	tr.TraceLen, tr.Trace = t.Len(), printViolation(r.Violation)
	rv, err := ReplayOnImpl(b, va.Go, t, va.Kind)
	tr.Elapsed = time.Since(start)
	if err != nil {
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	}
	tr.Detail = fmt.Sprintf("impl.Driver as %v: %s", va.Go, rv.Detail)
	if !rv.Caught() {
		tr.Verdict = Missed
		return tr
	}
	bstart := time.Now()
	rb, err := ReplayOnImpl(b, spec.Go126, t, va.Kind)
	tr.BaseElapsed = time.Since(bstart)
	switch {
	case err != nil:
		tr.Verdict, tr.BaseDetail = Failed, err.Error()
	case rb.Caught():
		tr.Verdict, tr.BaseDetail = Missed, "impl.Driver as go1.26 follows the trace into the bad state too"
	case rb.Followed:
		tr.Verdict, tr.BasePass = Caught, true
		tr.BaseDetail = "impl.Driver as go1.26 follows the trace but does not starve: " + rb.Detail
	default:
		tr.Verdict, tr.BasePass = Caught, true
		tr.BaseDetail = fmt.Sprintf("impl.Driver as go1.26 leaves the trace at step %d: %s", rb.At, rb.Detail)
	}
	return tr
}

// tlaDir is opt.TLADir, else tla/ in a checkout above the working
// directory, else the built-in modules unpacked into the user cache.
func tlaDir(opt Options) (string, error) {
	if opt.TLADir != "" {
		return tlacheck.FindDir(opt.TLADir)
	}
	if dir, err := tlacheck.FindDir("."); err == nil {
		return dir, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("not in a checkout, and no cache directory for the built-in TLA+ modules: %v", err)
	}
	return tla.Unpack(filepath.Join(cache, "gmpcheck"))
}

var (
	goVersionLine = regexp.MustCompile(`(?m)^(\s*GoVersion\s*=\s*)\d+\s*$`)
	expectLine    = regexp.MustCompile(`(?m)^\\\*\s*expect:.*$`)
)

// twinCfg writes the go1.26 twin of the variant's cfg (GoVersion = 126,
// expect: pass) into a new directory beside copies of the modules, and
// returns it parsed and the directory to remove.
func twinCfg(dir string, c tlacheck.Cfg) (tlacheck.Cfg, string, error) {
	text, err := os.ReadFile(c.Path)
	if err != nil {
		return tlacheck.Cfg{}, "", err
	}
	if !goVersionLine.Match(text) || !expectLine.Match(text) {
		return tlacheck.Cfg{}, "", fmt.Errorf("%s: no GoVersion or expect line to rewrite", c.Path)
	}
	text = goVersionLine.ReplaceAll(text, []byte("${1}126"))
	text = expectLine.ReplaceAll(text, []byte(`\* expect: pass`))
	tmp, err := os.MkdirTemp("", "gmpcheck-bughist-")
	if err != nil {
		return tlacheck.Cfg{}, "", err
	}
	mods, err := filepath.Glob(filepath.Join(dir, "*.tla"))
	if err == nil && len(mods) == 0 {
		err = fmt.Errorf("no modules in %s", dir)
	}
	for _, m := range mods {
		if err != nil {
			break
		}
		var b []byte
		if b, err = os.ReadFile(m); err == nil {
			err = os.WriteFile(filepath.Join(tmp, filepath.Base(m)), b, 0o644)
		}
	}
	name := filepath.Join(tmp, c.Name+"_twin126.cfg")
	if err == nil {
		err = os.WriteFile(name, text, 0o644)
	}
	var tc tlacheck.Cfg
	if err == nil {
		tc, err = tlacheck.ParseCfg(name)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return tlacheck.Cfg{}, "", err
	}
	return tc, tmp, nil
}

var (
	stepLine  = regexp.MustCompile(`(?m)^\s+\d+\. `)
	stateLine = regexp.MustCompile(`(?m)^State \d+`)
)

// stepsIn counts the steps of a printed trace: the numbered steps as the
// explorer prints them, or, in a TLA+ trace (State 0, State 1, ...), the
// states after the first.
func stepsIn(trace string) int {
	if n := len(stepLine.FindAllString(trace, -1)); n > 0 {
		return n
	}
	if n := len(stateLine.FindAllString(trace, -1)); n > 0 {
		return n - 1
	}
	return 0
}

// runTLA: GMP.tla's cfg for the variant must fail with the property it
// names and the go1.26 twin must pass. The engine is tla-checker (its
// graph, shown equal to the spec's, with the Go explorer's liveness), TLC
// too given a jar; for a LargeTLA variant given a jar, TLC alone, which
// checks those cfgs in seconds where tla-checker takes minutes.
func runTLA(ctx context.Context, va *Variant, opt Options) TechResult {
	tr := TechResult{}
	dir, err := tlaDir(opt)
	if err != nil {
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	}
	tlcOnly := opt.TLCJar != "" && va.LargeTLA
	if !tlcOnly {
		if err := tlacheck.EnsureInstalled(ctx, dir, logWriter(opt)); err != nil {
			tr.Verdict, tr.Detail = Inconclusive, err.Error()
			if !errors.Is(err, tlacheck.ErrNotInstalled) {
				tr.Verdict = Failed
			}
			return tr
		}
	}
	c, err := tlacheck.ParseCfg(filepath.Join(dir, va.TLACfg+".cfg"))
	if err != nil {
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	}
	if b, err := tlacheck.BoundsFromCfg(c); err == nil {
		tr.Bounds = c.Name + ": " + b.String()
	}
	var twin tlacheck.Cfg
	if !va.Open {
		var tmp string
		twin, tmp, err = twinCfg(dir, c)
		if err != nil {
			tr.Verdict, tr.BaseDetail = Failed, err.Error()
			return tr
		}
		defer os.RemoveAll(tmp)
	}
	tlc := func(ctx context.Context, c tlacheck.Cfg) (tlacheck.Result, error) {
		return tlacheck.RunTLC(ctx, opt.TLCJar, c)
	}
	checker := func(ctx context.Context, c tlacheck.Cfg) (tlacheck.Result, error) {
		return tlacheck.CheckCfg(ctx, dir, c)
	}
	first := checker
	if tlcOnly {
		first = tlc
	}
	judgePair(ctx, &tr, first, c, twin, va.Open, true)
	if tlcOnly {
		tr.Detail += " (TLC alone: tla-checker takes a minute or more on this cfg or its twin)"
	} else if opt.TLCJar != "" && tr.Verdict == Caught {
		judgePair(ctx, &tr, tlc, c, twin, va.Open, false)
	}
	if va.Open && tr.Verdict == Caught {
		// The cfg is go1.26 already: there is no fixed twin. The explorer
		// shows that the bound passes every other property.
		tr.BaseDetail = "open bug: go1.26 is the release that fails, no fixed twin"
	}
	return tr
}

// judgePair runs one engine on the variant's cfg c and, unless the bug is
// open, on its go1.26 twin, at once (each checker is its own process: on
// two cores that halves the wall time), and judges both against their
// expect lines into tr. The first engine sets the verdict, the trace and
// the times; a later one (first false) appends its findings and can only
// take a Caught verdict away.
func judgePair(ctx context.Context, tr *TechResult, run func(context.Context, tlacheck.Cfg) (tlacheck.Result, error), c, twin tlacheck.Cfg, open, first bool) {
	var rb tlacheck.Result
	var errb error
	var wg sync.WaitGroup
	if !open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rb, errb = run(ctx, twin)
		}()
	}
	res, err := run(ctx, c)
	wg.Wait()
	note := func(dst *string, s string) {
		if first {
			*dst = s
		} else {
			*dst += "; " + s
		}
	}
	// judge judges r against cfg's expect line and notes it in dst (the
	// first engine names the cfg, as label, and sets the time); when r is
	// not as expected it sets the verdict and reports false.
	judge := func(dst *string, elapsed *time.Duration, cfg tlacheck.Cfg, label string, r tlacheck.Result) bool {
		v, why := tlacheck.Judge(cfg, r)
		if first {
			*dst, *elapsed = fmt.Sprintf("%s: %v: %s", label, r, why), r.Elapsed
		} else {
			*dst += fmt.Sprintf("; %v: %s", r, why)
		}
		switch v {
		case tlacheck.OK:
			return true
		case tlacheck.Inconclusive:
			tr.Verdict = Inconclusive
		default:
			tr.Verdict = Missed
		}
		tr.BasePass = false
		return false
	}
	if err != nil {
		tr.Verdict = Failed
		note(&tr.Detail, err.Error())
		return
	}
	if !judge(&tr.Detail, &tr.Elapsed, c, c.Name, res) {
		return
	}
	if first {
		tr.Trace, tr.TraceLen = res.Trace, stepsIn(res.Trace)
	}
	if open {
		if first {
			tr.Verdict = Caught
		}
		return
	}
	if errb != nil {
		tr.Verdict, tr.BasePass = Failed, false
		note(&tr.BaseDetail, errb.Error())
		return
	}
	if judge(&tr.BaseDetail, &tr.BaseElapsed, twin, c.Name+" (GoVersion = 126)", rb) && first {
		tr.Verdict, tr.BasePass = Caught, true
	}
}

func logWriter(opt Options) io.Writer {
	if opt.Log != nil {
		return opt.Log
	}
	return io.Discard
}
