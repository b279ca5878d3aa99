package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/internal/hooksbin"
	"github.com/gmpcheck/gmpcheck/internal/interleave"
	"github.com/gmpcheck/gmpcheck/internal/viz"
)

// interleave: the real run-queue code under every interleaving of its
// atomic steps (internal/interleave).
//
// The yield points it needs exist only in a binary built with
// -tags gmpcheck_hooks, and `go install`/`go run` make the default build.
// So a binary without them builds the instrumented one (package hooksbin)
// and runs the same command line with it, passing its output and exit
// status through. Where it cannot, it says which command to run and exits
// inconclusive: it never reports a pass it did not check.

func init() {
	registerCommand(command{
		name:    "interleave",
		summary: "explore every interleaving of the real run-queue code's atomic steps (needs the instrumented build; re-runs itself with it)",
		run:     runInterleave,
	})
	registerStage(stage{name: "interleave", order: 50, run: interleaveStage})
}

type interleaveFlags struct {
	run        string
	bound      int
	windows    bool
	bug        string
	replay     string
	maxExecs   int
	reduction  string
	loom       bool
	list       bool
	stage      bool
	noReexec   bool
	quiet      bool
	html       string
	actualArgs []string
}

func runInterleave(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("interleave", "[-run regexp] [-preemption-bound n] [-windows] [-bug name] [-replay schedule] [flags]",
		`Runs the real run-queue code (impl/) one atomic step at a time under every
schedule of its actors (DPOR with sleep sets), checking conservation,
linearizability against spec/ and linearize's model after each. A failure prints
the schedule step by step and the -replay command that runs it again.
With -bug the seeded bug must be found: exit 0 when it is, 1 when it is not.

Needs the instrumented build; a binary built without -tags gmpcheck_hooks builds
it (go build -tags gmpcheck_hooks ./cmd/gmpcheck, from a checkout or the module
cache) and re-runs.`)
	var f interleaveFlags
	fs.StringVar(&f.run, "run", "", "only the scenarios whose name matches this regular expression (-list shows them; -replay needs exactly one)")
	scenario := fs.String("scenario", "", "deprecated: -run ^name$")
	fs.IntVar(&f.bound, "preemption-bound", -1, "at most this many preemptions per schedule (plain enumeration); -1: none (DPOR, exhaustive)")
	fs.BoolVar(&f.windows, "windows", false, "also explore every order of the calls' first and last steps, so linearizability is checked under every real-time order (10-100x more schedules)")
	fs.StringVar(&f.bug, "bug", "", "run with a seeded queue bug, which must be found (exit 0 found, 1 missed): "+interleaveBugNames())
	fs.StringVar(&f.replay, "replay", "", "run one schedule (a string of actor digits, as a failure prints) of the -run scenario and print it step by step")
	fs.StringVar(&f.reduction, "reduction", "dpor", "how schedules are pruned: dpor (DPOR with sleep sets) or state (sleep sets over the graph of states, each state explored once; counts the Mazurkiewicz traces; not with -windows or -preemption-bound)")
	fs.BoolVar(&f.loom, "loom", false, "also select tokio's loom queue tests as written (loom-basic takes minutes: use -reduction state)")
	fs.IntVar(&f.maxExecs, "max-executions", 0, "stop each scenario after this many schedules (0: no limit; a search cut short is inconclusive)")
	fs.addTimeout(10*time.Minute, "time limit")
	fs.BoolVar(&f.list, "list", false, "list the scenarios and the seeded bug each one must find")
	fs.BoolVar(&f.stage, "stage", false, "run what 'gmpcheck verify' runs (every scenario, then every seeded bug)")
	fs.BoolVar(&f.noReexec, "no-reexec", false, "do not build and re-run the instrumented binary when this one lacks the yield points")
	fs.BoolVar(&f.quiet, "q", false, "no progress lines")
	fs.StringVar(&f.html, "html", "", "on a violation, write the counterexample (a lane per actor, a column per atomic step) as a self-contained HTML page to this file (docs/pictures.md)")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.set("scenario") {
		if fs.set("run") {
			return usageError(stderr, "interleave", "-scenario is the old name of -run: give one")
		}
		fmt.Fprintf(stderr, "interleave: -scenario is deprecated: use -run '^%s$'\n", regexp.QuoteMeta(*scenario))
		if *scenario != "all" {
			f.run = "^" + regexp.QuoteMeta(*scenario) + "$"
		}
	}
	f.actualArgs = args
	for _, c := range [][2]string{
		{"list", "run"}, {"list", "bug"}, {"list", "replay"}, {"list", "stage"}, {"list", "windows"},
		{"list", "html"}, {"stage", "html"}, {"stage", "run"}, {"stage", "bug"}, {"stage", "replay"}, {"stage", "windows"}, {"stage", "preemption-bound"}, {"stage", "max-executions"},
		{"replay", "windows"}, {"replay", "preemption-bound"}, {"replay", "max-executions"},
		{"stage", "reduction"}, {"stage", "loom"}, {"replay", "reduction"}, {"list", "reduction"},
	} {
		if fs.set(c[0]) && fs.set(c[1]) {
			return usageError(stderr, "interleave", "-%s and -%s do not go together", c[0], c[1])
		}
	}
	out := newOutput(fs, stdout, stderr)
	childStdout := stdout // a re-run child writes its own rows (and -json) here
	stdout = out.human
	if f.list {
		listScenarios(stdout)
		return exitPass
	}
	re, err := compileRun(f.run)
	if err != nil {
		return usageError(stderr, "interleave", "%v", err)
	}
	scs := selectScenarios(re, f.loom)
	if len(scs) == 0 {
		return usageError(stderr, "interleave", "-run %q matches no scenario (gmpcheck interleave -list shows them)", f.run)
	}
	bug, err := impl.ParseBug(f.bug)
	if err != nil {
		return usageError(stderr, "interleave", "-bug: %v", err)
	}
	var schedule interleave.Schedule
	if f.replay != "" {
		if len(scs) != 1 {
			return usageError(stderr, "interleave", "-replay needs -run to select exactly one scenario (it selects %d)", len(scs))
		}
		if schedule, err = interleave.ParseSchedule(f.replay); err != nil {
			return usageError(stderr, "interleave", "-replay: %v", err)
		}
	}
	reduction, err := interleave.ParseReduction(f.reduction)
	if err != nil || reduction == interleave.NoReduction {
		return usageError(stderr, "interleave", "-reduction %q: want dpor or state", f.reduction)
	}
	if reduction == interleave.StateCache && (f.windows || f.bound >= 0) {
		return usageError(stderr, "interleave", "-reduction state goes with neither -windows nor -preemption-bound")
	}
	if f.bound < -1 {
		return usageError(stderr, "interleave", "-preemption-bound %d: want -1 (none) or >= 0", f.bound)
	}
	if f.maxExecs < 0 {
		return usageError(stderr, "interleave", "-max-executions %d: want 0 (no limit) or more", f.maxExecs)
	}
	if !impl.HooksEnabled() {
		if f.noReexec {
			fmt.Fprintf(stderr, "interleave: this binary was built without -tags gmpcheck_hooks, so the run queues have no yield points to control; run: %s\n", hookedCommandLine(f.actualArgs))
			return out.result(inconclusive, "not run: no yield points in this build", nil)
		}
		// The child prints its own rows (with -json, too).
		return runHooked(ctx, "interleave", f.actualArgs, childStdout, stderr)
	}
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	if f.stage {
		res := interleaveInProcess(ctx, stdout)
		fmt.Fprintln(stdout, stageLine(res))
		return res.verdict.exitCode()
	}
	if err := impl.SetSeededBug(bug); err != nil {
		return usageError(stderr, "interleave", "%v", err)
	}
	defer impl.SetSeededBug(impl.NoBug)
	if bug != impl.NoBug {
		fmt.Fprintf(stdout, "interleave: seeded bug %s is active: a violation is the expected outcome\n", bug)
	}
	if schedule != nil {
		code := replayOne(&scs[0], schedule, stdout, f.html)
		if code == exitUsage {
			return code
		}
		return out.result(verdictOf(code), "replay of "+f.replay, map[string]any{"scenario": scs[0].Name})
	}
	opt := interleave.Options{Reduction: reduction, PreemptionBound: f.bound, WindowOrders: f.windows, MaxExecutions: f.maxExecs}
	if !f.quiet {
		opt.Progress = stdout
	}
	overall := pass
	total := 0
	wroteHTML := false
	for i := range scs {
		r, err := interleave.Explore(ctx, &scs[i], opt)
		if err != nil {
			fmt.Fprintf(stderr, "interleave: %v\n", err)
			return out.result(fail, err.Error(), nil)
		}
		if r.Reduction == interleave.StateCache {
			total += r.Runs
		} else {
			total += r.Executions
		}
		fmt.Fprintf(stdout, "%v\n", r)
		rv := pass
		switch {
		case r.Violation != nil:
			fmt.Fprint(stdout, r.Violation.Report())
			rv = fail
			if f.html != "" && !wroteHTML {
				if err := writeInterleaveHTML(f.html, r.Violation, stdout); err != nil {
					fmt.Fprintf(stderr, "interleave: -html: %v\n", err)
					return out.result(fail, err.Error(), nil)
				}
				wroteHTML = true
			}
		case !r.Complete:
			rv = inconclusive
		}
		row := map[string]any{"scenario": r.Scenario, "verdict": rv.String(), "executions": r.Executions, "complete": r.Complete}
		if r.Violation != nil {
			row["violation"] = string(r.Violation.Kind)
		}
		if r.Reduction == interleave.StateCache {
			row["runs"], row["states"], row["sleep_blocked"] = r.Runs, r.States, r.SleepBlocked
			if r.Complete {
				row["traces"] = r.Traces
			}
		}
		out.row("scenario", row)
		overall = worst(overall, rv)
		if r.Violation != nil && bug != impl.NoBug {
			break // the seeded bug was found; that is all -bug asks
		}
		if ctx.Err() != nil {
			break
		}
	}
	if why := interrupted(ctx); why != "" {
		fmt.Fprintf(stdout, "interleave: stopped early (%s)\n", why)
	}
	if bug != impl.NoBug {
		return reportSeeded(out, "interleave", string(bug), overall, fmt.Sprintf("%d interleavings", total))
	}
	fmt.Fprintf(stdout, "interleave: %d scenarios, %d interleavings: %v\n", len(scs), total, overall)
	return out.result(overall, fmt.Sprintf("%d scenarios, %d interleavings", len(scs), total), map[string]any{"executions": total})
}

// selectScenarios is every scenario whose name re matches (all for nil),
// with loom: of the loom tests too.
func selectScenarios(re *regexp.Regexp, loom bool) []interleave.Scenario {
	var out []interleave.Scenario
	all := interleave.Scenarios()
	if loom {
		all = append(all, interleave.LoomScenarios()...)
	}
	for _, sc := range all {
		if re == nil || re.MatchString(sc.Name) {
			out = append(out, sc)
		}
	}
	return out
}

func verdictOf(code int) verdict {
	switch code {
	case exitPass:
		return pass
	case exitFail:
		return fail
	}
	return inconclusive
}

// reportSeeded turns a check's verdict with a seeded bug switched on into
// the command's: the check failing is the bug caught (exit 0), the check
// passing is the bug missed (exit 1), and a cut-short check is neither.
func reportSeeded(out *output, cmd, bug string, checked verdict, detail string) int {
	fields := map[string]any{"bug": bug, "check_verdict": checked.String()}
	switch checked {
	case fail:
		fmt.Fprintf(out.human, "%s: seeded bug %s CAUGHT (%s): PASS\n", cmd, bug, detail)
		fields["caught"] = true
		return out.result(pass, "seeded bug "+bug+" caught", fields)
	case inconclusive:
		fmt.Fprintf(out.human, "%s: seeded bug %s not caught before the check was cut short (%s): INCONCLUSIVE\n", cmd, bug, detail)
		return out.result(inconclusive, "seeded bug "+bug+": cut short", fields)
	}
	fmt.Fprintf(out.human, "%s: seeded bug %s MISSED (%s): FAIL\n", cmd, bug, detail)
	fields["caught"] = false
	return out.result(fail, "seeded bug "+bug+" missed", fields)
}

func interleaveBugNames() string {
	var names []string
	for _, b := range impl.Bugs {
		names = append(names, string(b))
	}
	return strings.Join(names, ", ")
}

func listScenarios(w io.Writer) {
	found := map[string][]string{}
	for b, sc := range interleave.BugScenarios {
		found[sc] = append(found[sc], string(b))
	}
	for _, sc := range interleave.Scenarios() {
		fmt.Fprintf(w, "%-20s %s\n", sc.Name, sc.Doc)
		fmt.Fprintf(w, "%-20s %v\n", "", &sc)
		if bugs := found[sc.Name]; len(bugs) > 0 {
			fmt.Fprintf(w, "%-20s finds seeded bugs: %s\n", "", strings.Join(bugs, ", "))
		}
	}
}

func replayOne(sc *interleave.Scenario, s interleave.Schedule, w io.Writer, html string) int {
	ex, v, err := interleave.Replay(sc, s, interleave.RunOptions{})
	if err != nil {
		fmt.Fprintf(w, "interleave: %v\n", err)
		return exitUsage
	}
	if v != nil {
		fmt.Fprint(w, v.Report())
		if html != "" {
			if err := writeInterleaveHTML(html, v, w); err != nil {
				fmt.Fprintf(w, "interleave: -html: %v\n", err)
			}
		}
		return exitFail
	}
	interleave.WriteTrace(w, ex)
	if ex.Cut {
		fmt.Fprintln(w, "INCONCLUSIVE: the execution was cut at its step limit")
		return exitInconclusive
	}
	fmt.Fprintln(w, "PASS: conservation, linearizability and linearize's model hold for this schedule")
	return exitPass
}

// interleaveInProcess is the verify stage's check, in a binary with hooks:
// every scenario exhaustively (DPOR), then every seeded bug in its scenario.
func interleaveInProcess(ctx context.Context, log io.Writer) stageResult {
	defer impl.SetSeededBug(impl.NoBug)
	if err := impl.SetSeededBug(impl.NoBug); err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	total := 0
	start := time.Now()
	scs := interleave.Scenarios()
	for i := range scs {
		r, err := interleave.Explore(ctx, &scs[i], interleave.DefaultOptions())
		if err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		fmt.Fprintf(log, "%v\n", r)
		total += r.Executions
		if r.Violation != nil {
			fmt.Fprint(log, r.Violation.Report())
			return stageResult{verdict: fail, summary: fmt.Sprintf("%s: %v", r.Scenario, r.Violation)}
		}
		if !r.Complete {
			return stageResult{verdict: inconclusive, summary: fmt.Sprintf("%s: %s", r.Scenario, r.StopReason)}
		}
	}
	// The stricter mode, every real-time order of the calls' windows, where
	// it stays within the stage's budget (some scenarios have millions).
	windowed, windowedScs := 0, 0
	for i := range scs {
		if interleave.WindowOrdersTooBig[scs[i].Name] {
			continue
		}
		windowedScs++
		r, err := interleave.Explore(ctx, &scs[i], interleave.Options{Reduction: interleave.DPOR, PreemptionBound: -1, WindowOrders: true})
		if err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		fmt.Fprintf(log, "%v\n", r)
		windowed += r.Executions
		if r.Violation != nil {
			fmt.Fprint(log, r.Violation.Report())
			return stageResult{verdict: fail, summary: fmt.Sprintf("%s (windows): %v", r.Scenario, r.Violation)}
		}
		if !r.Complete {
			return stageResult{verdict: inconclusive, summary: fmt.Sprintf("%s (windows): %s", r.Scenario, r.StopReason)}
		}
	}
	found := 0
	for _, bug := range impl.Bugs {
		sc, err := interleave.Lookup(interleave.BugScenarios[bug])
		if err != nil {
			return stageResult{verdict: fail, summary: fmt.Sprintf("seeded bug %s: %v", bug, err)}
		}
		if err := impl.SetSeededBug(bug); err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		r, err := interleave.Explore(ctx, &sc, interleave.DefaultOptions())
		if err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		switch {
		case r.Violation != nil:
			found++
			fmt.Fprintf(log, "seeded bug %-22s found in %s after %d interleavings: %s\n", bug, sc.Name, r.Executions, r.Violation.Kind)
		case !r.Complete:
			return stageResult{verdict: inconclusive, summary: fmt.Sprintf("seeded bug %s: %s", bug, r.StopReason)}
		default:
			fmt.Fprintf(log, "seeded bug %s NOT found in %s (%d interleavings)\n", bug, sc.Name, r.Executions)
			return stageResult{verdict: fail, summary: "seeded bug " + string(bug) + " not found"}
		}
	}
	return stageResult{verdict: pass, seeded: len(impl.Bugs), caught: found,
		summary: fmt.Sprintf("%d scenarios, %d interleavings (DPOR, exhaustive) + %d with every window order (%d scenarios) in %v; %d/%d seeded bugs found",
			len(scs), total, windowed, windowedScs, time.Since(start).Round(time.Millisecond), found, len(impl.Bugs))}
}

func interleaveStage(ctx context.Context, log io.Writer) stageResult {
	if impl.HooksEnabled() {
		return interleaveInProcess(ctx, log)
	}
	fmt.Fprintln(log, "this binary has no yield points; the stage runs in the instrumented build")
	return hookedStage(ctx, log, "interleave")
}

// writeInterleaveHTML draws v's execution (internal/viz) into path.
func writeInterleaveHTML(path string, v *interleave.Violation, w io.Writer) error {
	title := fmt.Sprintf("gmpcheck interleave: %s in %s", v.Kind, v.Exec.Scenario.Name)
	if bug := impl.ActiveBug(); bug != impl.NoBug {
		title += " (seeded bug " + string(bug) + ")"
	}
	if err := viz.WriteInterleaveFile(path, viz.InterleavePage{Title: title, Violation: v, Replay: interleave.ReplayCommand(v.Exec)}); err != nil {
		return err
	}
	fmt.Fprintf(w, "counterexample picture: %s\n", path)
	return nil
}

func hookedCommandLine(args []string) string {
	return hooksbin.CommandLine(append([]string{"interleave"}, args...))
}
