package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
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

func runLin(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("lin", "[flags]",
		`Records rounds of one owner and k thieves on the real lock-free run queue and checks
each history with porcupine against the spec/ queues. A violation writes porcupine's HTML
visualization. With -bug the seeded bug must be caught (exit 0 caught, 1 missed); a
default-build binary builds the instrumented one for it and re-runs.`)
	var rc linearize.RunConfig
	fs.IntVar(&rc.Rounds, "rounds", 2000, fmt.Sprintf("rounds to record and check, each on a fresh queue, >= 1 (with -bug the default is %d)", linearize.SeededBugRounds))
	fs.IntVar(&rc.Ops, "ops", 40, "operations per round, shared by the owner and the thieves, >= 1")
	fs.IntVar(&rc.Thieves, "thieves", 2, fmt.Sprintf("thieves per round, 1..%d", linearize.MaxThieves))
	fs.IntVar(&rc.Capacity, "capacity", 8, "ring capacity: a power of two in 2..256 (with -bug the default is 4)")
	fs.Uint64Var(&rc.Seed, "seed", 1, "seed of the operations' random choices (interleavings are the Go scheduler's)")
	fs.IntVar(&rc.Workers, "workers", 0, "rounds checked in parallel, >= 0 (0: GOMAXPROCS)")
	fs.StringVar(&rc.HTML, "html", "", "where to write the visualization of a violation (default: a file in the temporary directory, kept only when the command fails)")
	fs.BoolVar(&rc.Perturb, "perturb", false, "yield at the queue's atomic accesses to interleave more (instrumented build)")
	bugName := fs.String("bug", "", "seeded queue bug to switch on, which must be caught (implies -perturb): "+bugNames())
	fs.addTimeout(0, "time limit")
	quiet := fs.Bool("q", false, "no progress lines")
	stageMode := fs.Bool("stage", false, "run verify's seeded-bug self-test (instrumented build)")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	for _, e := range []error{
		intFlag("rounds", rc.Rounds, 1, math.MaxInt32),
		intFlag("ops", rc.Ops, 1, math.MaxInt32),
		intFlag("thieves", rc.Thieves, 1, linearize.MaxThieves),
		intFlag("workers", rc.Workers, 0, 1024),
	} {
		if e != nil {
			return usageError(stderr, "lin", "%v", e)
		}
	}
	if rc.Capacity < 2 || rc.Capacity > 256 || rc.Capacity&(rc.Capacity-1) != 0 {
		return usageError(stderr, "lin", "-capacity %d: want a power of two in 2..256", rc.Capacity)
	}
	if *stageMode && (*bugName != "" || fs.set("rounds") || fs.set("html")) {
		return usageError(stderr, "lin", "-stage takes no -bug, -rounds or -html")
	}
	var bug impl.Bug
	if *bugName != "" {
		var err error
		if bug, err = impl.ParseBug(*bugName); err != nil {
			return usageError(stderr, "lin", "-bug: %v", err)
		}
		if !fs.set("rounds") {
			rc.Rounds = linearize.SeededBugRounds
		}
		if !fs.set("capacity") {
			rc.Capacity = 4
		}
		rc.Perturb = true
	}
	if (rc.Perturb || *stageMode) && !impl.HooksEnabled() {
		// The yield points and seeded bugs exist only in the instrumented build.
		return runHooked(ctx, "lin", args, stdout, stderr)
	}
	if err := rc.Config.Validate(); err != nil {
		return usageError(stderr, "lin", "%v", err)
	}
	out := newOutput(fs, stdout, stderr)
	stdout = out.human
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	if *stageMode {
		res := linSeeded(ctx, stdout)
		fmt.Fprintln(stdout, stageLine(res))
		return res.verdict.exitCode()
	}
	if bug != impl.NoBug {
		if err := impl.SetSeededBug(bug); err != nil {
			return usageError(stderr, "lin", "-bug %s: %v", bug, err)
		}
		defer impl.SetSeededBug(impl.NoBug)
	}
	if !*quiet {
		rc.Progress = stdout
	}
	fmt.Fprintf(stdout, "lin: capacity %d, %d thieves, %d rounds of %d ops, seed %d, perturb %v, bug %q\n",
		rc.Capacity, rc.Thieves, rc.Rounds, rc.Ops, rc.Seed, rc.Perturb, impl.ActiveBug())
	rep, err := linearize.Run(ctx, rc)
	if err != nil {
		fmt.Fprintf(stderr, "lin: %v\n", err)
		return out.result(fail, err.Error(), nil)
	}
	fmt.Fprintf(stdout, "lin: %v\n", rep)
	noteConcurrency(stdout, rep.Ops, rep.Concurrent, rc.Perturb)
	v := reportLin(stdout, ctx, rep)
	if bug != impl.NoBug && !fs.set("html") && rep.HTML != "" {
		// The violation was the expected outcome and the command passes:
		// the page in the temporary directory is kept only when asked for.
		removeVisualization(stdout, rep.HTML)
		rep.HTML = ""
	}
	out.row("lin", map[string]any{"rounds": rep.Rounds, "ops": rep.Ops, "concurrent": rep.Concurrent,
		"overflowed": rep.Overflowed, "result": fmt.Sprint(rep.Result), "html": rep.HTML})
	if bug != impl.NoBug {
		return reportSeeded(out, "lin", string(bug), v, fmt.Sprintf("%d rounds", rep.Rounds))
	}
	return out.result(v, fmt.Sprintf("%d rounds", rep.Rounds), nil)
}

// reportLin prints the verdict line and returns the verdict.
func reportLin(w io.Writer, ctx context.Context, rep linearize.Report) verdict {
	for _, b := range rep.Broken {
		fmt.Fprintf(w, "round %d (seed %d): %v\n", b.Index, b.Seed, b.Err)
	}
	switch {
	case rep.Result == porcupine.Ok:
		fmt.Fprintln(w, "PASS")
		return pass
	case rep.Result == porcupine.Illegal:
		fmt.Fprintf(w, "FAIL: round %d (seed %d) is not linearizable\n", rep.FailedRound, rep.FailedSeed)
		if rep.HTML != "" {
			fmt.Fprintf(w, "visualization: %s\n", rep.HTML)
		} else {
			fmt.Fprintf(w, "visualization not written: %v\n", rep.HTMLErr)
		}
		return fail
	case len(rep.Broken) > 0:
		fmt.Fprintf(w, "FAIL: the queue hung or panicked in %d rounds\n", len(rep.Broken))
		return fail
	}
	why := interrupted(ctx)
	if why == "" {
		why = "time limit reached"
	}
	fmt.Fprintf(w, "INCONCLUSIVE: cut short after %d of the rounds (%s)\n", rep.Rounds, why)
	return inconclusive
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

// removeVisualization removes the page a passing -bug run wrote into the
// temporary directory and says how to keep it.
func removeVisualization(w io.Writer, path string) {
	if err := os.Remove(path); err != nil {
		fmt.Fprintf(w, "visualization left at %s (%v)\n", path, err)
		return
	}
	fmt.Fprintf(w, "visualization removed (the violation was the seeded bug's; -html FILE keeps it)\n")
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
		return stageResult{verdict: fail, summary: err.Error()}
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
				return stageResult{verdict: fail, summary: err.Error()}
			}
			fmt.Fprintf(log, "cap %d, %d thieves: %v\n", c, thieves, rep)
			rounds, ops, conc, check = rounds+rep.Rounds, ops+rep.Ops, conc+rep.Concurrent, check+rep.CheckTime
			overflowed += rep.Overflowed
			switch {
			case rep.Result == porcupine.Illegal:
				return stageResult{verdict: fail, summary: fmt.Sprintf("cap %d, %d thieves: round %d not linearizable; visualization %s", c, thieves, rep.FailedRound, rep.HTML)}
			case len(rep.Broken) > 0:
				return stageResult{verdict: fail, summary: fmt.Sprintf("cap %d, %d thieves: round %d: %v", c, thieves, rep.Broken[0].Index, rep.Broken[0].Err)}
			case rep.Result == porcupine.Unknown:
				return stageResult{verdict: inconclusive, summary: fmt.Sprintf("cut short at cap %d, %d thieves after %d rounds", c, thieves, rounds)}
			}
		}
	}
	noteConcurrency(log, ops, conc, impl.HooksEnabled())
	summary := fmt.Sprintf("%d rounds (%d overflowed), %d ops (%d concurrent) linearizable, %.0f ops/s checked per core",
		rounds, overflowed, ops, conc, float64(ops)/check.Seconds())
	var seeded stageResult
	if impl.HooksEnabled() {
		seeded = linSeeded(ctx, log)
	} else {
		seeded = hookedStage(ctx, log, "lin")
	}
	seeded.summary = summary + "; " + seeded.summary
	return seeded
}

// linSeeded is the stage's self-test, in the instrumented build: every
// seeded queue bug must give an Illegal history in perturbed rounds.
func linSeeded(ctx context.Context, log io.Writer) stageResult {
	found := 0
	for _, bug := range impl.Bugs {
		if err := impl.SetSeededBug(bug); err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		rep, err := linearize.Run(ctx, linearize.RunConfig{
			Config: linearize.Config{Capacity: 4, Thieves: 2, Ops: 40, Perturb: true},
			Rounds: linearize.SeededBugRounds,
			Seed:   1,
		})
		impl.SetSeededBug(impl.NoBug)
		if err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		switch {
		case rep.Result == porcupine.Illegal:
			fmt.Fprintf(log, "seeded bug %-22s Illegal in round %d\n", bug, rep.FailedRound)
			if rep.HTML != "" {
				os.Remove(rep.HTML) // the expected outcome: not worth a file left behind
			}
			found++
		case len(rep.Broken) > 0:
			fmt.Fprintf(log, "seeded bug %-22s not Illegal, but round %d broke: %v\n", bug, rep.Broken[0].Index, rep.Broken[0].Err)
			return stageResult{verdict: fail, summary: "seeded bug " + string(bug) + ": no Illegal history, only a broken round"}
		case rep.Result == porcupine.Unknown:
			return stageResult{verdict: inconclusive, summary: "seeded bug " + string(bug) + ": cut short"}
		default:
			return stageResult{verdict: fail, summary: "seeded bug " + string(bug) + " not found"}
		}
	}
	return stageResult{verdict: pass, seeded: len(impl.Bugs), caught: found,
		summary: fmt.Sprintf("%d/%d seeded bugs Illegal", found, len(impl.Bugs))}
}
