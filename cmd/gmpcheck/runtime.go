package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/rtq"
	"github.com/gmpcheck/gmpcheck/internal/rtq/harness"
)

func init() {
	registerCommand(command{
		name:    "runtime",
		summary: "extract a Go release's own run-queue code from its proc.go and run the queue checks on it",
		run:     runRuntime,
	})
	registerStage(stage{name: "runtime", order: 70, run: checkRuntimeLocal})
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func runRuntime(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("runtime", "[-goroot DIR | -go VERSION]... [flags]",
		`Extracts runqempty, runqput, runqputslow, runqputbatch, runqget, runqdrain, runqgrab,
runqsteal and the globrunq* functions from each release's src/runtime/proc.go (default:
the local toolchain), rewrites them onto shims with a yield point before every atomic
access and the ring size as a constant (4, 8, 256), builds them in a temporary directory
and runs the differential against impl/ and spec/ (seeded and rapid-driven), the
conservation stress, porcupine linearizability and the interleaving explorer's scenarios
on them. See docs/runtime.md.`)
	var goroots, versions multiFlag
	fs.Var(&goroots, "goroot", "a GOROOT to check (repeatable)")
	fs.Var(&versions, "go", "a release to download from the module proxy and check, e.g. 1.21.13 (repeatable); 'all-since 1.14' or all-since=1.14: the newest patch of every minor release since")
	seqs := fs.Int("seqs", 200, "differential: random sequences per capacity, >= 0")
	steps := fs.Int("steps", 100, "differential: operations per sequence, >= 1")
	ops := fs.Int("ops", 200_000, "conservation stress: owner operations per configuration (1..3 thieves), >= 1")
	rounds := fs.Int("rounds", 200, "porcupine: recorded rounds per capacity (4 and 8), >= 0")
	rapidChecks := fs.Int("rapidchecks", 100, "the differential driven by rapid (shrinks a failure): cases per capacity, >= 0")
	checks := fs.String("checks", "", "comma-separated subset of diff,rapid,stress,porcupine,interleave (default all)")
	seed := fs.Uint64("seed", 1, "seed of the random choices")
	fs.addTimeout(0, "time limit")
	keep := fs.Bool("keep", false, "keep the generated packages (their directory is printed)")
	race := fs.Bool("race", false, "build the checked program with the race detector (slower)")
	windows := fs.Bool("windows", false, "interleave: also explore every real-time order of the calls' windows (the scenarios where that stays small; far more schedules)")
	// "-go all-since 1.14" arrives as two arguments.
	if code, ok := fs.parse(joinAllSince(args), stdout, stderr); !ok {
		return code
	}
	for _, e := range []error{
		intFlag("seqs", *seqs, 0, math.MaxInt32),
		intFlag("steps", *steps, 1, math.MaxInt32),
		intFlag("ops", *ops, 1, math.MaxInt32),
		intFlag("rounds", *rounds, 0, math.MaxInt32),
		intFlag("rapidchecks", *rapidChecks, 0, math.MaxInt32),
	} {
		if e != nil {
			return usageError(stderr, "runtime", "%v", e)
		}
	}
	out := newOutput(fs, stdout, stderr)
	stdout = out.human
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	var releases []string
	// fromAll marks the releases listed by all-since: one whose run queue
	// has a shape the shims do not know is listed as not checked rather
	// than failed (naming it with -go checks it and fails).
	fromAll := map[string]bool{}
	for _, v := range versions {
		if since, ok := strings.CutPrefix(v, "all-since="); ok {
			all, err := releasesSince(ctx, since)
			if err != nil {
				fmt.Fprintf(stderr, "runtime: %v\n", err)
				return exitFail
			}
			for _, r := range all {
				fromAll["go"+r] = true
			}
			releases = append(releases, all...)
			continue
		}
		releases = append(releases, v)
	}
	if len(goroots) == 0 && len(releases) == 0 {
		root, err := localGOROOT()
		if err != nil {
			fmt.Fprintf(stderr, "runtime: %v\n", err)
			return exitFail
		}
		goroots = append(goroots, root)
	}
	opt := rtq.Options{Keep: *keep, Race: *race, Args: []string{
		"-seqs", strconv.Itoa(*seqs), "-steps", strconv.Itoa(*steps), "-rapidchecks", strconv.Itoa(*rapidChecks), "-ops", strconv.Itoa(*ops),
		"-rounds", strconv.Itoa(*rounds), "-seed", strconv.FormatUint(*seed, 10),
	}}
	if *checks != "" {
		opt.Args = append(opt.Args, "-checks", *checks)
	}
	if *windows {
		opt.Args = append(opt.Args, "-windows")
	}
	var reports []*rtq.Report
	for _, v := range releases {
		fmt.Fprintf(stdout, "go%s: fetching the toolchain module\n", strings.TrimPrefix(v, "go"))
		root, err := rtq.Toolchain(ctx, v)
		if err != nil && ctx.Err() != nil {
			rep := &rtq.Report{Release: "go" + strings.TrimPrefix(v, "go"), Results: []harness.Result{{Check: "fetch", Verdict: harness.Inconclusive, Detail: "cut short: " + ctx.Err().Error()}}}
			reports = append(reports, rep)
			printReport(stdout, rep)
			continue
		}
		if err != nil {
			reports = append(reports, &rtq.Report{Release: "go" + strings.TrimPrefix(v, "go"), Err: err})
			printReport(stdout, reports[len(reports)-1])
			continue
		}
		goroots = append(goroots, root)
	}
	if len(goroots) > 0 {
		fmt.Fprintf(stdout, "checking %d release(s): extracting, building one program, running\n", len(goroots))
	}
	unchecked := func(rep *rtq.Report) bool { return fromAll[rep.Release] && errors.Is(rep.Err, rtq.ErrUnknownShape) }
	opt.OnReport = func(rep *rtq.Report) {
		if unchecked(rep) {
			fmt.Fprintf(stdout, "\n%s: not checked (all-since): %v\n", rep.Release, rep.Err)
			return
		}
		printReport(stdout, rep)
	}
	reports = append(reports, rtq.CheckAll(ctx, goroots, opt)...)
	if *keep && len(goroots) > 0 {
		fmt.Fprintln(stdout, "(-keep: the generated packages stay in a gmpcheck-rtq-* directory under "+os.TempDir()+")")
	}
	var checked []*rtq.Report
	for _, rep := range reports {
		if unchecked(rep) {
			continue
		}
		checked = append(checked, rep)
	}
	v := printSummary(stdout, checked)
	for _, rep := range checked {
		row := map[string]any{"release": rep.Release, "goroot": rep.GOROOT, "funcs": len(rep.Funcs),
			"seconds": rep.Elapsed.Seconds(), "verdict": verdictOfReport(rep).String()}
		if rep.Err != nil {
			row["error"] = rep.Err.Error()
		}
		var results []map[string]any
		for _, r := range rep.Results {
			results = append(results, map[string]any{"check": r.Check, "cap": r.Cap, "verdict": r.Verdict, "count": r.Count, "detail": r.Detail})
		}
		row["checks"] = results
		out.row("release", row)
	}
	fmt.Fprintf(stdout, "runtime: %s\n", v)
	return out.result(v, fmt.Sprintf("%d release(s) checked", len(checked)), nil)
}

// joinAllSince turns "-go all-since 1.14" into "-go all-since=1.14".
func joinAllSince(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if (args[i] == "-go" || args[i] == "--go") && i+2 < len(args) && args[i+1] == "all-since" {
			out = append(out, args[i], "all-since="+args[i+2])
			i += 2
			continue
		}
		out = append(out, args[i])
	}
	return out
}

func localGOROOT() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err == nil && strings.TrimSpace(string(out)) != "" {
		return strings.TrimSpace(string(out)), nil
	}
	//lint:ignore SA1019 the fallback when no go command is on PATH
	if root := runtime.GOROOT(); root != "" {
		return root, nil
	}
	return "", fmt.Errorf("no local GOROOT: %v", err)
}

// releasesSince lists the newest patch release of every minor release from
// since (e.g. "1.14") on, as the module proxy has them for this platform.
func releasesSince(ctx context.Context, since string) ([]string, error) {
	minMinor, err := minorOf(since)
	if err != nil {
		return nil, fmt.Errorf("-go all-since %s: %w", since, err)
	}
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-versions", "golang.org/toolchain")
	cmd.Env = append(cmd.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the toolchain module's versions: %w", err)
	}
	rels := newestPatches(strings.Fields(string(out)), minMinor, runtime.GOOS+"-"+runtime.GOARCH)
	if len(rels) == 0 {
		return nil, fmt.Errorf("no release since %s for %s/%s", since, runtime.GOOS, runtime.GOARCH)
	}
	return rels, nil
}

// newestPatches picks, from golang.org/toolchain's module versions, the
// newest patch release of every minor release >= minMinor for platform
// (e.g. linux-amd64), oldest first. Betas and release candidates are left
// out.
func newestPatches(versions []string, minMinor int, platform string) []string {
	suffix := "." + platform
	type pick struct {
		patch int
		rel   string
	}
	best := map[int]pick{}
	for _, v := range versions {
		rel, ok := strings.CutPrefix(v, "v0.0.1-go")
		if !ok || !strings.HasSuffix(rel, suffix) {
			continue
		}
		rel = strings.TrimSuffix(rel, suffix)
		parts := strings.Split(rel, ".")
		if len(parts) < 2 || parts[0] != "1" {
			continue
		}
		minor, err := strconv.Atoi(parts[1])
		if err != nil || minor < minMinor {
			continue // also drops betas and rcs (1.18beta1)
		}
		patch := 0
		if len(parts) == 3 {
			if patch, err = strconv.Atoi(parts[2]); err != nil {
				continue
			}
		}
		if b, ok := best[minor]; !ok || patch > b.patch {
			best[minor] = pick{patch, rel}
		}
	}
	var minors []int
	for m := range best {
		minors = append(minors, m)
	}
	sort.Ints(minors)
	var rels []string
	for _, m := range minors {
		rels = append(rels, best[m].rel)
	}
	return rels
}

func minorOf(v string) (int, error) {
	parts := strings.Split(strings.TrimPrefix(v, "go"), ".")
	if len(parts) < 2 || parts[0] != "1" {
		return 0, fmt.Errorf("want a release such as 1.14")
	}
	return strconv.Atoi(parts[1])
}

func printReport(w io.Writer, rep *rtq.Report) {
	fmt.Fprintf(w, "\n%s (%s): %d functions: %s\n", rep.Release, rep.GOROOT, len(rep.Funcs), strings.Join(rep.Funcs, " "))
	if rep.Err != nil {
		fmt.Fprintf(w, "  FAIL: %v\n", rep.Err)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  check\tcap\tverdict\tcount\ttime")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%v\n", r.Check, r.Cap, r.Verdict, r.Count, time.Duration(r.Millis)*time.Millisecond)
	}
	tw.Flush()
	for _, r := range rep.Results {
		if r.Verdict != harness.Pass && r.Detail != "" {
			fmt.Fprintf(w, "  %s cap %d %s: %s\n", r.Check, r.Cap, r.Verdict, r.Detail)
		}
	}
}

// printSummary prints one row per release and returns the overall verdict.
func printSummary(w io.Writer, reports []*rtq.Report) verdict {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	checks := []string{"diff", "rapid", "stress", "porcupine", "interleave"}
	fmt.Fprintf(tw, "release\tfuncs\t%s\ttime\tverdict\n", strings.Join(checks, "\t"))
	all := pass
	for _, rep := range reports {
		cells := make([]string, len(checks))
		for i, c := range checks {
			cells[i] = "-"
			for _, r := range rep.Results {
				if r.Check == c {
					if cells[i] == "-" || r.Verdict != harness.Pass {
						cells[i] = r.Verdict
					}
				}
			}
		}
		v := verdictOfReport(rep)
		all = worst(all, v)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%v\t%s\n", rep.Release, len(rep.Funcs), strings.Join(cells, "\t"), rep.Elapsed.Round(100*time.Millisecond), v)
	}
	tw.Flush()
	if len(reports) == 0 {
		return inconclusive
	}
	return all
}

func verdictOfReport(rep *rtq.Report) verdict {
	switch rep.Verdict() {
	case harness.Pass:
		return pass
	case harness.Inconclusive:
		return inconclusive
	}
	return fail
}

// runtimeStageArgs is checkRuntimeLocal's budget.
var runtimeStageArgs = []string{"-seqs", "100", "-rapidchecks", "50", "-ops", "100000", "-rounds", "100"}

// checkRuntimeLocal checks the local toolchain's run-queue code at a small
// budget (about ten seconds on two cores, most of it building the generated
// package): the 'runtime' stage of 'gmpcheck verify'.
func checkRuntimeLocal(ctx context.Context, log io.Writer) stageResult {
	root, err := localGOROOT()
	if err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	// The self-test: a copy of the same proc.go with runqgrab taking half
	// rounded down, built in the same program, must fail the differential.
	tmp, err := os.MkdirTemp("", "gmpcheck-mutant-*")
	if err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	defer os.RemoveAll(tmp)
	m := rtq.GrabHalfDown
	mroot, err := rtq.Mutant(root, tmp, m.Name, m.Fn, m.Re, m.Repl)
	if err != nil {
		return stageResult{verdict: fail, summary: "the seeded mutant: " + err.Error()}
	}
	reps := rtq.CheckAll(ctx, []string{root, mroot}, rtq.Options{
		Args:  runtimeStageArgs,
		Extra: [][]string{nil, {"-checks", "diff"}},
		Caps:  [][]int{nil, {4}},
	})
	rep, mrep := reps[0], reps[1]
	printReport(log, rep)
	v := verdictOfReport(rep)
	if rep.Err != nil {
		return stageResult{verdict: v, summary: rep.Err.Error()}
	}
	caught := 0
	switch mv := verdictOfReport(mrep); {
	case mv == fail && mrep.Err == nil:
		caught = 1
		fmt.Fprintf(log, "seeded mutant %s rejected, as it must be\n", mrep.Release)
	case mv == inconclusive:
		v = worst(v, inconclusive)
	default:
		printReport(log, mrep)
		return stageResult{verdict: fail, seeded: 1, summary: "the seeded mutant " + m.Name + " was not rejected"}
	}
	// The log has every check's row; the summary counts them.
	passed := 0
	var other []string
	for _, r := range rep.Results {
		if r.Verdict == harness.Pass {
			passed++
		} else {
			other = append(other, fmt.Sprintf("%s/%d %s", r.Check, r.Cap, r.Verdict))
		}
	}
	sum := fmt.Sprintf("%s's own run-queue code: %d of %d checks pass", rep.Release, passed, len(rep.Results))
	if len(other) > 0 {
		sum += " (" + strings.Join(other, ", ") + ")"
	}
	return stageResult{verdict: v, summary: sum, seeded: 1, caught: caught}
}
