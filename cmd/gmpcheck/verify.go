package main

import (
	"context"
	"flag"
	"fmt"
	"io"
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
// summary of what it measured (counts, not adjectives).
type stageResult struct {
	verdict verdict
	summary string
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

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("only", "", "comma-separated stage names to run (default: all)")
	timeout := fs.Duration("timeout", 15*time.Minute, "overall time limit; stages cut short are inconclusive")
	quiet := fs.Bool("q", false, "print only the summary table")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gmpcheck verify [-only stage,...] [-timeout d] [-q]")
		fmt.Fprintln(stderr, "\nRuns every check gmpcheck has at a bounded budget. Stages:")
		for _, s := range sortedStages() {
			fmt.Fprintf(stderr, "  %s\n", s.name)
		}
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	selected := sortedStages()
	if *only != "" {
		want := map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			want[strings.TrimSpace(n)] = true
		}
		var sel []stage
		for _, s := range selected {
			if want[s.name] {
				sel = append(sel, s)
				delete(want, s.name)
			}
		}
		for n := range want {
			fmt.Fprintf(stderr, "verify: no stage named %q\n", n)
			return exitUsage
		}
		selected = sel
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
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
	for i, s := range selected {
		fmt.Fprintf(log, "[%d/%d] %s ...\n", i+1, len(selected), s.name)
		start := time.Now()
		var res stageResult
		if ctx.Err() != nil {
			res = stageResult{inconclusive, "not run: verify timeout reached"}
		} else {
			res = s.run(ctx, prefixWriter(log, "      "))
		}
		took := time.Since(start)
		fmt.Fprintf(log, "[%d/%d] %s %s (%s)\n", i+1, len(selected), s.name, res.verdict, took.Round(time.Millisecond))
		rows = append(rows, row{s.name, res, took})
		overall = worst(overall, res.verdict)
	}

	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STAGE\tVERDICT\tTIME\tSUMMARY")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.name, r.res.verdict, r.took.Round(time.Millisecond), r.res.summary)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "\nverify: %s\n", overall)
	return overall.exitCode()
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

// parseFlags parses a command's flags and rejects positional arguments,
// which no command takes. When it reports !ok, the command returns code.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		return flagExit(err), false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected arguments %q\n", fs.Name(), fs.Args())
		return exitUsage, false
	}
	return exitPass, true
}

// limitContext is the context of a command whose -timeout 0 means no limit.
func limitContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(context.Background(), timeout)
	}
	return context.WithCancel(context.Background())
}

// flagExit turns a flag parsing error into an exit code: -h is not an error.
func flagExit(err error) int {
	if err == flag.ErrHelp {
		return exitPass
	}
	return exitUsage
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
