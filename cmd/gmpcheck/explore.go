package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
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

func runExplore(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("explore", "[flags]",
		`Breadth-first search over every reachable state of the executable spec;
invariants in every state, deadlock, and (with -liveness) SCC-based liveness.
A violation prints the shortest trace, action by action. With -bug the seeded
bug must be caught: exit 0 when it is, 1 when the search passes.`)
	var b spec.Bounds
	fs.IntVar(&b.Ps, "ps", 2, fmt.Sprintf("number of Ps (GOMAXPROCS), 1..%d", spec.MaxPs))
	fs.IntVar(&b.Ms, "ms", 0, fmt.Sprintf("number of M slots, ps..%d (0: Ps+Gs, at most %d)", spec.MaxMs, spec.MaxMs))
	fs.IntVar(&b.Gs, "gs", 3, fmt.Sprintf("number of G slots, 1..%d", spec.MaxGs))
	fs.IntVar(&b.Cap, "cap", 2, fmt.Sprintf("local run queue capacity, a power of two in 2..%d", spec.MaxCap))
	fs.IntVar(&b.Spawn, "spawn", 2, fmt.Sprintf("NewProc budget, 0..%d", spec.MaxSpawn))
	fs.IntVar(&b.SchedTick, "tick", 2, fmt.Sprintf("period of the global-queue check, 1..%d (the runtime's is %d)", spec.RuntimeSchedTick, spec.RuntimeSchedTick))
	fs.BoolVar(&b.Syscalls, "syscalls", true, "model syscalls and sysmon retake")
	fs.BoolVar(&b.Netpoll, "netpoll", false, "model netpoll as an external source of ready Gs")
	fs.BoolVar(&b.StealRace, "steal-race", false, "a spinning M may give up its steal scan although a victim has work (the scan is not atomic)")
	bugName := fs.String("bug", "none", "seeded bug variant, which must be caught: none, "+specBugNames())
	liveness := fs.Bool("liveness", true, "check work conservation and global-queue starvation on the graph")
	maxStates := fs.Int("max-states", 0, "stop after this many distinct states (0: no limit; a cut-short run is inconclusive)")
	fs.addTimeout(10*time.Minute, "time limit")
	quiet := fs.Bool("q", false, "no progress lines")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	bug, err := spec.ParseBug(*bugName)
	if err != nil {
		return usageError(stderr, "explore", "-bug: %v", err)
	}
	b.Bug = bug
	for _, e := range []error{
		intFlag("ps", b.Ps, 1, spec.MaxPs),
		intFlag("gs", b.Gs, 1, spec.MaxGs),
		intFlag("spawn", b.Spawn, 0, spec.MaxSpawn),
		intFlag("tick", b.SchedTick, 1, spec.RuntimeSchedTick),
		intFlag("cap", b.Cap, 2, spec.MaxCap),
		intFlag("max-states", *maxStates, 0, math.MaxInt),
	} {
		if e != nil {
			return usageError(stderr, "explore", "%v", e)
		}
	}
	if b.Cap&(b.Cap-1) != 0 {
		return usageError(stderr, "explore", "-cap %d: want a power of two in 2..%d", b.Cap, spec.MaxCap)
	}
	if b.Ms != 0 {
		if err := intFlag("ms", b.Ms, b.Ps, spec.MaxMs); err != nil {
			return usageError(stderr, "explore", "%v (0: Ps+Gs)", err)
		}
	}
	if err := b.Validate(); err != nil {
		return usageError(stderr, "explore", "%v", err)
	}
	out := newOutput(fs, stdout, stderr)
	stdout = out.human
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	opt := spec.Options{Liveness: *liveness, MaxStates: *maxStates}
	if !*quiet {
		opt.Progress = stdout
	}
	fmt.Fprintf(stdout, "explore: %v\n", b)
	r, err := spec.Explore(ctx, b, opt)
	if err != nil {
		return usageError(stderr, "explore", "%v", err)
	}
	v := reportExplore(stdout, ctx, r)
	fields := map[string]any{"bounds": b.String(), "states": r.Distinct, "transitions": r.Transitions, "depth": r.Depth, "complete": r.Complete}
	if r.Violation != nil {
		fields["violation"] = r.Violation.Kind.String()
		fields["trace_steps"] = r.Violation.Trace.Len()
	}
	out.row("explore", fields)
	if bug != spec.BugNone {
		if v == pass && !*liveness {
			fmt.Fprintln(stdout, "note: -liveness=false checks no liveness property, so a seeded bug that breaks only liveness is missed")
		}
		return reportSeeded(out, "explore", bug.String(), v, fmt.Sprintf("%d states", r.Distinct))
	}
	return out.result(v, fmt.Sprintf("%d states", r.Distinct), nil)
}

func specBugNames() string {
	var names []string
	for _, b := range spec.Bugs() {
		names = append(names, b.String())
	}
	return strings.Join(names, ", ")
}

func reportExplore(w io.Writer, ctx context.Context, r spec.Result) verdict {
	fmt.Fprintf(w, "explore: %v\n", r)
	switch {
	case r.Violation != nil:
		fmt.Fprintf(w, "VIOLATION (%d steps) %v\n", r.Violation.Trace.Len(), r.Violation)
		return fail
	case !r.Complete:
		why := "time or state limit"
		if interrupted(ctx) == "interrupted" {
			why = "interrupted"
		}
		fmt.Fprintf(w, "INCONCLUSIVE: the search was cut short (%s) after %d states\n", why, r.Distinct)
		return inconclusive
	}
	fmt.Fprintln(w, "PASS")
	return pass
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
			return stageResult{verdict: fail, summary: err.Error()}
		}
		fmt.Fprintf(log, "%v\n", r)
		if r.Violation != nil {
			fmt.Fprintf(log, "%v\n", r.Violation)
			return stageResult{verdict: fail, summary: "violation: " + r.Violation.Kind.String()}
		}
		if !r.Complete {
			return stageResult{verdict: inconclusive, summary: fmt.Sprintf("cut short after %d states", r.Distinct)}
		}
		runs[i] = r
	}
	found := 0
	for _, c := range spec.SeededBugCases() {
		bug := c.Bounds.Bug
		if ctx.Err() != nil {
			return stageResult{verdict: inconclusive, summary: "seeded bugs: cut short"}
		}
		rb, err := spec.Explore(ctx, c.Bounds, spec.Options{Liveness: true})
		if err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		if rb.Violation == nil && !rb.Complete {
			return stageResult{verdict: inconclusive, summary: "seeded bug " + bug.String() + ": cut short"}
		}
		if err := c.Match(rb.Violation); err != nil {
			fmt.Fprintf(log, "%v: %v\n", err, rb)
			if rb.Violation != nil {
				fmt.Fprintf(log, "%v\n", rb.Violation)
			}
			return stageResult{verdict: fail, summary: err.Error()}
		}
		fmt.Fprintf(log, "seeded bug %-22v found: %v, %d-step trace (as expected)\n", bug, rb.Violation.Kind, rb.Violation.Trace.Len())
		found++
	}
	r := runs[0]
	return stageResult{verdict: pass, seeded: len(spec.SeededBugCases()), caught: found,
		summary: fmt.Sprintf("%d states, %d transitions, depth %d (%d states with steal-race), liveness ok; %d/%d seeded bugs found as expected",
			r.Distinct, r.Transitions, r.Depth, runs[1].Distinct, found, len(spec.SeededBugCases()))}
}
