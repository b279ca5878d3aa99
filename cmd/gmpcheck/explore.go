package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// explore: exhaustive exploration of the executable spec (spec/) under
// bounds given as flags, with the shortest counterexample on failure.

func init() {
	registerCommand(command{
		name:    "explore",
		summary: "model-check the executable GMP spec exhaustively under small bounds",
		run:     runExplore,
	})
	registerStage(stage{name: "spec-explore", order: 20, run: exploreStage})
}

func runExplore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var b spec.Bounds
	fs.IntVar(&b.Ps, "ps", 2, "number of Ps (GOMAXPROCS), 1..4")
	fs.IntVar(&b.Ms, "ms", 0, "number of M slots (0: Ps+Gs, at most 8)")
	fs.IntVar(&b.Gs, "gs", 3, "number of G slots, 1..8")
	fs.IntVar(&b.Cap, "cap", 2, "local run queue capacity (power of two, 2..8)")
	fs.IntVar(&b.Spawn, "spawn", 2, "NewProc budget")
	fs.IntVar(&b.SchedTick, "tick", 2, "period of the global-queue check (the runtime's is 61)")
	fs.BoolVar(&b.Syscalls, "syscalls", true, "model syscalls and sysmon retake")
	fs.BoolVar(&b.Netpoll, "netpoll", false, "model netpoll as an external source of ready Gs")
	fs.BoolVar(&b.StealRace, "steal-race", false, "a spinning M may give up its steal scan although a victim has work (the scan is not atomic)")
	bugName := fs.String("bug", "none", "seeded bug variant: none, ready-no-wakep, no-61, nmspinning-no-dec, gosched-local, retake-ignores-local")
	liveness := fs.Bool("liveness", true, "check work conservation and global-queue starvation on the graph")
	maxStates := fs.Int("max-states", 0, "stop after this many distinct states (0: no limit; a cut-short run is inconclusive)")
	timeout := fs.Duration("timeout", 10*time.Minute, "time limit (a run cut short is inconclusive)")
	quiet := fs.Bool("q", false, "no progress lines")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gmpcheck explore [flags]")
		fmt.Fprintln(stderr, "\nBreadth-first search over every reachable state of the executable spec;")
		fmt.Fprintln(stderr, "invariants in every state, deadlock, and (with -liveness) SCC-based liveness.")
		fmt.Fprintln(stderr, "Exit: 0 pass, 1 violation (trace printed), 2 usage, 3 inconclusive.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	bug, err := spec.ParseBug(*bugName)
	if err != nil {
		fmt.Fprintf(stderr, "explore: %v\n", err)
		return exitUsage
	}
	b.Bug = bug
	if err := b.Validate(); err != nil {
		fmt.Fprintf(stderr, "explore: %v\n", err)
		return exitUsage
	}
	if *maxStates < 0 {
		fmt.Fprintln(stderr, "explore: -max-states must be >= 0")
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	opt := spec.Options{Liveness: *liveness, MaxStates: *maxStates}
	if !*quiet {
		opt.Progress = stdout
	}
	fmt.Fprintf(stdout, "explore: %v\n", b)
	r, err := spec.Explore(ctx, b, opt)
	if err != nil {
		fmt.Fprintf(stderr, "explore: %v\n", err)
		return exitUsage
	}
	return reportExplore(stdout, r)
}

func reportExplore(w io.Writer, r spec.Result) int {
	fmt.Fprintf(w, "explore: %v\n", r)
	switch {
	case r.Violation != nil:
		fmt.Fprintf(w, "VIOLATION (%d steps) %v\n", r.Violation.Trace.Len(), r.Violation)
		return exitFail
	case !r.Complete:
		fmt.Fprintln(w, "INCONCLUSIVE: the search was cut short (time or state limit)")
		return exitInconclusive
	}
	fmt.Fprintln(w, "PASS")
	return exitPass
}

// exploreStage: a moderate bound of the real algorithm with liveness, the
// same bound with a non-atomic steal scan, then every seeded bug on the small
// bound that exposes it, each of which must be found with the expected
// property and trace length.
func exploreStage(ctx context.Context, log io.Writer) stageResult {
	b := spec.Bounds{Ps: 2, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true, Ms: 4}
	var runs [2]spec.Result
	for i, race := range []bool{false, true} {
		b.StealRace = race
		fmt.Fprintf(log, "real algorithm: %v\n", b)
		r, err := spec.Explore(ctx, b, spec.Options{Liveness: true})
		if err != nil {
			return stageResult{fail, err.Error()}
		}
		fmt.Fprintf(log, "%v\n", r)
		if r.Violation != nil {
			fmt.Fprintf(log, "%v\n", r.Violation)
			return stageResult{fail, "violation: " + r.Violation.Kind.String()}
		}
		if !r.Complete {
			return stageResult{inconclusive, fmt.Sprintf("cut short after %d states", r.Distinct)}
		}
		runs[i] = r
	}
	found := 0
	for _, c := range spec.SeededBugCases() {
		bug := c.Bounds.Bug
		if ctx.Err() != nil {
			return stageResult{inconclusive, "seeded bugs: cut short"}
		}
		rb, err := spec.Explore(ctx, c.Bounds, spec.Options{Liveness: true})
		if err != nil {
			return stageResult{fail, err.Error()}
		}
		if rb.Violation == nil && !rb.Complete {
			return stageResult{inconclusive, "seeded bug " + bug.String() + ": cut short"}
		}
		if err := c.Match(rb.Violation); err != nil {
			fmt.Fprintf(log, "%v: %v\n", err, rb)
			if rb.Violation != nil {
				fmt.Fprintf(log, "%v\n", rb.Violation)
			}
			return stageResult{fail, err.Error()}
		}
		fmt.Fprintf(log, "seeded bug %-22v found: %v, %d-step trace (as expected)\n", bug, rb.Violation.Kind, rb.Violation.Trace.Len())
		found++
	}
	r := runs[0]
	return stageResult{pass, fmt.Sprintf("%d states, %d transitions, depth %d (%d states with steal-race), liveness ok; %d/%d seeded bugs found as expected",
		r.Distinct, r.Transitions, r.Depth, runs[1].Distinct, found, len(spec.Bugs()))}
}
