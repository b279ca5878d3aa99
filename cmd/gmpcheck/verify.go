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
	fs := newFlags("verify", "[-run regexp] [-timeout d] [-q] [-json]",
		"Runs every check gmpcheck has at a bounded budget, each with its seeded-bug\nself-test, and prints a summary table. Stages: "+strings.Join(names, ", ")+".")
	match := fs.String("run", "", "only the stages whose name matches this regular expression (stages: "+strings.Join(names, ", ")+")")
	only := fs.String("only", "", "deprecated: -run 'name|name'")
	fs.addTimeout(15*time.Minute, "overall time limit")
	quiet := fs.Bool("q", false, "print only the summary table")
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
	var selected []stage
	for _, s := range sortedStages() {
		if re == nil || re.MatchString(s.name) {
			selected = append(selected, s)
		}
	}
	if len(selected) == 0 {
		return usageError(stderr, "verify", "-run %q matches no stage (stages: %s)", *match, strings.Join(names, ", "))
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
		start := time.Now()
		var res stageResult
		if ctx.Err() != nil {
			res = stageResult{verdict: inconclusive, summary: "not run: " + interrupted(ctx)}
		} else {
			w, stop := heartbeat(prefixWriter(log, "      "), s.name, heartbeatEvery)
			res = s.run(ctx, w)
			stop()
			if ctx.Err() != nil && res.verdict == pass {
				res.verdict = inconclusive
			}
		}
		took := time.Since(start)
		fmt.Fprintf(log, "[%d/%d] %s %s (%s)\n", i+1, len(selected), s.name, res.verdict, took.Round(time.Millisecond))
		rows = append(rows, row{s.name, res, took})
		out.row("stage", map[string]any{"stage": s.name, "verdict": res.verdict.String(), "seconds": took.Seconds(),
			"summary": res.summary, "seeded_bugs": res.seeded, "caught_bugs": res.caught})
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
	return out.result(overall, fmt.Sprintf("%d stages; %d/%d seeded bugs caught", len(rows), caught, seeded),
		map[string]any{"seeded_bugs": seeded, "caught_bugs": caught})
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
