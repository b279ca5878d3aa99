package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/linearize"
)

// lin: linearizability of the real lock-free run queue, checked with
// porcupine on many short recorded rounds (package linearize).

func init() {
	registerCommand(command{
		name:    "lin",
		summary: "check that the real run queue is linearizable (porcupine, recorded owner/thief rounds)",
		run:     runLin,
	})
	registerStage(stage{name: "linearize", order: 30, run: linStage})
}

func runLin(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rc linearize.RunConfig
	fs.IntVar(&rc.Rounds, "rounds", 2000, "rounds to record and check, each on a fresh queue")
	fs.IntVar(&rc.Ops, "ops", 40, "operations per round, shared by the owner and the thieves")
	fs.IntVar(&rc.Thieves, "thieves", 2, fmt.Sprintf("thieves per round, 1..%d", linearize.MaxThieves))
	fs.IntVar(&rc.Capacity, "capacity", 8, "ring capacity: a power of two in 2..256")
	fs.Uint64Var(&rc.Seed, "seed", 1, "seed of the operations' random choices (interleavings are the Go scheduler's)")
	fs.IntVar(&rc.Workers, "workers", 0, "rounds checked in parallel (0: GOMAXPROCS)")
	fs.StringVar(&rc.HTML, "html", "", "where to write the visualization of a violation (default: a file in the temporary directory)")
	fs.BoolVar(&rc.Perturb, "perturb", false, "yield at the queue's atomic accesses to interleave more (needs -tags gmpcheck_hooks)")
	bugName := fs.String("bug", "", "seeded queue bug to switch on (needs -tags gmpcheck_hooks; implies -perturb): "+bugNames())
	timeout := fs.Duration("timeout", 0, "give up after this long and report inconclusive (0: no limit)")
	quiet := fs.Bool("q", false, "no progress lines")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gmpcheck lin [flags]")
		fmt.Fprintln(stderr, "\nRecords rounds of one owner and k thieves on the real lock-free run queue and checks")
		fmt.Fprintln(stderr, "each history with porcupine against the spec/ queues. A violation writes porcupine's HTML")
		fmt.Fprintln(stderr, "visualization. Exit: 0 linearizable, 1 violation, 2 usage, 3 inconclusive (timeout).")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if *timeout < 0 || rc.Workers < 0 {
		fmt.Fprintln(stderr, "lin: -timeout and -workers must be >= 0")
		return exitUsage
	}
	if rc.Rounds < 1 {
		fmt.Fprintln(stderr, "lin: -rounds must be >= 1")
		return exitUsage
	}
	if *bugName != "" {
		bug, err := impl.ParseBug(*bugName)
		if err != nil {
			fmt.Fprintf(stderr, "lin: %v\n", err)
			return exitUsage
		}
		if err := impl.SetSeededBug(bug); err != nil {
			fmt.Fprintf(stderr, "lin: -bug %s: %v\n", bug, err)
			return exitUsage
		}
		defer impl.SetSeededBug(impl.NoBug)
		rc.Perturb = true
	}
	if err := rc.Config.Validate(); err != nil {
		fmt.Fprintf(stderr, "lin: %v\n", err)
		return exitUsage
	}
	ctx, cancel := limitContext(*timeout)
	defer cancel()
	if !*quiet {
		rc.Progress = stdout
	}
	fmt.Fprintf(stdout, "lin: capacity %d, %d thieves, %d rounds of %d ops, seed %d, perturb %v, bug %q\n",
		rc.Capacity, rc.Thieves, rc.Rounds, rc.Ops, rc.Seed, rc.Perturb, impl.ActiveBug())
	rep, err := linearize.Run(ctx, rc)
	if err != nil {
		fmt.Fprintf(stderr, "lin: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "lin: %v\n", rep)
	noteConcurrency(stdout, rep.Ops, rep.Concurrent, rc.Perturb)
	return reportLin(stdout, rep)
}

// reportLin prints the verdict line and returns the exit code.
func reportLin(w io.Writer, rep linearize.Report) int {
	for _, b := range rep.Broken {
		fmt.Fprintf(w, "round %d (seed %d): %v\n", b.Index, b.Seed, b.Err)
	}
	switch {
	case rep.Result == porcupine.Ok:
		fmt.Fprintln(w, "PASS")
		return exitPass
	case rep.Result == porcupine.Illegal:
		fmt.Fprintf(w, "FAIL: round %d (seed %d) is not linearizable\n", rep.FailedRound, rep.FailedSeed)
		if rep.HTML != "" {
			fmt.Fprintf(w, "visualization: %s\n", rep.HTML)
		} else {
			fmt.Fprintf(w, "visualization not written: %v\n", rep.HTMLErr)
		}
		return exitFail
	case len(rep.Broken) > 0:
		fmt.Fprintf(w, "FAIL: the queue hung or panicked in %d rounds\n", len(rep.Broken))
		return exitFail
	}
	fmt.Fprintf(w, "INCONCLUSIVE: cut short after %d of the rounds (timeout)\n", rep.Rounds)
	return exitInconclusive
}

// noteConcurrency warns when few operations overlapped: the verdict is then
// about nearly sequential histories.
func noteConcurrency(w io.Writer, ops, concurrent int, perturbed bool) {
	if ops == 0 || 20*concurrent >= ops {
		return
	}
	fmt.Fprintf(w, "note: only %.1f%% of the operations overlapped another client's: the clients rarely ran in parallel", 100*float64(concurrent)/float64(ops))
	if !perturbed {
		fmt.Fprint(w, " (for more interleavings: build with -tags gmpcheck_hooks and use -perturb)")
	}
	fmt.Fprintln(w)
}

func bugNames() string {
	s := ""
	for i, b := range impl.Bugs {
		if i > 0 {
			s += ", "
		}
		s += string(b)
	}
	return s
}

// linStageBudget bounds the verify stage: it stops, inconclusive, if the
// rounds below take longer (17 s, 25 s with the hooks and seeded bugs, at load
// average 12 on two cores).
const linStageBudget = 50 * time.Second

// linStage checks the model against its hand-written histories, then
// records and checks rounds at capacities 4, 8 and 256 with 1..3 thieves;
// in the instrumented build it also requires every seeded queue bug to be
// found by perturbed rounds.
func linStage(ctx context.Context, log io.Writer) stageResult {
	ctx, cancel := context.WithTimeout(ctx, linStageBudget)
	defer cancel()
	if err := linearize.SelfTest(); err != nil {
		return stageResult{fail, err.Error()}
	}
	fmt.Fprintf(log, "self-test: %d hand-written histories get their verdicts\n", len(linearize.HandWritten()))
	var rounds, overflowed, ops, conc int
	var check time.Duration
	for _, c := range []int{4, 8, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			rc := linearize.RunConfig{
				Config: linearize.Config{Capacity: c, Thieves: thieves, Ops: 40, Perturb: impl.HooksEnabled()},
				Rounds: 5000,
				Seed:   uint64(c*10 + thieves),
			}
			rep, err := linearize.Run(ctx, rc)
			if err != nil {
				return stageResult{fail, err.Error()}
			}
			fmt.Fprintf(log, "cap %d, %d thieves: %v\n", c, thieves, rep)
			rounds, ops, conc, check = rounds+rep.Rounds, ops+rep.Ops, conc+rep.Concurrent, check+rep.CheckTime
			overflowed += rep.Overflowed
			switch {
			case rep.Result == porcupine.Illegal:
				return stageResult{fail, fmt.Sprintf("cap %d, %d thieves: round %d not linearizable; visualization %s", c, thieves, rep.FailedRound, rep.HTML)}
			case len(rep.Broken) > 0:
				return stageResult{fail, fmt.Sprintf("cap %d, %d thieves: round %d: %v", c, thieves, rep.Broken[0].Index, rep.Broken[0].Err)}
			case rep.Result == porcupine.Unknown:
				return stageResult{inconclusive, fmt.Sprintf("cut short at cap %d, %d thieves after %d rounds", c, thieves, rounds)}
			}
		}
	}
	noteConcurrency(log, ops, conc, impl.HooksEnabled())
	summary := fmt.Sprintf("%d rounds (%d overflowed), %d ops (%d concurrent) linearizable, %.0f ops/s checked per core",
		rounds, overflowed, ops, conc, float64(ops)/check.Seconds())
	if !impl.HooksEnabled() {
		return stageResult{pass, summary + "; seeded bugs need -tags gmpcheck_hooks"}
	}
	found := 0
	for _, bug := range impl.Bugs {
		if err := impl.SetSeededBug(bug); err != nil {
			return stageResult{fail, err.Error()}
		}
		rep, err := linearize.Run(ctx, linearize.RunConfig{
			Config: linearize.Config{Capacity: 4, Thieves: 2, Ops: 40, Perturb: true},
			Rounds: linearize.SeededBugRounds,
			Seed:   1,
		})
		impl.SetSeededBug(impl.NoBug)
		if err != nil {
			return stageResult{fail, err.Error()}
		}
		switch {
		case rep.Result == porcupine.Illegal:
			fmt.Fprintf(log, "seeded bug %-22s Illegal in round %d; visualization %s\n", bug, rep.FailedRound, rep.HTML)
			found++
		case len(rep.Broken) > 0:
			fmt.Fprintf(log, "seeded bug %-22s not Illegal, but round %d broke: %v\n", bug, rep.Broken[0].Index, rep.Broken[0].Err)
			return stageResult{fail, "seeded bug " + string(bug) + ": no Illegal history, only a broken round"}
		case rep.Result == porcupine.Unknown:
			return stageResult{inconclusive, "seeded bug " + string(bug) + ": cut short"}
		default:
			return stageResult{fail, "seeded bug " + string(bug) + " not found"}
		}
	}
	return stageResult{pass, fmt.Sprintf("%s; %d/%d seeded bugs Illegal", summary, found, len(impl.Bugs))}
}
