package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

func init() {
	registerCommand(command{
		name:    "driver",
		summary: "compare the reference scheduler's decision code with spec/, step by step, on random traces",
		run:     runDriverCmd,
	})
}

// driverBudget is one run of the driver comparison.
type driverBudget struct {
	traces, steps int
	seed          uint64
}

func runDriverCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("driver", "[-traces n] [-steps n] [-seed n] [-bug name]",
		`Runs the reference scheduler's deterministic driver and spec/ side by side on random
traces (random bounds, Go release and choices): after every step the whole scheduler
state must equal the spec's, and the action the real decision code took must be one
the spec enables. The first divergence is printed with the trace that led to it.

With -bug the seeded scheduler bug is built into the impl only (the instrumented
build, which gmpcheck builds and re-executes itself into): exit 0 when some trace
catches it, 1 when none does.`)
	var b driverBudget
	fs.IntVar(&b.traces, "traces", 2000, "random traces, >= 1")
	fs.IntVar(&b.steps, "steps", 200, "actions per trace, >= 1")
	fs.Uint64Var(&b.seed, "seed", 0, "seed of the random traces (0: from the clock; the seed used is printed)")
	bugName := fs.String("bug", "none", "seeded scheduler bug to build into the impl, which must be caught: none, "+specBugNames())
	stageMode := fs.Bool("stage", false, "run verify's seeded-bug self-test (instrumented build)")
	quiet := fs.Bool("q", false, "with -stage: no line per seeded bug")
	fs.addTimeout(0, "time limit")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	for _, e := range []error{intFlag("traces", b.traces, 1, math.MaxInt32), intFlag("steps", b.steps, 1, 1_000_000)} {
		if e != nil {
			return usageError(stderr, "driver", "%v", e)
		}
	}
	bug, err := spec.ParseBug(*bugName)
	if err != nil {
		return usageError(stderr, "driver", "-bug: %v", err)
	}
	if *stageMode && bug != spec.BugNone {
		return usageError(stderr, "driver", "-stage runs every seeded bug; it takes no -bug")
	}
	if (*stageMode || bug != spec.BugNone) && !impl.HooksEnabled() {
		return runHooked(ctx, "driver", args, stdout, stderr)
	}
	out := newOutput(fs, stdout, stderr)
	stdout = out.human
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	if *stageMode {
		log := stdout
		if *quiet {
			log = io.Discard
		}
		res := driverSeeded(ctx, log)
		fmt.Fprintln(stdout, stageLine(res))
		return res.verdict.exitCode()
	}
	if b.seed == 0 {
		b.seed = uint64(time.Now().UnixNano())
	}
	fmt.Fprintf(stdout, "driver: %d traces of up to %d actions, seed %d", b.traces, b.steps, b.seed)
	if bug != spec.BugNone {
		fmt.Fprintf(stdout, ", seeded bug %v in the impl", bug)
	}
	fmt.Fprintln(stdout)
	start := time.Now()
	n, err := compareTraces(ctx, b, bug)
	detail := fmt.Sprintf("%d traces in %v", n, time.Since(start).Round(time.Millisecond))
	checked := pass
	switch {
	case err != nil:
		checked = fail
		fmt.Fprintf(stdout, "driver: diverges from the spec in trace %d (seed %d):\n%v\n", n, b.seed, err)
	case n < b.traces:
		checked = inconclusive
		detail += " (" + interrupted(ctx) + ")"
	}
	out.row("driver", map[string]any{"traces": n, "steps": b.steps, "seed": b.seed, "diverged": err != nil})
	if bug != spec.BugNone {
		return reportSeeded(out, "driver", bug.String(), checked, detail)
	}
	fmt.Fprintf(stdout, "driver: %s (%s)\n", checked, detail)
	return out.result(checked, detail, map[string]any{"traces": n})
}

// compareTraces runs up to b.traces random traces of the driver against the
// spec, with bug seeded into the impl, and returns how many it ran and the
// first divergence. It stops early, with no error, when ctx ends.
func compareTraces(ctx context.Context, b driverBudget, bug spec.Bug) (int, error) {
	c := impl.RandChooser(rand.New(rand.NewPCG(b.seed, uint64(bug))))
	for i := range b.traces {
		if ctx.Err() != nil {
			return i, nil
		}
		if err := checkTrace(c, bug, b.steps); err != nil {
			return i + 1, err
		}
	}
	return b.traces, nil
}

// driverSeeded is the scheduler stage's self-test, in the instrumented
// build: every seeded scheduler bug must make some trace diverge.
func driverSeeded(ctx context.Context, log io.Writer) stageResult {
	bugs := spec.Bugs()
	for i, bug := range bugs {
		n, err := compareTraces(ctx, driverBudget{traces: 5000, steps: 80, seed: 3}, bug)
		switch {
		case err != nil:
			fmt.Fprintf(log, "seeded bug %-22v caught after %d traces\n", bug, n)
		case ctx.Err() != nil:
			return stageResult{verdict: inconclusive, seeded: len(bugs), caught: i, summary: "seeded bug " + bug.String() + ": cut short"}
		default:
			fmt.Fprintf(log, "seeded bug %-22v missed in %d traces\n", bug, n)
			return stageResult{verdict: fail, seeded: len(bugs), caught: i, summary: fmt.Sprintf("seeded bug %v not caught", bug)}
		}
	}
	return stageResult{verdict: pass, seeded: len(bugs), caught: len(bugs),
		summary: fmt.Sprintf("%d/%d seeded scheduler bugs caught by the driver comparison", len(bugs), len(bugs))}
}
