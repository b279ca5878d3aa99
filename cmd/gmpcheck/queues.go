package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

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
			return checkQueues(ctx, log, queueBudget{seqs: 300, steps: 100, ownerOps: 300_000, seed: 1})
		},
	})
}

func runQueues(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("queues", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var b queueBudget
	fs.IntVar(&b.seqs, "seqs", 1000, "random operation sequences per capacity for the differential model")
	fs.IntVar(&b.steps, "steps", 100, "operations per sequence")
	fs.IntVar(&b.ownerOps, "ops", 1_000_000, "owner operations per stress configuration (capacities 4 and 256, 1..3 thieves)")
	fs.Uint64Var(&b.seed, "seed", 1, "seed of the random choices")
	timeout := fs.Duration("timeout", 0, "give up after this long and report inconclusive (0: no limit)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gmpcheck queues [flags]")
		fmt.Fprintln(stderr, "\nDrives the real run queues against spec/ (capacities 2, 4, 8, 256), then stresses one")
		fmt.Fprintln(stderr, "owner against 1..3 thieves and checks that every G is taken exactly once.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 || b.seqs < 0 || b.steps < 1 || b.ownerOps < 1 {
		fmt.Fprintln(stderr, "queues: -seqs must be >= 0, -steps and -ops >= 1, and no arguments")
		return exitUsage
	}
	ctx, cancel := limitContext(*timeout)
	defer cancel()
	res := checkQueues(ctx, stdout, b)
	fmt.Fprintf(stdout, "queues: %s: %s\n", res.verdict, res.summary)
	return res.verdict.exitCode()
}

// checkQueues runs the differential model and the stress at the budget.
func checkQueues(ctx context.Context, log io.Writer, b queueBudget) stageResult {
	steps := 0
	for _, c := range queueCaps {
		for s := range b.seqs {
			if ctx.Err() != nil {
				return stageResult{inconclusive, fmt.Sprintf("cut short after %d model steps", steps)}
			}
			seed := b.seed*1_000_003 + uint64(c)*7919 + uint64(s)
			m, err := queuecheck.NewModel(c)
			if err != nil {
				return stageResult{fail, err.Error()}
			}
			src := queuecheck.NewRandSource(seed)
			for i := range b.steps {
				name, err := m.Step(src)
				if errors.Is(err, queuecheck.ErrSkip) {
					continue
				}
				steps++
				if err != nil {
					return stageResult{fail, fmt.Sprintf("cap %d, sequence seed %d, step %d (%s): %v", c, seed, i, name, err)}
				}
			}
		}
		fmt.Fprintf(log, "model cap %d: %d sequences x %d steps agree with spec\n", c, b.seqs, b.steps)
	}
	var puts int64
	configs := 0
	for _, c := range []int{4, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			res, err := queuecheck.Stress(ctx, queuecheck.StressConfig{Capacity: c, Thieves: thieves, OwnerOps: b.ownerOps, Seed: b.seed})
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return stageResult{inconclusive, fmt.Sprintf("stress cut short (model: %d steps agreed)", steps)}
			}
			if err != nil {
				return stageResult{fail, fmt.Sprintf("stress cap %d, %d thieves: %v", c, thieves, err)}
			}
			fmt.Fprintf(log, "stress cap %d, %d thieves: %d Gs each taken once (owner %d, thieves %d, global %d, left %d)\n",
				c, thieves, res.Puts, res.OwnerTakes, res.ThiefTakes, res.GlobalTakes, res.LeftOver)
			puts += res.Puts
			configs++
		}
	}
	return stageResult{pass, fmt.Sprintf("%d model steps agree with spec; %d Gs conserved over %d stress configs", steps, puts, configs)}
}
