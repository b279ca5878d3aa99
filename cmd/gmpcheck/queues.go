package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gmpcheck/gmpcheck/impl"

	"github.com/gmpcheck/gmpcheck/internal/queuecheck"
)

// queueBudget bounds the run-queue checks.
type queueBudget struct {
	seqs, steps, ownerOps int
	seed                  uint64
}

var queueCaps = []int{2, 4, 8, 256}

func init() {
	registerCommand(command{
		name:    "queues",
		summary: "check the run queues: differential model against spec/, and concurrent conservation stress",
		run:     runQueues,
	})
	registerStage(stage{
		name:  "queues",
		order: 10,
		run: func(ctx context.Context, log io.Writer) stageResult {
			res := checkQueues(ctx, log, queueBudget{seqs: 300, steps: 100, ownerOps: 300_000, seed: 1})
			if res.verdict != pass {
				return res
			}
			var seeded stageResult
			if impl.HooksEnabled() {
				seeded = queuesSeeded(ctx, log)
			} else {
				seeded = hookedStage(ctx, log, "queues")
			}
			seeded.summary = res.summary + "; " + seeded.summary
			return seeded
		},
	})
}

func runQueues(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("queues", "[flags]",
		`Drives the real run queues against spec/ (capacities 2, 4, 8, 256), then stresses one
owner against 1..3 thieves and checks that every G is taken exactly once.`)
	var b queueBudget
	fs.IntVar(&b.seqs, "seqs", 1000, "random operation sequences per capacity for the differential model, >= 0")
	fs.IntVar(&b.steps, "steps", 100, "operations per sequence, >= 1")
	fs.IntVar(&b.ownerOps, "ops", 1_000_000, "owner operations per stress configuration (capacities 4 and 256, 1..3 thieves), >= 1")
	fs.Uint64Var(&b.seed, "seed", 1, "seed of the random choices")
	fs.addTimeout(0, "time limit")
	stageMode := fs.Bool("stage", false, "run verify's seeded-bug self-test (instrumented build)")
	quiet := fs.Bool("q", false, "no progress lines")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	for _, e := range []error{
		intFlag("seqs", b.seqs, 0, math.MaxInt32),
		intFlag("steps", b.steps, 1, math.MaxInt32),
		intFlag("ops", b.ownerOps, 1, math.MaxInt32),
	} {
		if e != nil {
			return usageError(stderr, "queues", "%v", e)
		}
	}
	if *stageMode && !impl.HooksEnabled() {
		return runHooked(ctx, "queues", args, stdout, stderr)
	}
	out := newOutput(fs, stdout, stderr)
	stdout = out.human
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	if *stageMode {
		res := queuesSeeded(ctx, stdout)
		fmt.Fprintln(stdout, stageLine(res))
		return res.verdict.exitCode()
	}
	progress := stdout
	if *quiet {
		progress = io.Discard
	}
	fmt.Fprintf(stdout, "queues: model at capacities %v, %d sequences x %d steps; stress of %d owner ops at capacities 4 and 256 with 1..3 thieves\n",
		queueCaps, b.seqs, b.steps, b.ownerOps)
	res := checkQueues(ctx, progress, b)
	if why := interrupted(ctx); why != "" && res.verdict == inconclusive {
		res.summary += " (" + why + ")"
	}
	fmt.Fprintf(stdout, "queues: %s: %s\n", res.verdict, res.summary)
	return out.result(res.verdict, res.summary, nil)
}

// queuesMustCatch are the seeded bugs the differential model must catch:
// those a single thread shows. The others break only under concurrency,
// which the stress rarely hits; linearize and interleave must catch them.
var queuesMustCatch = map[impl.Bug]bool{
	impl.BugStealHalfDown: true,
	impl.BugPutSlowDropsG: true,
}

// queuesSeeded is the stage's self-test, in the instrumented build: the
// differential model with each seeded queue bug switched on.
func queuesSeeded(ctx context.Context, log io.Writer) stageResult {
	defer impl.SetSeededBug(impl.NoBug)
	caught, must := 0, 0
	var missed []string
	for _, bug := range impl.Bugs {
		if ctx.Err() != nil {
			return stageResult{verdict: inconclusive, summary: "seeded bugs: cut short"}
		}
		if err := impl.SetSeededBug(bug); err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		res := checkModel(ctx, io.Discard, queueBudget{seqs: 300, steps: 100, seed: 1})
		impl.SetSeededBug(impl.NoBug)
		if queuesMustCatch[bug] {
			must++
		}
		switch res.verdict {
		case fail:
			caught++
			fmt.Fprintf(log, "seeded bug %-22s caught: %s\n", bug, res.summary)
		case inconclusive:
			return stageResult{verdict: inconclusive, summary: "seeded bug " + string(bug) + ": cut short"}
		default:
			fmt.Fprintf(log, "seeded bug %-22s not caught by the sequential model", bug)
			if queuesMustCatch[bug] {
				fmt.Fprintln(log, ": FAIL")
				missed = append(missed, string(bug))
			} else {
				fmt.Fprintln(log, " (a concurrency bug: the lin and interleave stages must catch it)")
			}
		}
	}
	mustCaught := must - len(missed)
	summary := fmt.Sprintf("%d/%d sequential seeded bugs caught (the %d concurrency bugs are linearize's and interleave's)",
		mustCaught, must, len(impl.Bugs)-must)
	if caught > mustCaught {
		summary += fmt.Sprintf("; it also caught %d of those", caught-mustCaught)
	}
	if len(missed) > 0 {
		return stageResult{verdict: fail, seeded: must, caught: mustCaught, summary: summary + "; missed " + strings.Join(missed, ", ")}
	}
	return stageResult{verdict: pass, seeded: must, caught: mustCaught, summary: summary}
}

// checkQueues runs the differential model and the stress at the budget.
func checkQueues(ctx context.Context, log io.Writer, b queueBudget) stageResult {
	res := checkModel(ctx, log, b)
	if res.verdict != pass {
		return res
	}
	st := checkStress(ctx, log, b)
	st.summary = fmt.Sprintf("%d model steps agree with spec; %s", res.steps, st.summary)
	return st
}

// checkModel runs the differential model: b.seqs random sequences of
// b.steps operations at every capacity, against spec/.
func checkModel(ctx context.Context, log io.Writer, b queueBudget) stageResult {
	steps := 0
	for _, c := range queueCaps {
		for s := range b.seqs {
			if ctx.Err() != nil {
				return stageResult{verdict: inconclusive, summary: fmt.Sprintf("cut short after %d model steps", steps)}
			}
			seed := b.seed*1_000_003 + uint64(c)*7919 + uint64(s)
			m, err := queuecheck.NewModel(c)
			if err != nil {
				return stageResult{verdict: fail, summary: err.Error()}
			}
			src := queuecheck.NewRandSource(seed)
			for i := range b.steps {
				name, err := m.Step(src)
				if errors.Is(err, queuecheck.ErrSkip) {
					continue
				}
				steps++
				if err != nil {
					return stageResult{verdict: fail, summary: fmt.Sprintf("cap %d, sequence seed %d, step %d (%s): %v", c, seed, i, name, err)}
				}
			}
		}
		fmt.Fprintf(log, "model cap %d: %d sequences x %d steps agree with spec\n", c, b.seqs, b.steps)
	}
	return stageResult{verdict: pass, steps: steps, summary: fmt.Sprintf("%d model steps agree with spec", steps)}
}

// checkStress runs the conservation stress: capacities 4 and 256, 1..3
// thieves, b.ownerOps owner operations each (also verify -long's stress
// stage, at 10^6).
func checkStress(ctx context.Context, log io.Writer, b queueBudget) stageResult {
	var puts int64
	configs := 0
	for _, c := range []int{4, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			res, err := queuecheck.Stress(ctx, queuecheck.StressConfig{Capacity: c, Thieves: thieves, OwnerOps: b.ownerOps, Seed: b.seed})
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return stageResult{verdict: inconclusive, summary: fmt.Sprintf("stress cut short after %d of 6 configs", configs)}
			}
			if err != nil {
				return stageResult{verdict: fail, summary: fmt.Sprintf("stress cap %d, %d thieves: %v", c, thieves, err)}
			}
			fmt.Fprintf(log, "stress cap %d, %d thieves: %d Gs each taken once (owner %d, thieves %d, global %d, left %d)\n",
				c, thieves, res.Puts, res.OwnerTakes, res.ThiefTakes, res.GlobalTakes, res.LeftOver)
			puts += res.Puts
			configs++
		}
	}
	return stageResult{verdict: pass, summary: fmt.Sprintf("%d Gs conserved over %d stress configs of %d owner operations", puts, configs, b.ownerOps)}
}
