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

	"github.com/gmpcheck/gmpcheck/tla"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// The tla technique: GMP.tla's cfg for the variant and its go1.26 twin.

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
// names and the go1.26 twin must pass. The engines (tlaEngines) run at
// once, each on the variant's cfg and its twin at once; the first judged
// sets the verdict and the trace, a later one can only take a Caught
// verdict away. TechResult.Engine names the engines judged.
func runTLA(ctx context.Context, va *Variant, opt Options) TechResult {
	tr := TechResult{}
	dir, err := tla.Dir(opt.TLADir)
	if err != nil {
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	}
	engines := tlaEngines(dir, va, opt)
	if engines[0].name == engineChecker {
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
	runs := make([]pairRun, len(engines))
	var wg sync.WaitGroup
	for i, e := range engines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = runPair(ctx, e, c, twin, va.Open)
		}()
	}
	wg.Wait()
	tr.Engine = strings.Join(judgeRuns(&tr, runs, c, twin, va.Open), ", ")
	if len(engines) == 1 && engines[0].name == engineTLC {
		tr.Detail += " (TLC alone: tla-checker takes a minute or more on this cfg or its twin)"
	}
	if va.Open && tr.Verdict == Caught {
		// The cfg is go1.26 already: there is no fixed twin. The explorer
		// shows that the bound passes every other property.
		tr.BaseDetail = "open bug: go1.26 is the release that fails, no fixed twin"
	}
	return tr
}

// Engine names, as TechResult.Engine gives them. The tla-checker engine is
// tlacheck.CheckCfg, whose result on a temporal cfg says
// tlacheck.ToolGoLiveness ("tla-checker graph + Go liveness"): a judged
// engine is named by its result's Tool when it has one.
const (
	engineChecker = "tla-checker"
	engineTLC     = "TLC"
)

// tlaEngine is one checker as the tla technique runs it.
type tlaEngine struct {
	name string
	run  func(context.Context, tlacheck.Cfg) (tlacheck.Result, error)
}

// tlaEngines are the engines for the variant: without a jar, tla-checker
// (tlacheck.CheckCfg: its graph, shown equal to the spec's, and the Go
// explorer's liveness for a temporal cfg); with a jar, TLC too, or TLC
// alone on a LargeTLA variant, which TLC checks in seconds where
// tla-checker takes minutes. TLC runs with one worker per process (the
// variant's and the twin's run side by side on two cores). On the small
// cfgs (not LargeTLA) the JVM starts with its first-tier compiler only
// (tlacheck.TLCOptions.QuickStart), which halves TLC's CPU time there.
func tlaEngines(dir string, va *Variant, opt Options) []tlaEngine {
	checker := tlaEngine{engineChecker, func(ctx context.Context, c tlacheck.Cfg) (tlacheck.Result, error) {
		return tlacheck.CheckCfg(ctx, dir, c)
	}}
	if opt.TLCJar == "" {
		return []tlaEngine{checker}
	}
	to := tlacheck.TLCOptions{QuickStart: !va.LargeTLA}
	tlc := tlaEngine{engineTLC, func(ctx context.Context, c tlacheck.Cfg) (tlacheck.Result, error) {
		return tlacheck.RunTLCWith(ctx, opt.TLCJar, c, to)
	}}
	if va.LargeTLA {
		return []tlaEngine{tlc}
	}
	return []tlaEngine{checker, tlc}
}

// pairRun is one engine's results on the variant's cfg and on its twin.
type pairRun struct {
	engine       string // the engine's name, or its results' Tool
	res, twin    tlacheck.Result
	err, twinErr error
}

// runPair runs one engine on the variant's cfg c and, unless the bug is
// open, on its go1.26 twin, at once: each checker is its own process, and
// on two cores that halves the wall time.
func runPair(ctx context.Context, e tlaEngine, c, twin tlacheck.Cfg, open bool) pairRun {
	p := pairRun{engine: e.name}
	var wg sync.WaitGroup
	if !open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.twin, p.twinErr = e.run(ctx, twin)
		}()
	}
	p.res, p.err = e.run(ctx, c)
	wg.Wait()
	if p.err == nil && p.res.Tool != "" {
		p.engine = p.res.Tool
	}
	return p
}

// judgeRuns judges the engines' pairs in order into tr and returns the
// names of the engines judged: the first always, a later one only while
// the verdict is Caught (it can take that away, never give it, nor turn a
// miss into an inconclusive run).
func judgeRuns(tr *TechResult, runs []pairRun, c, twin tlacheck.Cfg, open bool) []string {
	var judged []string
	for i, p := range runs {
		if i > 0 && tr.Verdict != Caught {
			break
		}
		judgePair(tr, p, c, twin, open, i == 0)
		judged = append(judged, p.engine)
	}
	return judged
}

// judgePair judges one engine's pair against the cfgs' expect lines into
// tr. The first engine sets the verdict, the trace and the times; a later
// one (first false) appends its findings and can only take a Caught
// verdict away.
func judgePair(tr *TechResult, p pairRun, c, twin tlacheck.Cfg, open, first bool) {
	res, rb, err, errb := p.res, p.twin, p.err, p.twinErr
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
