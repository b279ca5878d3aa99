package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/conform"
	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

func init() {
	registerCommand(command{
		name:    "conform",
		summary: "trace validation: real Go execution traces (a corpus, or FILEs) and the reference scheduler's concurrent runs, checked against spec/",
		run:     runConform,
	})
}

func runConform(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("conform", "[flags] [FILE...]",
		`Without FILEs: builds the corpus of small Go programs (conform/testdata/programs: spawn
fan-out, channel ping-pong, Gosched loops, a tight loop preempted by sysmon, blocking
syscalls, timers, loopback network I/O, LockOSThread, GC), runs each at every -procs
with runtime/trace on, checks each trace against spec/ at the G/P level and prints a
table (program, GOMAXPROCS, events, verdict, time). With -impl N it also records N
concurrent runs of the reference scheduler at -impl-procs and checks each against the
spec step by step.

With FILEs: checks execution traces recorded elsewhere (runtime/trace.Start, or
go test -trace FILE). docs/conformance.md has the mapping and the named filters.`)
	procsFlag := fs.String("procs", "1,2,4", "GOMAXPROCS values to run the corpus at, comma-separated, each 1..256")
	runFlag := fs.String("run", "", "regexp selecting the corpus programs")
	implRuns := fs.Int("impl", 0, "concurrent runs of the reference scheduler to record and check, >= 0")
	implProcs := fs.String("impl-procs", "2,4,8", fmt.Sprintf("Procs of the reference scheduler's runs, comma-separated, each 1..%d (the spec's Ps)", spec.MaxPs))
	seed := fs.Uint64("seed", 1, "first seed of the reference scheduler's runs")
	dump := fs.String("impl-dump", "", "directory to write each reference-scheduler run not accepted to, as conform-pP-sSEED.events (conform.WriteEvents; re-check with CONFORM_REPLAY=P,FILE go test ./conform -run TestImplReplay)")
	verbose := fs.Bool("v", false, "print the spec actions and filters of each trace")
	fs.addTimeout(0, "time limit")
	// FILE arguments: parse flags and positional arguments by hand (the
	// shared parser rejects positional arguments, which no other command
	// takes).
	fs.SetOutput(stderr)
	if err := fs.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.printUsage(stdout)
			return exitPass
		}
		fmt.Fprintf(stderr, "run 'gmpcheck help conform' for usage\n")
		return exitUsage
	}
	if fs.timeout < 0 {
		return usageError(stderr, "conform", "-timeout %v: want 0 (no limit) or a positive duration", fs.timeout)
	}
	files := fs.Args()
	procs, err := intList("procs", *procsFlag, 1, 256)
	if err != nil {
		return usageError(stderr, "conform", "%v", err)
	}
	iprocs, err := intList("impl-procs", *implProcs, 1, spec.MaxPs)
	if err != nil {
		return usageError(stderr, "conform", "%v", err)
	}
	if e := intFlag("impl", *implRuns, 0, 1_000_000); e != nil {
		return usageError(stderr, "conform", "%v", e)
	}
	re, err := compileRun(*runFlag)
	if err != nil {
		return usageError(stderr, "conform", "%v", err)
	}
	if len(files) > 0 && (fs.set("procs") || fs.set("run") || fs.set("impl")) {
		return usageError(stderr, "conform", "FILE arguments do not go with -procs, -run or -impl")
	}
	out := newOutput(fs, stdout, stderr)
	w := out.human
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()

	var verdicts []conform.Verdict
	var traces, events int
	var checkTime time.Duration
	printRow := func(name string, procs string, r conform.RuntimeResult, run time.Duration) {
		traces++
		events += r.Events
		checkTime += r.Elapsed
		verdicts = append(verdicts, r.Verdict)
		rate := ""
		if r.Elapsed > 0 {
			rate = fmt.Sprintf("%.0f", float64(r.Events)/r.Elapsed.Seconds())
		}
		fmt.Fprintf(w, "%-14s %4s %8d  %-12s %9s %9s %10s\n", name, procs, r.Events, r.Verdict,
			run.Round(time.Millisecond), r.Elapsed.Round(time.Millisecond), rate)
		if r.Verdict != conform.Accepted {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(r.String(), "\n", "\n    "))
		}
		if *verbose && r.Verdict == conform.Accepted {
			fmt.Fprintf(w, "    %s\n", r)
		}
		if *verbose || r.Verdict != conform.Accepted {
			fmt.Fprintf(w, "    spec actions: %s\n", conform.Summary(r.Actions))
			fmt.Fprintf(w, "    filters: %s\n", conform.Summary(r.Filtered))
		}
		out.row("trace", map[string]any{
			"program": name, "gomaxprocs": procs, "events": r.Events, "observations": r.Observed,
			"verdict": r.Verdict.String(), "run_ms": run.Milliseconds(), "check_ms": r.Elapsed.Milliseconds(),
			"actions": r.Actions, "filtered": r.Filtered, "reason": r.Reason,
			"user_gs": r.Users, "runtime_gs": r.System, "runtime_observations": r.SystemObs,
		})
	}
	header := func() {
		fmt.Fprintf(w, "%-14s %4s %8s  %-12s %9s %9s %10s\n", "program", "P", "events", "verdict", "run", "check", "events/s")
	}

	if len(files) > 0 {
		header()
		for _, f := range files {
			r, err := conform.CheckFile(ctx, f)
			if err != nil {
				fmt.Fprintf(w, "%s: %v\n", f, err)
				r = conform.RuntimeResult{Verdict: conform.Inconclusive, Reason: err.Error()}
			}
			printRow(f, "-", r, 0)
		}
	} else {
		var names []string
		for _, n := range conform.Programs() {
			if re == nil || re.MatchString(n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return usageError(stderr, "conform", "-run %q selects no program (have %v)", *runFlag, conform.Programs())
		}
		fmt.Fprintf(w, "conform: building %d programs\n", len(names))
		corpus, err := conform.BuildCorpus(ctx, names)
		if err != nil {
			fmt.Fprintf(w, "conform: %v\n", err)
			v := inconclusive
			if why := interrupted(ctx); why == "" {
				v = fail
			}
			return out.result(v, err.Error(), nil)
		}
		defer corpus.Close()
		header()
		_, err = conform.RunCorpus(ctx, corpus, names, procs, func(r conform.CorpusRow) {
			printRow(r.Program, strconv.Itoa(r.Procs), r.Result, r.Run)
		})
		if err != nil {
			fmt.Fprintf(w, "conform: %v\n", err)
			if ctx.Err() != nil {
				verdicts = append(verdicts, conform.Inconclusive)
			} else {
				verdicts = append(verdicts, conform.Rejected)
			}
		}
	}
	summary := fmt.Sprintf("%d traces, %d events, %s", traces, events, countVerdicts(verdicts))
	if checkTime > 0 {
		summary += fmt.Sprintf(", %.0f events/s checked", float64(events)/checkTime.Seconds())
	}

	if *implRuns > 0 && len(files) == 0 && ctx.Err() == nil {
		iv, isum := conformImpl(ctx, w, out, *implRuns, iprocs, *seed, *verbose, *dump)
		verdicts = append(verdicts, iv...)
		summary += "; impl: " + isum
	}
	v := conform.Worst(verdicts...)
	if ctx.Err() != nil && v == conform.Accepted {
		v = conform.Inconclusive
	}
	if why := interrupted(ctx); why != "" {
		summary += " (" + why + ")"
	}
	cv := map[conform.Verdict]verdict{conform.Accepted: pass, conform.Rejected: fail, conform.Inconclusive: inconclusive}[v]
	fmt.Fprintf(w, "conform: %s: %s\n", cv, summary)
	return out.result(cv, summary, nil)
}

// conformImpl records and checks n concurrent runs of the reference
// scheduler, spread over procs.
func conformImpl(ctx context.Context, w io.Writer, out *output, n int, procs []int, seed uint64, verbose bool, dump string) ([]conform.Verdict, string) {
	var vs []conform.Verdict
	var actions int
	var check time.Duration
	filters := map[string]int{}
	type count struct{ acc, rej, inc int }
	per := map[int]*count{}
	for _, p := range procs {
		per[p] = &count{}
	}
	for i := range n {
		if ctx.Err() != nil {
			vs = append(vs, conform.Inconclusive)
			break
		}
		r := conform.ImplRun{Procs: procs[i%len(procs)], Seed: seed + uint64(i)}
		evs, q, err := r.Record(ctx)
		if err != nil {
			fmt.Fprintf(w, "impl run %d: %v\n", i, err)
			vs = append(vs, conform.Inconclusive)
			continue
		}
		t0 := time.Now()
		res := conform.CheckImpl(ctx, evs, r.Options(q))
		check += time.Since(t0)
		vs = append(vs, res.Verdict)
		switch res.Verdict {
		case conform.Accepted:
			per[r.Procs].acc++
		case conform.Rejected:
			per[r.Procs].rej++
		default:
			per[r.Procs].inc++
		}
		if res.Verdict != conform.Accepted && dump != "" {
			if _, err := dumpEvents(dump, r, evs); err != nil {
				fmt.Fprintf(w, "impl run %d: %v\n", i, err)
			}
		}
		if res.Verdict == conform.Accepted {
			actions += res.Actions
			for k, c := range res.Filtered {
				filters[k] += c
			}
		}
		if verbose || res.Verdict != conform.Accepted {
			fmt.Fprintf(w, "impl procs %d seed %d: %s\n", r.Procs, r.Seed, strings.ReplaceAll(res.String(), "\n", "\n    "))
		}
		out.row("impl", map[string]any{
			"procs": r.Procs, "seed": r.Seed, "events": res.Events, "actions": res.Actions,
			"verdict": res.Verdict.String(), "reason": res.Reason, "frontier": res.MaxFrontier, "filtered": res.Filtered,
		})
	}
	s := fmt.Sprintf("%d runs at Procs %v, %s, %d actions checked", len(vs), procs, countVerdicts(vs), actions)
	if check > 0 {
		s += fmt.Sprintf(" (%.0f actions/s)", float64(actions)/check.Seconds())
	}
	if len(filters) > 0 {
		s += "; filters in accepted runs: " + conform.Summary(filters)
	}
	if len(procs) > 1 {
		var parts []string
		for _, p := range procs {
			c := per[p]
			parts = append(parts, fmt.Sprintf("Procs %d: %d/%d/%d", p, c.acc, c.rej, c.inc))
		}
		s += " (accepted/rejected/inconclusive: " + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintf(w, "impl: %s\n", s)
	return vs, s
}

func countVerdicts(vs []conform.Verdict) string {
	n := map[conform.Verdict]int{}
	for _, v := range vs {
		n[v]++
	}
	return fmt.Sprintf("%d accepted, %d rejected, %d inconclusive", n[conform.Accepted], n[conform.Rejected], n[conform.Inconclusive])
}

// intList parses "1,2,4" with each value in [lo, hi].
func intList(name, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("-%s %q: want comma-separated integers", name, s)
		}
		if err := intFlag(name, v, lo, hi); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// dumpEvents writes a run's events to dir as conform-pP-sSEED.events and
// returns the file's path.
func dumpEvents(dir string, r conform.ImplRun, evs []impl.Event) (string, error) {
	path := filepath.Join(dir, fmt.Sprintf("conform-p%d-s%d.events", r.Procs, r.Seed))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := conform.WriteEvents(f, evs); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
