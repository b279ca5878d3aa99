package bughist

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
// names and the go1.26 twin must pass. One engine (tlaEngineFor) checks
// both, at once; TechResult.Engine names it.
func runTLA(ctx context.Context, va *Variant, opt Options) TechResult {
	tr := TechResult{}
	dir, err := tla.Dir(opt.TLADir)
	if err != nil {
		tr.Verdict, tr.Detail = Failed, err.Error()
		return tr
	}
	e := tlaEngineFor(dir, va, opt)
	if e.name == engineChecker {
		if err := tlacheck.EnsureInstalled(ctx, dir, logWriter(opt)); err != nil {
			tr.Verdict, tr.Detail = Inconclusive, err.Error()
			if !errors.Is(err, tlacheck.ErrNotInstalled) {
				tr.Verdict = Failed
			}
			return tr
		}
		if va.LargeTLA {
			fmt.Fprintf(logWriter(opt), "%s: tla-checker takes minutes on %s or its twin; -tlc (or TLA2TOOLS_JAR) runs TLC in seconds\n", va.TLACfg, va.TLACfg)
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
	p := runPair(ctx, e, c, twin, va.Open)
	tr.Engine = p.engine
	judgePair(&tr, p, c, twin, va.Open)
	if va.Open && tr.Verdict == Caught {
		// The cfg is go1.26 already: there is no fixed twin. The explorer
		// shows that the bound passes every other property.
		tr.BaseDetail = "open bug: go1.26 is the release that fails, no fixed twin"
	}
	return tr
}

// Engine names, as TechResult.Engine gives them. The tla-checker engine is
// tlacheck.CheckCfg, whose result on a temporal cfg says
// tlacheck.ToolGoLiveness ("tla-checker graph + Go liveness"): the engine
// is named by its result's Tool when it has one.
const (
	engineChecker = "tla-checker"
	engineTLC     = "TLC"
)

// tlaEngine is one checker as the tla technique runs it; run's twin is
// true on the go1.26 twin.
type tlaEngine struct {
	name string
	run  func(ctx context.Context, c tlacheck.Cfg, twin bool) (tlacheck.Result, error)
}

// tlaEngineFor is the engine: with a jar TLC, the reference checker;
// without one tla-checker (tlacheck.CheckCfg: its graph, shown equal to the
// spec's, and the Go explorer's liveness for a temporal cfg). tla-checker
// spends two to five seconds of CPU on a cfg of a few hundred states and
// minutes on the LargeTLA ones, where TLC needs one to three: running both,
// as this technique did until 27 November 2026, doubled a reproduction's
// time for no new verdict, and tla/'s tests check every hist cfg with
// tla-checker and its graph cross-check anyway (the LargeTLA ones in the
// long tier).
//
// TLC starts its JVM with the first-tier compiler only
// (tlacheck.TLCOptions.QuickStart), except on the TLCOptimizing variants:
// up to about 25,000 states the optimizing tier costs more than it saves
// (hist-23098's twin of 23,688 states: 3.8 s against 5.3 s), past 40,000
// it pays (hist-13546's 45,592: 21 s against 29 s of the whole
// reproduction, hist-52934's 157,756: 45 s against 68 s). The
// variant's cfg runs with one worker, so that its counterexample does not
// depend on the scheduling; the twin, which must pass and whose
// distinct-state count no worker count changes, runs with two, taking the
// second core once the variant's run is done.
func tlaEngineFor(dir string, va *Variant, opt Options) tlaEngine {
	if opt.TLCJar == "" {
		return tlaEngine{engineChecker, func(ctx context.Context, c tlacheck.Cfg, _ bool) (tlacheck.Result, error) {
			return tlacheck.CheckCfg(ctx, dir, c)
		}}
	}
	return tlaEngine{engineTLC, func(ctx context.Context, c tlacheck.Cfg, twin bool) (tlacheck.Result, error) {
		to := tlacheck.TLCOptions{QuickStart: !va.TLCOptimizing, Workers: 1}
		if twin {
			to.Workers = 2
		}
		return tlacheck.RunTLCWith(ctx, opt.TLCJar, c, to)
	}}
}

// pairRun is the engine's results on the variant's cfg and on its twin.
type pairRun struct {
	engine       string // the engine's name, or its results' Tool
	res, twin    tlacheck.Result
	err, twinErr error
}

// runPair runs the engine on the variant's cfg c and, unless the bug is
// open, on its go1.26 twin, at once: each checker is its own process, and
// on two cores that halves the wall time.
func runPair(ctx context.Context, e tlaEngine, c, twin tlacheck.Cfg, open bool) pairRun {
	p := pairRun{engine: e.name}
	var wg sync.WaitGroup
	if !open {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.twin, p.twinErr = e.run(ctx, twin, true)
		}()
	}
	p.res, p.err = e.run(ctx, c, false)
	wg.Wait()
	if p.err == nil && p.res.Tool != "" {
		p.engine = p.res.Tool
	}
	return p
}

// judgePair judges the engine's pair against the cfgs' expect lines into
// tr: the variant's cfg must fail as its expect line says (which sets the
// trace), and the twin must pass; anything cut short is inconclusive.
func judgePair(tr *TechResult, p pairRun, c, twin tlacheck.Cfg, open bool) {
	// judge judges r against cfg's expect line and notes it in dst under
	// label, with its time; when r is not as expected it sets the verdict
	// and reports false.
	judge := func(dst *string, elapsed *time.Duration, cfg tlacheck.Cfg, label string, r tlacheck.Result) bool {
		v, why := tlacheck.Judge(cfg, r)
		*dst, *elapsed = fmt.Sprintf("%s: %v: %s", label, r, why), r.Elapsed
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
	if p.err != nil {
		tr.Verdict, tr.Detail = Failed, p.err.Error()
		return
	}
	if !judge(&tr.Detail, &tr.Elapsed, c, c.Name, p.res) {
		return
	}
	tr.Trace, tr.TraceLen = p.res.Trace, stepsIn(p.res.Trace)
	if open {
		tr.Verdict = Caught
		return
	}
	if p.twinErr != nil {
		tr.Verdict, tr.BasePass, tr.BaseDetail = Failed, false, p.twinErr.Error()
		return
	}
	if judge(&tr.BaseDetail, &tr.BaseElapsed, twin, c.Name+" (GoVersion = 126)", p.twin) {
		tr.Verdict, tr.BasePass = Caught, true
	}
}

func logWriter(opt Options) io.Writer {
	if opt.Log != nil {
		return opt.Log
	}
	return io.Discard
}
