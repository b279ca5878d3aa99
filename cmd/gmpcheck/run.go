package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

func init() {
	registerCommand(command{
		name:    "run",
		summary: "run a workload on the reference G/M/P scheduler (or the GM baseline), with schedtrace",
		run:     runRun,
	})
	registerStage(stage{name: "scheduler", order: 60, run: schedulerStage})
}

func runRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	procs := fs.Int("procs", 2, "GOMAXPROCS of the scheduler (number of Ps)")
	workload := fs.String("workload", "mixed", "workload: "+strings.Join(impl.Workloads, ", "))
	duration := fs.Duration("duration", 2*time.Second, "how long to run the workload")
	schedtrace := fs.Duration("schedtrace", 0, "print a schedtrace line at this interval (GODEBUG=schedtrace format; gmp only)")
	which := fs.String("impl", "gmp", "scheduler: gmp (G/M/P) or gm (the pre-1.1 baseline)")
	queue := fs.Int("queue", impl.DefaultQueueCapacity, "local run queue capacity (power of two, 2..256)")
	locked := fs.Bool("lockosthread", false, "wire each M to its own OS thread (hand-off shell)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gmpcheck run [-procs n] [-workload w] [-duration d] [-schedtrace d] [-impl gmp|gm] [-queue n] [-lockosthread]")
		fmt.Fprintln(stderr, "\nRuns a workload on gmpcheck's scheduler and prints its schedtrace and a summary.")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if !slices.Contains(impl.Workloads, *workload) {
		fmt.Fprintf(stderr, "run: unknown workload %q (want one of %s)\n", *workload, strings.Join(impl.Workloads, ", "))
		return exitUsage
	}
	if *duration <= 0 || *schedtrace < 0 {
		fmt.Fprintln(stderr, "run: -duration must be positive and -schedtrace non-negative")
		return exitUsage
	}
	var s impl.Scheduler
	var gmp *impl.Sched
	switch *which {
	case "gmp":
		var err error
		gmp, err = impl.New(impl.Config{Procs: *procs, QueueCapacity: *queue, LockOSThread: *locked,
			SchedTrace: *schedtrace, SchedTraceOut: stdout})
		if err != nil {
			fmt.Fprintf(stderr, "run: %v\n", err)
			return exitUsage
		}
		s = gmp
	case "gm":
		if *schedtrace > 0 {
			fmt.Fprintln(stderr, "run: -schedtrace needs -impl gmp (GM has no Ps to trace)")
			return exitUsage
		}
		gm, err := impl.NewGM(*procs)
		if err != nil {
			fmt.Fprintf(stderr, "run: %v\n", err)
			return exitUsage
		}
		s = gm
	default:
		fmt.Fprintf(stderr, "run: unknown -impl %q (want gmp or gm)\n", *which)
		return exitUsage
	}
	start := time.Now()
	r, err := impl.RunWorkload(s, *workload, *procs, *duration)
	el := time.Since(start)
	s.Shutdown()
	if err != nil {
		fmt.Fprintf(stdout, "run: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stdout, "%s workload=%s procs=%d: %d ops in %v (%.0f ops/s), %d goroutines\n",
		*which, *workload, *procs, r.Ops, el.Round(time.Millisecond), float64(r.Ops)/el.Seconds(), r.Spawned)
	if gmp != nil {
		st := gmp.Stats()
		fmt.Fprintf(stdout, "steals=%d preemptions=%d retakes=%d handoffs=%d Ms=%d\n", st.Steals, st.Preempts, st.Retakes, st.Handoffs, st.Ms)
	}
	return exitPass
}

// schedulerStage checks the reference scheduler: random traces of the
// Driver against the spec (and each seeded bug must be caught), the mixed
// workload on real goroutines at several Procs with conservation of Gs,
// and deadlock detection.
func schedulerStage(ctx context.Context, log io.Writer) stageResult {
	deadline, ok := ctx.Deadline()
	budget := 30 * time.Second
	if ok {
		budget = min(budget, time.Until(deadline))
	}
	end := time.Now().Add(budget)
	cut := func() bool { return ctx.Err() != nil || time.Now().After(end) }

	// 1. The Driver against the spec.
	r := impl.RandChooser(rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1)))
	traces := 0
	specEnd := time.Now().Add(budget / 3)
	for time.Now().Before(specEnd) && !cut() {
		if err := impl.CheckAgainstSpec(r, spec.BugNone, 200); err != nil {
			fmt.Fprintf(log, "driver diverges from spec: %v\n", err)
			return stageResult{fail, "driver diverges from the spec"}
		}
		traces++
	}
	fmt.Fprintf(log, "driver vs spec: %d random traces of up to 200 actions agree\n", traces)
	// 2. Each seeded bug must be caught.
	for _, bug := range spec.Bugs() {
		caught := false
		c := impl.RandChooser(rand.New(rand.NewPCG(3, uint64(bug))))
		for i := 0; i < 5000 && !caught; i++ {
			if cut() {
				return stageResult{inconclusive, "cut short during the seeded-bug self-test"}
			}
			caught = impl.CheckAgainstSpec(c, bug, 80) != nil
		}
		if !caught {
			fmt.Fprintf(log, "seeded bug %v not caught\n", bug)
			return stageResult{fail, fmt.Sprintf("seeded bug %v not caught", bug)}
		}
	}
	fmt.Fprintf(log, "seeded bugs caught: %d/%d\n", len(spec.Bugs()), len(spec.Bugs()))
	// 3. Deadlock detection bites.
	s, err := impl.New(impl.Config{Procs: 2})
	if err != nil {
		return stageResult{fail, err.Error()}
	}
	s.Go(func(tk impl.Task) { tk.Park("forever") })
	err = s.Wait()
	s.Shutdown()
	if !errors.Is(err, impl.ErrDeadlock) {
		return stageResult{fail, fmt.Sprintf("deadlock not reported: Wait = %v", err)}
	}
	// 4. Real goroutines: the mixed workload.
	var ops int64
	for _, procs := range []int{1, 2, 4, 8} {
		left := time.Until(end)
		if cut() || left < 500*time.Millisecond {
			return stageResult{inconclusive, fmt.Sprintf("cut short after %d traces and %d workload ops", traces, ops)}
		}
		d := min(2*time.Second, left/4)
		s, err := impl.New(impl.Config{Procs: procs, QueueCapacity: 8})
		if err != nil {
			return stageResult{fail, err.Error()}
		}
		res, err := impl.RunWorkload(s, "mixed", procs, d)
		st := s.Stats()
		live := s.Live()
		s.Shutdown()
		if err != nil || live != 0 || st.Spawned != st.Exited {
			fmt.Fprintf(log, "procs=%d: err=%v live=%d spawned=%d exited=%d\n", procs, err, live, st.Spawned, st.Exited)
			return stageResult{fail, fmt.Sprintf("mixed workload at procs=%d lost or leaked Gs", procs)}
		}
		ops += res.Ops
		fmt.Fprintf(log, "procs=%d: %d ops, %d Gs spawned and exited, %d steals, %d preemptions, %d retakes\n",
			procs, res.Ops, st.Spawned, st.Steals, st.Preempts, st.Retakes)
	}
	return stageResult{pass, fmt.Sprintf("%d driver traces = spec, %d seeded bugs caught, deadlock reported, %d workload ops conserved", traces, len(spec.Bugs()), ops)}
}
