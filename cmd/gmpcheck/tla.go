package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/viz"
	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// tla: model-check the TLA+ modules in tla/ (RunQueue.tla, GMP.tla) with
// tla-checker under node, and with TLC when a tla2tools.jar is given, and
// print one row per cfg and checker. Passing GMP cfgs are also compared
// with the spec's graph; temporal cfgs are checked by the Go explorer's
// liveness on tla-checker's graph once it is shown equal to the spec's
// (tlacheck.CheckCfg), a row of its own kind (tlacheck.ToolGoLiveness).

func init() {
	registerCommand(command{
		name:    "tla",
		summary: "model-check the TLA+ specs in tla/ with tla-checker (and TLC) and report per cfg",
		run:     runTLA,
	})
	registerStage(stage{name: "tla", order: 40, run: tlaStage})
}

// tlaRow is one checker's run on one cfg.
type tlaRow struct {
	cfg     tlacheck.Cfg
	res     tlacheck.Result
	verdict tlacheck.Verdict
	why     string
	err     error
}

func runTLA(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("tla", "[-dir d] [-run re] [-tlc jar] [-timeout d] [-j n] [-v]",
		`Model-checks every Module.cfg / Module_variant.cfg in tla/ with tla-checker
(installed from tla/package-lock.json by npm ci when missing) and, with -tlc,
with TLC, which must find the same distinct-state count on every cfg both
pass. Seeded-bug cfgs (_bug_) must fail with the property their
"\* expect:" line names.
Passing GMP cfgs are compared with the spec's state graph; temporal cfgs
(PROPERTY) are checked by TLC and, as "`+tlacheck.ToolGoLiveness+`",
by the Go explorer's liveness on tla-checker's graph shown equal to the spec's.
Without -dir and outside a checkout, the modules and cfgs built into this
binary are checked (unpacked into the user cache directory).
Exit 3 also when the checker is missing and cannot be installed.`)
	dirFlag := fs.String("dir", "", "the tla directory (default: tla/ in the current directory or a parent, else the copy built into the binary)")
	match := fs.String("run", "", "only cfgs whose name matches this regular expression")
	jar := fs.String("tlc", os.Getenv("TLA2TOOLS_JAR"), "tla2tools.jar: also run TLC (default $TLA2TOOLS_JAR)")
	fs.addTimeout(20*time.Minute, "time limit of the whole command; runs not finished by then are inconclusive")
	workers := fs.Int("j", 2, "cfgs checked in parallel, 1..64")
	traces := fs.Bool("v", false, "print the counterexample of every failing run, expected or not")
	htmlFile := fs.String("html", "", "write the counterexample of every failing run (expected or not) as a self-contained HTML page: this file for the first, the file with -<cfg>-<checker> before its extension for the others (docs/pictures.md)")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if err := intFlag("j", *workers, 1, 64); err != nil {
		return usageError(stderr, "tla", "%v", err)
	}
	re, err := compileRun(*match)
	if err != nil {
		return usageError(stderr, "tla", "%v", err)
	}
	if *jar != "" {
		if st, err := os.Stat(*jar); err != nil || st.IsDir() {
			src := "-tlc"
			if !fs.set("tlc") {
				src = "TLA2TOOLS_JAR"
			}
			return usageError(stderr, "tla", "%s %s: not a tla2tools.jar file", src, *jar)
		}
		if _, err := exec.LookPath("java"); err != nil {
			return usageError(stderr, "tla", "-tlc needs java on PATH")
		}
	}
	dir, cfgs, err := loadTLACfgs(*dirFlag, re)
	if err != nil {
		return usageError(stderr, "tla", "%v", err)
	}
	out := newOutput(fs, stdout, stderr)
	stdout = out.human
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	if err := tlacheck.EnsureInstalled(ctx, dir, stderr); err != nil {
		fmt.Fprintf(stderr, "tla: %v\n", err)
		return out.result(inconclusive, err.Error(), nil)
	}
	sv, syntax := checkTLASyntax(ctx, dir, cfgs)
	fmt.Fprintln(stdout, syntax)
	fmt.Fprintln(stdout)
	log, stop := heartbeat(stderr, "tla", heartbeatEvery)
	rows := checkTLACfgs(ctx, dir, cfgs, *jar, 0, *workers, log)
	stop()
	v := worst(sv, printTLAReport(ctx, dir, stdout, rows, *traces))
	for _, r := range rows {
		out.row("cfg", tlaRowJSON(r))
	}
	if *htmlFile != "" {
		writeTLAPages(stdout, *htmlFile, rows)
	}
	if *jar == "" {
		fmt.Fprintln(stdout, "\nTLC not run (no -tlc / TLA2TOOLS_JAR): temporal properties were checked by the Go explorer")
		fmt.Fprintln(stdout, "on tla-checker's graph (shown equal to the spec's), not by a TLA+ checker.")
	}
	if why := interrupted(ctx); why != "" {
		fmt.Fprintf(stdout, "\ntla: stopped early (%s): rows not run are INCONCLUSIVE\n", why)
		v = worst(v, inconclusive)
	}
	fmt.Fprintf(stdout, "\ntla: %s\n", v)
	return out.result(v, fmt.Sprintf("%d checker runs on %d cfgs", len(rows), len(cfgs)), nil)
}

// writeTLAPages draws the counterexample of every row that has one: a
// GMP.tla trace as the explorer's page (internal/viz: a lane per P, M, the
// global queue; each step named by the spec action with the same
// successor), any other module's as a table of its variables per state.
func writeTLAPages(w io.Writer, path string, rows []tlaRow) {
	var with []tlaRow
	for _, r := range rows {
		switch r.res.Outcome {
		case tlacheck.Invariant, tlacheck.Property, tlacheck.Deadlock:
		default:
			continue
		}
		if r.err == nil && r.res.Trace != "" && r.res.Tool != tlacheck.ToolGoLiveness {
			with = append(with, r)
		}
	}
	if len(with) == 0 {
		fmt.Fprintln(w, "no counterexample to draw (-html): no page written")
		return
	}
	for i, r := range with {
		file := path
		if i > 0 {
			ext := filepath.Ext(path)
			tool := strings.ReplaceAll(strings.ToLower(r.res.Tool), " ", "-")
			file = strings.TrimSuffix(path, ext) + "-" + r.cfg.Name + "-" + tool + ext
		}
		if err := writeTLAPage(file, r); err != nil {
			fmt.Fprintf(w, "%s (%s): no picture: %v\n", r.cfg.Name, r.res.Tool, err)
			continue
		}
		fmt.Fprintf(w, "counterexample picture of %s (%s): %s\n", r.cfg.Name, r.res.Tool, file)
	}
}

func writeTLAPage(file string, r tlaRow) error {
	tr, err := viz.ParseTLATrace(r.res.Trace)
	if err != nil {
		return err
	}
	what := string(r.res.Outcome)
	if r.res.Name != "" && r.res.Outcome != tlacheck.Deadlock {
		what += " " + r.res.Name
	}
	title := fmt.Sprintf("gmpcheck tla: %s (%s): %s", r.cfg.Name, r.res.Tool, what)
	note := fmt.Sprintf("%s's counterexample for %s", r.res.Tool, filepath.Base(r.cfg.Path))
	if r.cfg.Module != "GMP" {
		return viz.WriteVarTraceFile(file, viz.VarTracePage{Title: title, Kind: what, Detail: r.res.Message, Note: note, Trace: tr})
	}
	b, err := tlacheck.BoundsFromCfg(r.cfg)
	if err != nil {
		return err
	}
	md, err := spec.NewModel(b)
	if err != nil {
		return err
	}
	kind := spec.KindInvariant
	switch {
	case r.res.Outcome == tlacheck.Deadlock:
		kind = spec.KindDeadlock
	case r.res.Outcome == tlacheck.Property && strings.Contains(r.res.Name, "LocalStarv"):
		kind = spec.KindLocalStarvation
	case r.res.Outcome == tlacheck.Property && strings.Contains(r.res.Name, "Starv"):
		kind = spec.KindGlobalStarvation
	case r.res.Outcome == tlacheck.Property && strings.Contains(r.res.Name, "STW"):
		kind = spec.KindSTWStuck
	case r.res.Outcome == tlacheck.Property:
		kind = spec.KindWorkConservation
	}
	v, unnamed, err := viz.TLAViolation(md, tr, kind, r.res.Message)
	if err != nil {
		return err
	}
	labels := map[int]string{}
	for _, i := range unnamed {
		labels[i] = "?: no spec action"
	}
	note += "; each step is named by the spec action whose successor has GMP.tla's next state"
	if len(unnamed) > 0 {
		note += fmt.Sprintf(" (%d steps the spec does not take: \"?\")", len(unnamed))
	}
	return viz.WriteFile(file, viz.Page{Title: title, Bounds: b, Violation: v, StepLabels: labels, Note: note})
}

// tlaRowJSON is one -json row of the tla table.
func tlaRowJSON(r tlaRow) map[string]any {
	m := map[string]any{"cfg": r.cfg.Name, "checker": r.res.Tool, "expected": r.cfg.Expect,
		"outcome": string(r.res.Outcome), "name": r.res.Name, "states": r.res.States,
		"seconds": r.res.Elapsed.Seconds(), "verdict": r.verdict.String(), "why": r.why}
	if r.err != nil {
		m["verdict"], m["error"] = "error", r.err.Error()
	}
	return m
}

func loadTLACfgs(dirFlag string, re *regexp.Regexp) (string, []tlacheck.Cfg, error) {
	dir, err := tla.Dir(dirFlag)
	if err != nil {
		return "", nil, err
	}
	all, err := tlacheck.FindCfgs(dir)
	if err != nil {
		return "", nil, err
	}
	var cfgs []tlacheck.Cfg
	for _, c := range all {
		if re == nil || re.MatchString(c.Name) {
			cfgs = append(cfgs, c)
		}
	}
	if len(cfgs) == 0 {
		var names []string
		for _, c := range all {
			names = append(names, c.Name)
		}
		return "", nil, fmt.Errorf("-run %q matches no cfg in %s (cfgs: %s)", re, dir, strings.Join(names, ", "))
	}
	return dir, cfgs, nil
}

// checkTLACfgs runs every cfg with tla-checker (tlacheck.CheckCfg) and, if
// jar is set, with TLC, workers at a time, the longest runs first
// (longestFirst); timeout (0: none) bounds each run, ctx all of them. Rows
// come back in cfg order.
func checkTLACfgs(ctx context.Context, dir string, cfgs []tlacheck.Cfg, jar string, timeout time.Duration, workers int, log io.Writer) []tlaRow {
	var jobs []tlaJob
	for i := range cfgs {
		jobs = append(jobs, tlaJob{i, false})
		if jar != "" {
			jobs = append(jobs, tlaJob{i, true})
		}
	}
	sizes := make([]int, len(cfgs))
	for i, c := range cfgs {
		sizes[i] = tlacheck.GraphSize(ctx, c, sizeEstimateCap)
	}
	order := longestFirst(jobs, sizes)
	rows := make([]tlaRow, len(jobs))
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next == len(jobs) {
					mu.Unlock()
					return
				}
				k := order[next]
				next++
				mu.Unlock()
				j := jobs[k]
				c := cfgs[j.i]
				row := tlaRow{cfg: c}
				switch {
				case ctx.Err() != nil:
					row.res.Tool = toolName(j.tlc, c)
					row.res.Outcome = tlacheck.Timeout
					row.verdict, row.why = tlacheck.Inconclusive, "not run: "+interrupted(ctx)
				default:
					rctx, cancel := withTimeout(ctx, timeout)
					if j.tlc {
						row.res, row.err = tlacheck.RunTLC(rctx, jar, c)
					} else {
						row.res, row.err = tlacheck.CheckCfg(rctx, dir, c)
					}
					cancel()
					if row.err != nil && ctx.Err() != nil {
						// Stopped from outside: not a failure of the checker.
						row.err = nil
						row.res.Tool = toolName(j.tlc, c)
						row.res.Outcome, row.res.Message = tlacheck.Timeout, interrupted(ctx)
					}
					if row.err == nil {
						row.verdict, row.why = tlacheck.Judge(c, row.res)
					}
				}
				mu.Lock()
				if row.err != nil {
					row.res.Tool = toolName(j.tlc, c)
					fmt.Fprintf(log, "tla: %s: %s: error: %v\n", c.Name, row.res.Tool, row.err)
				} else {
					fmt.Fprintf(log, "tla: %s: %s: %s\n", c.Name, row.res, row.why)
					if row.res.Tool == tlacheck.ToolGoLiveness || strings.Contains(row.res.Message, "agree") {
						fmt.Fprintf(log, "tla: %s: %s\n", c.Name, row.res.Message)
					}
				}
				mu.Unlock()
				rows[k] = row
			}
		}()
	}
	wg.Wait()
	sameStates(rows, jobs, log)
	return rows
}

// tlaJob is one checker run: cfg i, with TLC or with tla-checker.
type tlaJob struct {
	i   int
	tlc bool
}

// Estimated costs for longestFirst: a cfg of unknown size
// (tlacheck.GraphSize 0) counts as unknownStates, and a TLC run as a
// tlcShare of tla-checker's on the same cfg (TLC explores GMP.tla tens of
// times as fast). GraphSize stops counting at sizeEstimateCap states.
const (
	unknownStates   = 10000
	tlcShare        = 10
	sizeEstimateCap = 1 << 20
)

// longestFirst orders the jobs by their estimated cost, the distinct
// states of their cfg (sizes, by cfg), largest first, ties in cfg order.
// tla-checker's time grows with the states (a few hundred a second on
// GMP.tla), and the long tier's cfgs run from seconds to half an hour:
// started in cfg order, the largest (GMP_timers_stw, last by name) ran
// alone at the end while the other worker idled. Longest first, the last
// jobs to start are short ones (the LPT rule). The sizes are
// tlacheck.GraphSize's, not only the pinned counts: a cfg expected to fail
// pins none, and GMP_locked_timer's 312,020 states are a failing cfg's.
func longestFirst(jobs []tlaJob, sizes []int) []int {
	cost := func(j tlaJob) int {
		n := sizes[j.i]
		if n == 0 {
			n = unknownStates
		}
		if j.tlc {
			n /= tlcShare
		}
		return n
	}
	order := make([]int, len(jobs))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cost(jobs[b]) - cost(jobs[a]) })
	return order
}

// sameStates holds TLC to tla-checker's distinct-state count on every cfg
// both passed, as the test does: a TLC row that passed with another count
// becomes a wrong verdict, said on log too, since the row's own log line,
// written when the run ended, could not know it.
func sameStates(rows []tlaRow, jobs []tlaJob, log io.Writer) {
	checker := map[int]tlaRow{}
	for k, j := range jobs {
		if !j.tlc {
			checker[j.i] = rows[k]
		}
	}
	for k, j := range jobs {
		r, ok := checker[j.i]
		t := rows[k]
		if !j.tlc || !ok || r.err != nil || t.err != nil || r.res.Outcome != tlacheck.Pass || t.res.Outcome != tlacheck.Pass {
			continue
		}
		if r.res.States != t.res.States {
			rows[k].verdict = tlacheck.Wrong
			rows[k].why = fmt.Sprintf("distinct states differ: %s %d, TLC %d", r.res.Tool, r.res.States, t.res.States)
			fmt.Fprintf(log, "tla: %s: TLC: WRONG after all: %s\n", t.cfg.Name, rows[k].why)
		}
	}
}

func toolName(tlc bool, c tlacheck.Cfg) string {
	switch {
	case tlc:
		return "TLC"
	case c.Temporal():
		return tlacheck.ToolGoLiveness
	}
	return "tla-checker"
}

// printTLAReport prints the table and returns the overall verdict: an
// error or a wrong verdict fails; a cut-short run is inconclusive. Every
// cfg has a row per checker that ran it; none is left out.
//
// The counterexamples of failing rows are printed step by step with their
// actions' names (tlacheck.LabelTrace, which runs tla-checker once more for
// the state graph) when ctx and dir are given.
func printTLAReport(ctx context.Context, dir string, w io.Writer, rows []tlaRow, traces bool) verdict {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CFG\tCHECKER\tEXPECTED\tRESULT\tSTATES\tTIME\tVERDICT")
	overall := pass
	var failures []tlaRow
	for _, r := range rows {
		result, states, took, v := "", "", "", ""
		switch {
		case r.err != nil:
			result, v = "error", "FAIL"
			overall = worst(overall, fail)
			failures = append(failures, r)
		default:
			result = string(r.res.Outcome)
			if r.res.Name != "" && r.res.Outcome != tlacheck.Deadlock {
				result += " " + r.res.Name
			}
			if r.res.Tool == tlacheck.ToolGoLiveness && r.res.Outcome == tlacheck.Pass {
				result += " (liveness by the Go explorer on the identical graph)"
			}
			states = fmt.Sprint(r.res.States)
			took = r.res.Elapsed.Round(10 * time.Millisecond).String()
			switch r.verdict {
			case tlacheck.OK:
				v = "ok"
			case tlacheck.Inconclusive:
				v = "INCONCLUSIVE"
				overall = worst(overall, inconclusive)
			default:
				v = "FAIL"
				overall = worst(overall, fail)
				failures = append(failures, r)
			}
			if traces && r.res.Outcome != tlacheck.Pass && r.verdict == tlacheck.OK {
				failures = append(failures, r)
			}
		}
		expected := r.cfg.Expect
		if expected != "pass" {
			expected = "fails: " + expected
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.cfg.Name, r.res.Tool, expected, result, states, took, v)
	}
	tw.Flush()
	for _, r := range failures {
		fmt.Fprintf(w, "\n== %s (%s)\n", r.cfg.Name, r.res.Tool)
		if r.err != nil {
			fmt.Fprintln(w, r.err)
			continue
		}
		fmt.Fprintf(w, "%s\n%s\n", r.why, r.res.Message)
		trace := r.res.Trace
		if dir != "" && trace != "" && ctx.Err() == nil {
			lctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			labelled, err := tlacheck.LabelTrace(lctx, dir, r.cfg, trace)
			cancel()
			if err == nil {
				trace = labelled
			} else {
				trace += fmt.Sprintf("\n(the steps could not be named: %v)", err)
			}
		}
		fmt.Fprintln(w, trace)
	}
	return overall
}

// tlaStage is the verify stage: every cfg with tla-checker (TLC too when
// TLA2TOOLS_JAR is set), two at a time, within five minutes and the
// verify budget. Its self-test is the seeded-bug cfgs (_bug_), each of
// which every checker must reject with the property it names.
func tlaStage(ctx context.Context, log io.Writer) stageResult {
	dir, all, err := loadTLACfgs("", nil)
	if err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	// The long cfgs take tla-checker minutes: the test command checks their
	// bounds with the explorer (and TLC, when present), and verify -long's
	// tla-long stage and 'gmpcheck tla -run' run tla-checker on them.
	var cfgs []tlacheck.Cfg
	var long []string
	for _, c := range all {
		if tlacheck.LongCfgs[c.Name] {
			long = append(long, c.Name)
			continue
		}
		cfgs = append(cfgs, c)
	}
	if len(long) > 0 {
		fmt.Fprintf(log, "left to 'gmpcheck tla -run' and the long test tier: %s\n", strings.Join(long, ", "))
	}
	if err := tlacheck.EnsureInstalled(ctx, dir, log); err != nil {
		fmt.Fprintln(log, err)
		return stageResult{verdict: inconclusive, summary: "TLA+ tools not installed and 'npm ci' could not install them"}
	}
	// About 70 s on an idle machine; 174 s was measured at load average 7
	// on 2 cores, hence the margin. Cut short, the stage is inconclusive.
	sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	sv, syntax := checkTLASyntax(sctx, dir, cfgs)
	fmt.Fprintln(log, syntax)
	jar := os.Getenv("TLA2TOOLS_JAR")
	rows := checkTLACfgs(sctx, dir, cfgs, jar, 2*time.Minute, 2, log)
	v := worst(sv, printTLAReport(ctx, "", io.Discard, rows, false))
	t := tallyTLARows(rows)
	syn := "syntax ok"
	if sv != pass {
		syn = "syntax " + sv.String()
	}
	checkers := "tla-checker + Go liveness"
	if jar != "" {
		checkers += fmt.Sprintf(" + TLC (%d runs)", t.tlcRuns)
	} else {
		checkers += ", no TLC"
	}
	summary := fmt.Sprintf("%d cfgs, %d/%d runs as expected (%s); %s", len(cfgs), t.ok, len(rows), checkers, syn)
	if len(long) > 0 {
		summary += fmt.Sprintf("; %d long cfg(s) left to 'tla -run'", len(long))
	}
	if ctx.Err() != nil && v == pass {
		v = inconclusive
	}
	return stageResult{verdict: v, summary: summary, seeded: t.seeded, caught: t.caught}
}

// tlaTally counts a stage's checker runs: those that went as their cfg
// expects, those by TLC, the seeded-bug cfgs and those of them that every
// checker rejected as expected.
type tlaTally struct{ ok, tlcRuns, seeded, caught int }

func tallyTLARows(rows []tlaRow) tlaTally {
	var t tlaTally
	caught := map[string]bool{} // seeded-bug cfg → every run rejected it as expected
	for _, r := range rows {
		good := r.err == nil && r.verdict == tlacheck.OK
		if good {
			t.ok++
		}
		if r.res.Tool == "TLC" {
			t.tlcRuns++
		}
		if !r.cfg.ExpectPass() {
			c, seen := caught[r.cfg.Name]
			caught[r.cfg.Name] = good && (c || !seen)
		}
	}
	t.seeded = len(caught)
	for _, c := range caught {
		if c {
			t.caught++
		}
	}
	return t
}

// checkTLASyntax parses every module with the community TLA+ grammar
// (tree-sitter-tlaplus) and resolves its names as SANY would, and checks
// each cfg against its module's constants and definitions: the check,
// without TLC, that the modules use no syntax only tla-checker accepts and
// that TLC would load them. A missing parser is inconclusive.
func checkTLASyntax(ctx context.Context, dir string, cfgs []tlacheck.Cfg) (verdict, string) {
	files, err := tlacheck.FindModules(dir)
	if err != nil {
		return fail, "syntax: " + err.Error()
	}
	res, err := tlacheck.ParseModules(ctx, dir, files)
	switch {
	case errors.Is(err, tlacheck.ErrParserNotInstalled):
		return inconclusive, "syntax: not checked: " + err.Error()
	case ctx.Err() != nil:
		return inconclusive, "syntax: not checked: time limit reached"
	case err != nil:
		return fail, "syntax: " + err.Error()
	}
	v, okNames, details := pass, []string{}, []string{}
	modules := map[string]tlacheck.SyntaxResult{}
	for _, r := range res {
		modules[strings.TrimSuffix(filepath.Base(r.File), ".tla")] = r
		if r.OK {
			okNames = append(okNames, filepath.Base(r.File))
			continue
		}
		v = fail
		details = append(details, r.String())
	}
	cfgOK := 0
	for _, c := range cfgs {
		m, ok := modules[c.Module]
		if !ok {
			v = fail
			details = append(details, fmt.Sprintf("%s: module %s not parsed", c.Name, c.Module))
			continue
		}
		problems := tlacheck.CfgProblems(c, m)
		if len(problems) == 0 {
			cfgOK++
			continue
		}
		v = fail
		details = append(details, problems...)
	}
	line := fmt.Sprintf("syntax and names (tree-sitter-tlaplus): %d/%d modules clean", len(okNames), len(res))
	if len(okNames) > 0 {
		line += " (" + strings.Join(okNames, ", ") + ")"
	}
	line += fmt.Sprintf("; %d/%d cfgs match their module", cfgOK, len(cfgs))
	if len(details) > 0 {
		line += "\n" + strings.Join(details, "\n")
	}
	return v, line
}
