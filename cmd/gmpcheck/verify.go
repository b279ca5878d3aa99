package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// A verdict is the outcome of one check. Inconclusive is its own verdict: a
// check that ran out of time has not passed.
type verdict int

const (
	pass verdict = iota
	fail
	inconclusive
)

func (v verdict) String() string {
	switch v {
	case pass:
		return "PASS"
	case fail:
		return "FAIL"
	default:
		return "INCONCLUSIVE"
	}
}

// exitCode maps a verdict to the process exit status.
func (v verdict) exitCode() int {
	switch v {
	case pass:
		return exitPass
	case fail:
		return exitFail
	default:
		return exitInconclusive
	}
}

// worst combines verdicts: any failure fails, else any inconclusive check
// makes the whole inconclusive.
func worst(a, b verdict) verdict {
	if a == fail || b == fail {
		return fail
	}
	if a == inconclusive || b == inconclusive {
		return inconclusive
	}
	return pass
}

// A stageResult is what one verify stage reports: its verdict and a one-line
// summary of what it measured (counts, not adjectives). seeded and caught
// count the seeded bugs its self-test ran and the ones the check caught.
type stageResult struct {
	verdict        verdict
	summary        string
	seeded, caught int
	steps          int // queues: model steps run (passed from the model to the stress)
}

// A stage is one check that 'gmpcheck verify' runs. Each stage stays within
// its budget on two cores; the full-strength version of the same check is
// its own command or test. log receives progress lines.
type stage struct {
	name  string
	order int // stages run in increasing order
	run   func(ctx context.Context, log io.Writer) stageResult
	// budget, if positive, is the stage's own time limit (the long tier's
	// stages): past it the stage is cut short and INCONCLUSIVE.
	budget time.Duration
}

var stages []stage

// registerStage is called from init functions, next to the command it
// abbreviates.
func registerStage(s stage) {
	for _, o := range stages {
		if o.name == s.name {
			panic("gmpcheck: stage registered twice: " + s.name)
		}
	}
	stages = append(stages, s)
}

func init() {
	registerCommand(command{
		name:    "verify",
		summary: "run every check at a bounded budget and print a summary table",
		run:     runVerify,
	})
}

// heartbeatEvery is how long a stage may be silent before verify says it
// is still running.
const heartbeatEvery = 2 * time.Second

func runVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var names []string
	for _, s := range sortedStages() {
		names = append(names, s.name)
	}
	fs := newFlags("verify", "[-run regexp] [-timeout d] [-q] [-json] | -long [-run regexp] [-budget d] [-seed n] [-mutants n] [-impl-runs n] [-lifecycles n] [-tlc jar] [-timeout d]",
		"Runs every check gmpcheck has at a bounded budget, each with its seeded-bug\nself-test, and prints a summary table. Stages: "+strings.Join(names, ", ")+".\n\n"+longUsage())
	match := fs.String("run", "", "only the stages whose name matches this regular expression (stages: "+strings.Join(names, ", ")+"; with -long: "+strings.Join(longStageNames(), ", ")+")")
	only := fs.String("only", "", "deprecated: -run 'name|name'")
	fs.addTimeout(15*time.Minute, "overall time limit (with -long the default is none: each long stage has its own budget)")
	quiet := fs.Bool("q", false, "print only the summary table")
	lf := addLongFlags(fs)
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.set("only") {
		if fs.set("run") {
			return usageError(stderr, "verify", "-only is the old name of -run: give one")
		}
		var alts []string
		for _, n := range strings.Split(*only, ",") {
			alts = append(alts, regexp.QuoteMeta(strings.TrimSpace(n)))
		}
		*match = "^(" + strings.Join(alts, "|") + ")$"
		fmt.Fprintf(stderr, "verify: -only is deprecated: use -run '%s'\n", *match)
	}
	re, err := compileRun(*match)
	if err != nil {
		return usageError(stderr, "verify", "%v", err)
	}
	all := sortedStages()
	var lopt longOptions
	if *lf.long {
		if lopt, err = lf.options(fs); err != nil {
			return usageError(stderr, "verify", "%v", err)
		}
		all, names = longStages(lopt), longStageNames()
		if !fs.set("timeout") {
			fs.timeout = 0
		}
	} else if err := lf.rejectWithoutLong(fs); err != nil {
		return usageError(stderr, "verify", "%v", err)
	}
	var selected []stage
	for _, s := range all {
		if re == nil || re.MatchString(s.name) {
			selected = append(selected, s)
		}
	}
	if len(selected) == 0 {
		tier := "stage"
		if *lf.long {
			tier = "long stage"
		}
		return usageError(stderr, "verify", "-run %q matches no %s (stages: %s)", *match, tier, strings.Join(names, ", "))
	}
	out := newOutput(fs, stdout, stderr)
	stdout = out.human

	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	ctx = withHooked(ctx)
	defer cleanupHooked(ctx)
	log := stdout
	if *quiet {
		log = io.Discard
	}
	beat := heartbeatEvery
	if *lf.long {
		beat = longHeartbeatEvery
		lopt.header(log, selected)
	}
	type row struct {
		name string
		res  stageResult
		took time.Duration
	}
	var rows []row
	overall := pass
	seeded, caught := 0, 0
	for i, s := range selected {
		fmt.Fprintf(log, "[%d/%d] %s ...\n", i+1, len(selected), s.name)
		start, cpu0 := time.Now(), cpuTime()
		var res stageResult
		if ctx.Err() != nil {
			res = stageResult{verdict: inconclusive, summary: "not run: " + interrupted(ctx)}
		} else {
			sctx, scancel := withTimeout(ctx, s.budget)
			w, stop := heartbeat(prefixWriter(log, "      "), s.name, beat)
			res = s.run(sctx, w)
			stop()
			if sctx.Err() != nil && res.verdict == pass {
				res.verdict = inconclusive
			}
			if sctx.Err() != nil && ctx.Err() == nil && res.verdict != fail {
				res.summary += fmt.Sprintf(" (budget %s reached)", s.budget)
			}
			scancel()
		}
		took, user := time.Since(start), cpuTime()-cpu0
		fmt.Fprintf(log, "[%d/%d] %s %s (%s; %s user CPU)\n", i+1, len(selected), s.name, res.verdict, took.Round(time.Millisecond), user.Round(10*time.Millisecond))
		rows = append(rows, row{s.name, res, took})
		fields := map[string]any{"stage": s.name, "verdict": res.verdict.String(), "seconds": took.Seconds(), "user_seconds": user.Seconds(),
			"summary": res.summary, "seeded_bugs": res.seeded, "caught_bugs": res.caught}
		if s.budget > 0 {
			fields["budget_seconds"] = s.budget.Seconds()
		}
		out.row("stage", fields)
		overall = worst(overall, res.verdict)
		seeded, caught = seeded+res.seeded, caught+res.caught
	}

	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tVERDICT\tTIME\tSEEDED BUGS\tSUMMARY")
	for _, r := range rows {
		bugs := "-"
		if r.res.seeded > 0 {
			bugs = fmt.Sprintf("%d/%d caught", r.res.caught, r.res.seeded)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.name, r.res.verdict, r.took.Round(time.Millisecond), bugs, r.res.summary)
	}
	tw.Flush()
	if why := interrupted(ctx); why != "" {
		fmt.Fprintf(stdout, "\nverify: stopped early (%s): the stages above are what ran\n", why)
	}
	fmt.Fprintf(stdout, "\nverify: %s\n", overall)
	extra := map[string]any{"seeded_bugs": seeded, "caught_bugs": caught}
	tier := ""
	if *lf.long {
		extra["long"], extra["seed"] = true, lopt.seed
		tier = " (long tier)"
	}
	return out.result(overall, fmt.Sprintf("%d stages%s; %d/%d seeded bugs caught", len(rows), tier, caught, seeded), extra)
}

func sortedStages() []stage {
	out := append([]stage(nil), stages...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].order != out[j].order {
			return out[i].order < out[j].order
		}
		return out[i].name < out[j].name
	})
	return out
}

// prefixWriter indents a stage's progress lines under its header.
func prefixWriter(w io.Writer, prefix string) io.Writer {
	return &prefixed{w: w, prefix: prefix, bol: true}
}

type prefixed struct {
	w      io.Writer
	prefix string
	bol    bool
}

func (p *prefixed) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if p.bol {
			out = append(out, p.prefix...)
			p.bol = false
		}
		out = append(out, c)
		if c == '\n' {
			p.bol = true
		}
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
