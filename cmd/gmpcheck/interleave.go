package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/internal/interleave"
)

// interleave: the real run-queue code under every interleaving of its
// atomic steps (internal/interleave).
//
// The yield points it needs exist only in a binary built with
// -tags gmpcheck_hooks, and `go run ./cmd/gmpcheck` is the default build.
// So a binary without them builds the instrumented one from the module's
// source tree (found from the working directory upwards) with
// `go build -tags gmpcheck_hooks` into a temporary directory and runs the
// same command line with it, passing its output and exit status through.
// (Not `go run`: it turns every non-zero exit status into 1, which would
// make an inconclusive search look like a violation.) Where there is no
// source tree, no go command, or the build fails, it says which command to
// run and exits inconclusive: it never reports a pass it did not check.

const reexecEnv = "GMPCHECK_INTERLEAVE_REEXEC"

func init() {
	registerCommand(command{
		name:    "interleave",
		summary: "explore every interleaving of the real run-queue code's atomic steps (needs the instrumented build; re-runs itself with it)",
		run:     runInterleave,
	})
	registerStage(stage{name: "interleave", order: 50, run: interleaveStage})
}

type interleaveFlags struct {
	scenario   string
	bound      int
	windows    bool
	bug        string
	replay     string
	maxExecs   int
	timeout    time.Duration
	list       bool
	stage      bool
	noReexec   bool
	quiet      bool
	actualArgs []string
}

func runInterleave(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("interleave", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f interleaveFlags
	fs.StringVar(&f.scenario, "scenario", "all", "scenario to explore, or all (-list shows them)")
	fs.IntVar(&f.bound, "preemption-bound", -1, "at most this many preemptions per schedule (plain enumeration); -1: none (DPOR, exhaustive)")
	fs.BoolVar(&f.windows, "windows", false, "also explore every order of the calls' first and last steps, so linearizability is checked under every real-time order (10-100x more schedules)")
	fs.StringVar(&f.bug, "bug", "", "run with a seeded queue bug, which must be found: "+interleaveBugNames())
	fs.StringVar(&f.replay, "replay", "", "run one schedule (a string of actor digits, as a failure prints) of -scenario and print it step by step")
	fs.IntVar(&f.maxExecs, "max-executions", 0, "stop each scenario after this many schedules (0: no limit; a search cut short is inconclusive)")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "time limit (a search cut short is inconclusive)")
	fs.BoolVar(&f.list, "list", false, "list the scenarios and the seeded bug each one must find")
	fs.BoolVar(&f.stage, "stage", false, "run what 'gmpcheck verify' runs (every scenario, then every seeded bug)")
	fs.BoolVar(&f.noReexec, "no-reexec", false, "do not re-run under 'go run -tags gmpcheck_hooks' when this binary lacks the yield points")
	fs.BoolVar(&f.quiet, "q", false, "no progress lines")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gmpcheck interleave [-scenario name|all] [-preemption-bound n] [-windows] [-bug name] [-replay schedule] [flags]")
		fmt.Fprintln(stderr, "\nRuns the real run-queue code (impl/) one atomic step at a time under every")
		fmt.Fprintln(stderr, "schedule of its actors (DPOR with sleep sets), checking conservation,")
		fmt.Fprintln(stderr, "linearizability against spec/ and linearize's model after each. A failure prints")
		fmt.Fprintln(stderr, "the schedule step by step and the -replay command that runs it again.")
		fmt.Fprintln(stderr, "\nNeeds the instrumented build; a binary built without -tags gmpcheck_hooks builds")
		fmt.Fprintln(stderr, "it (go build -tags gmpcheck_hooks ./cmd/gmpcheck, from the source tree) and re-runs.")
		fmt.Fprintln(stderr, "Exit: 0 pass, 1 violation (or a seeded bug not found), 2 usage, 3 inconclusive.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	f.actualArgs = args
	if f.list {
		listScenarios(stdout)
		return exitPass
	}
	var scs []interleave.Scenario
	if f.scenario == "all" {
		scs = interleave.Scenarios()
	} else {
		sc, err := interleave.Lookup(f.scenario)
		if err != nil {
			fmt.Fprintf(stderr, "interleave: %v\n", err)
			return exitUsage
		}
		scs = []interleave.Scenario{sc}
	}
	bug, err := impl.ParseBug(f.bug)
	if err != nil {
		fmt.Fprintf(stderr, "interleave: -bug: %v\n", err)
		return exitUsage
	}
	var schedule interleave.Schedule
	if f.replay != "" {
		if len(scs) != 1 {
			fmt.Fprintln(stderr, "interleave: -replay needs one -scenario")
			return exitUsage
		}
		if schedule, err = interleave.ParseSchedule(f.replay); err != nil {
			fmt.Fprintf(stderr, "interleave: -replay: %v\n", err)
			return exitUsage
		}
	}
	if f.bound < -1 || f.maxExecs < 0 {
		fmt.Fprintln(stderr, "interleave: -preemption-bound must be >= -1 and -max-executions >= 0")
		return exitUsage
	}
	if !impl.HooksEnabled() {
		return reexecHooked(f, stdout, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	if f.stage {
		res := interleaveInProcess(ctx, stdout)
		fmt.Fprintf(stdout, "%s%s\n", stageSummaryPrefix, res.summary)
		return res.verdict.exitCode()
	}
	if err := impl.SetSeededBug(bug); err != nil {
		fmt.Fprintf(stderr, "interleave: %v\n", err)
		return exitUsage
	}
	defer impl.SetSeededBug(impl.NoBug)
	if bug != impl.NoBug {
		fmt.Fprintf(stdout, "interleave: seeded bug %s is active: a violation is the expected outcome\n", bug)
	}
	if schedule != nil {
		return replayOne(&scs[0], schedule, stdout)
	}
	opt := interleave.Options{Reduction: interleave.DPOR, PreemptionBound: f.bound, WindowOrders: f.windows, MaxExecutions: f.maxExecs}
	if !f.quiet {
		opt.Progress = stdout
	}
	overall := pass
	total := 0
	for i := range scs {
		r, err := interleave.Explore(ctx, &scs[i], opt)
		if err != nil {
			fmt.Fprintf(stderr, "interleave: %v\n", err)
			return exitFail
		}
		total += r.Executions
		fmt.Fprintf(stdout, "%v\n", r)
		switch {
		case r.Violation != nil:
			fmt.Fprint(stdout, r.Violation.Report())
			overall = fail
		case !r.Complete:
			overall = worst(overall, inconclusive)
		}
		if r.Violation != nil && bug != impl.NoBug {
			break // the seeded bug was found; that is all -bug asks
		}
	}
	if bug != impl.NoBug {
		// With a seeded bug the check must fail: finding it is a pass of
		// the check, missing it a failure.
		switch overall {
		case fail:
			fmt.Fprintf(stdout, "interleave: seeded bug %s FOUND (%d interleavings)\n", bug, total)
			return exitPass
		case inconclusive:
			fmt.Fprintf(stdout, "interleave: seeded bug %s not found before the search was cut short: INCONCLUSIVE\n", bug)
			return exitInconclusive
		}
		fmt.Fprintf(stdout, "interleave: seeded bug %s NOT FOUND in %d interleavings: FAIL\n", bug, total)
		return exitFail
	}
	fmt.Fprintf(stdout, "interleave: %d scenarios, %d interleavings: %v\n", len(scs), total, overall)
	return overall.exitCode()
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

func replayOne(sc *interleave.Scenario, s interleave.Schedule, w io.Writer) int {
	ex, v, err := interleave.Replay(sc, s, interleave.RunOptions{})
	if err != nil {
		fmt.Fprintf(w, "interleave: %v\n", err)
		return exitUsage
	}
	if v != nil {
		fmt.Fprint(w, v.Report())
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

// stageSummaryPrefix marks the line that carries a re-executed stage's
// summary back to the parent.
const stageSummaryPrefix = "interleave-stage: "

// interleaveInProcess is the verify stage's check, in a binary with hooks:
// every scenario exhaustively (DPOR), then every seeded bug in its scenario.
func interleaveInProcess(ctx context.Context, log io.Writer) stageResult {
	defer impl.SetSeededBug(impl.NoBug)
	if err := impl.SetSeededBug(impl.NoBug); err != nil {
		return stageResult{fail, err.Error()}
	}
	total := 0
	start := time.Now()
	scs := interleave.Scenarios()
	for i := range scs {
		r, err := interleave.Explore(ctx, &scs[i], interleave.DefaultOptions())
		if err != nil {
			return stageResult{fail, err.Error()}
		}
		fmt.Fprintf(log, "%v\n", r)
		total += r.Executions
		if r.Violation != nil {
			fmt.Fprint(log, r.Violation.Report())
			return stageResult{fail, fmt.Sprintf("%s: %v", r.Scenario, r.Violation)}
		}
		if !r.Complete {
			return stageResult{inconclusive, fmt.Sprintf("%s: %s", r.Scenario, r.StopReason)}
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
			return stageResult{fail, err.Error()}
		}
		fmt.Fprintf(log, "%v\n", r)
		windowed += r.Executions
		if r.Violation != nil {
			fmt.Fprint(log, r.Violation.Report())
			return stageResult{fail, fmt.Sprintf("%s (windows): %v", r.Scenario, r.Violation)}
		}
		if !r.Complete {
			return stageResult{inconclusive, fmt.Sprintf("%s (windows): %s", r.Scenario, r.StopReason)}
		}
	}
	found := 0
	for _, bug := range impl.Bugs {
		sc, err := interleave.Lookup(interleave.BugScenarios[bug])
		if err != nil {
			return stageResult{fail, fmt.Sprintf("seeded bug %s: %v", bug, err)}
		}
		if err := impl.SetSeededBug(bug); err != nil {
			return stageResult{fail, err.Error()}
		}
		r, err := interleave.Explore(ctx, &sc, interleave.DefaultOptions())
		if err != nil {
			return stageResult{fail, err.Error()}
		}
		switch {
		case r.Violation != nil:
			found++
			fmt.Fprintf(log, "seeded bug %-22s found in %s after %d interleavings: %s\n", bug, sc.Name, r.Executions, r.Violation.Kind)
		case !r.Complete:
			return stageResult{inconclusive, fmt.Sprintf("seeded bug %s: %s", bug, r.StopReason)}
		default:
			fmt.Fprintf(log, "seeded bug %s NOT found in %s (%d interleavings)\n", bug, sc.Name, r.Executions)
			return stageResult{fail, "seeded bug " + string(bug) + " not found"}
		}
	}
	return stageResult{pass, fmt.Sprintf("%d scenarios, %d interleavings (DPOR, exhaustive) + %d with every window order (%d scenarios) in %v; %d/%d seeded bugs found",
		len(scs), total, windowed, windowedScs, time.Since(start).Round(time.Millisecond), found, len(impl.Bugs))}
}

func interleaveStage(ctx context.Context, log io.Writer) stageResult {
	if impl.HooksEnabled() {
		return interleaveInProcess(ctx, log)
	}
	bin, cleanup, err := buildHooked(ctx, log)
	if err != nil {
		if ctx.Err() != nil {
			return stageResult{inconclusive, "cut short: " + ctx.Err().Error()}
		}
		return stageResult{inconclusive, "not run: " + err.Error()}
	}
	defer cleanup()
	args := []string{"interleave", "-stage", "-q"}
	if d, ok := ctx.Deadline(); ok {
		// Let the child stop itself just before the deadline, so that it
		// reports what it explored (inconclusive) rather than being killed.
		args = append(args, "-timeout", max(time.Until(d)-time.Second, time.Millisecond).String())
	}
	fmt.Fprintf(log, "this binary has no yield points; running the instrumented build: gmpcheck %s\n", strings.Join(args, " "))
	var out strings.Builder
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), reexecEnv+"=1")
	cmd.Stdout = io.MultiWriter(log, &out)
	cmd.Stderr = log
	runErr := cmd.Run()
	summary := ""
	for _, line := range strings.Split(out.String(), "\n") {
		if s, ok := strings.CutPrefix(line, stageSummaryPrefix); ok {
			summary = s
		}
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ee) && ee.ExitCode() >= 0:
		code = ee.ExitCode()
	case ctx.Err() != nil:
		return stageResult{inconclusive, "cut short: " + ctx.Err().Error()}
	default:
		return stageResult{inconclusive, "not run: " + runErr.Error()}
	}
	if summary == "" {
		if ctx.Err() != nil {
			return stageResult{inconclusive, "cut short: " + ctx.Err().Error()}
		}
		return stageResult{inconclusive, fmt.Sprintf("the instrumented run exited %d without a result", code)}
	}
	switch code {
	case exitPass:
		return stageResult{pass, summary}
	case exitFail:
		return stageResult{fail, summary}
	}
	return stageResult{inconclusive, summary}
}

// hookedRunner finds the module's source tree and the go command, which
// re-running under the instrumented build needs.
func hookedRunner() (root, goCmd string, err error) {
	if os.Getenv(reexecEnv) != "" {
		return "", "", errors.New("already re-executed and still without yield points")
	}
	goCmd, err = exec.LookPath("go")
	if err != nil {
		return "", "", fmt.Errorf("no go command on PATH to build the instrumented binary; run: %s", hookedCommandLine(nil))
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/gmpcheck/gmpcheck\n") {
			return dir, goCmd, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", fmt.Errorf("the gmpcheck source tree is not above the working directory; from it, run: %s", hookedCommandLine(nil))
		}
		dir = parent
	}
}

func hookedCommandLine(args []string) string {
	return strings.TrimSpace("go run -tags gmpcheck_hooks ./cmd/gmpcheck interleave " + strings.Join(args, " "))
}

// buildHooked builds the instrumented command into a temporary directory,
// which cleanup removes. Running that binary rather than `go run` passes its
// exit status through and lets a cancellation stop the checker itself, not
// only the go command. The build's output goes to log.
func buildHooked(ctx context.Context, log io.Writer) (bin string, cleanup func(), err error) {
	root, goCmd, err := hookedRunner()
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "gmpcheck-hooks-")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "gmpcheck")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.CommandContext(ctx, goCmd, "build", "-tags", "gmpcheck_hooks", "-o", bin, "./cmd/gmpcheck")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("building the instrumented binary (go build -tags gmpcheck_hooks ./cmd/gmpcheck in %s): %v; run: %s", root, err, hookedCommandLine(nil))
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// reexecHooked runs the command line again with the instrumented build.
func reexecHooked(f interleaveFlags, stdout, stderr io.Writer) int {
	if f.noReexec {
		fmt.Fprintf(stderr, "interleave: this binary was built without -tags gmpcheck_hooks, so the run queues have no yield points to control; run: %s\n", hookedCommandLine(f.actualArgs))
		return exitInconclusive
	}
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout+2*time.Minute)
	defer cancel()
	fmt.Fprintln(stderr, "interleave: this binary has no yield points; building the instrumented one (go build -tags gmpcheck_hooks) to run the same command")
	bin, cleanup, err := buildHooked(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "interleave: this binary has no yield points, and it cannot re-run itself with them: %v\n", err)
		return exitInconclusive
	}
	defer cleanup()
	cmd := exec.CommandContext(ctx, bin, append([]string{"interleave"}, f.actualArgs...)...)
	cmd.Env = append(os.Environ(), reexecEnv+"=1")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return exitPass
	case errors.As(err, &ee) && ee.ExitCode() >= exitFail && ee.ExitCode() <= exitInconclusive:
		return ee.ExitCode()
	}
	fmt.Fprintf(stderr, "interleave: the instrumented run failed to complete: %v\n", err)
	return exitInconclusive
}
