package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/internal/perfetto"
)

func init() {
	registerCommand(command{
		name:    "run",
		summary: "run a workload on the reference G/M/P scheduler (or the GM baseline), with schedtrace",
		run:     runRun,
	})
	registerStage(stage{name: "scheduler", order: 60, run: schedulerStage})
}

// runMaxProcs caps -procs: each P's M is a goroutine with a workload of
// its own, and past a few hundred the run measures the host's scheduler
// more than this one (5000 Ps took 37 s for a 300 ms run).
const runMaxProcs = 256

// runMaxDuration caps -duration.
const runMaxDuration = time.Hour

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", "[-procs n] [-workload w] [-duration d] [-schedtrace d] [-impl gmp|gm] [-queue n] [-lockosthread] [-trace out.json] [-driver n -seed s]",
		"Runs a workload on gmpcheck's scheduler and prints its schedtrace and a summary.\n"+
			"-trace writes the run as a Perfetto/Chrome trace (a track per P and M, a slice per G run).\n"+
			"An interrupt stops the run: it prints what it counted so far and exits 3.")
	procs := fs.Int("procs", 2, fmt.Sprintf("GOMAXPROCS of the scheduler (number of Ps), 1..%d", runMaxProcs))
	workload := fs.String("workload", "mixed", "workload: "+strings.Join(impl.Workloads, ", "))
	duration := fs.Duration("duration", 2*time.Second, fmt.Sprintf("how long to run the workload, 1ms..%v", runMaxDuration))
	schedtrace := fs.Duration("schedtrace", 0, "print a schedtrace line at this interval, >= 1ms (GODEBUG=schedtrace format; gmp only; 0: none)")
	which := fs.String("impl", "gmp", "scheduler: gmp (G/M/P) or gm (the pre-1.1 baseline)")
	queue := fs.Int("queue", impl.DefaultQueueCapacity, "local run queue capacity, a power of two in 2..256 (gmp only)")
	locked := fs.Bool("lockosthread", false, "wire each M to its own OS thread (hand-off shell; gmp only)")
	tracePath := fs.String("trace", "", "write a Chrome/Perfetto trace-event JSON of the run to this file (gmp only; load it in ui.perfetto.dev or chrome://tracing)")
	driverSteps := fs.Int("driver", 0, fmt.Sprintf("instead of a workload, a random walk of this many commands of the deterministic driver, 1..%d (with -trace: one command per millisecond of the timeline; -procs 1..8)", runMaxDriverSteps))
	seed := fs.Uint64("seed", 1, "seed of the -driver walk")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if err := intFlag("procs", *procs, 1, runMaxProcs); err != nil {
		return usageError(stderr, "run", "%v", err)
	}
	if !slices.Contains(impl.Workloads, *workload) {
		return usageError(stderr, "run", "-workload %q: want one of %s", *workload, strings.Join(impl.Workloads, ", "))
	}
	if *duration < time.Millisecond || *duration > runMaxDuration {
		return usageError(stderr, "run", "-duration %v: want 1ms..%v", *duration, runMaxDuration)
	}
	if *schedtrace != 0 && *schedtrace < time.Millisecond {
		return usageError(stderr, "run", "-schedtrace %v: want 0 (none) or >= 1ms", *schedtrace)
	}
	if *queue < 2 || *queue > 256 || *queue&(*queue-1) != 0 {
		return usageError(stderr, "run", "-queue %d: want a power of two in 2..256", *queue)
	}
	switch *which {
	case "gmp":
	case "gm":
		for _, name := range []string{"schedtrace", "queue", "lockosthread", "trace", "driver"} {
			if fs.set(name) {
				return usageError(stderr, "run", "-%s needs -impl gmp (the GM baseline has no Ps, run queues or hand-off)", name)
			}
		}
	default:
		return usageError(stderr, "run", "-impl %q: want gmp or gm", *which)
	}
	if fs.set("driver") {
		if err := intFlag("driver", *driverSteps, 1, runMaxDriverSteps); err != nil {
			return usageError(stderr, "run", "%v", err)
		}
		if *procs > 8 {
			return usageError(stderr, "run", "-driver needs -procs 1..8")
		}
		for _, name := range []string{"workload", "duration", "schedtrace", "lockosthread"} {
			if fs.set(name) {
				return usageError(stderr, "run", "-driver and -%s do not go together", name)
			}
		}
	} else if fs.set("seed") {
		return usageError(stderr, "run", "-seed needs -driver")
	}
	out := newOutput(fs, stdout, stderr)
	stdout = out.human
	if fs.set("driver") {
		return runDriverWalk(out, *procs, *queue, *driverSteps, *seed, *tracePath)
	}
	var rec *perfetto.Recorder
	if *tracePath != "" {
		rec = perfetto.NewRecorder(perfetto.Options{MaxEvents: runTraceMaxEvents})
	}
	var s impl.Scheduler
	var gmp *impl.Sched
	if *which == "gmp" {
		var err error
		cfg := impl.Config{Procs: *procs, QueueCapacity: *queue, PinThreads: *locked,
			SchedTrace: *schedtrace, SchedTraceOut: stdout}
		if rec != nil {
			cfg.Trace = rec.Event
		}
		gmp, err = impl.New(cfg)
		if err != nil {
			return usageError(stderr, "run", "%v", err)
		}
		s = gmp
	} else {
		gm, err := impl.NewGM(*procs)
		if err != nil {
			return usageError(stderr, "run", "%v", err)
		}
		s = gm
	}
	start := time.Now()
	type done struct {
		r   impl.WorkloadResult
		err error
	}
	ch := make(chan done, 1)
	go func() {
		r, err := impl.RunWorkload(s, *workload, *procs, *duration)
		ch <- done{r, err}
	}()
	var d done
	select {
	case d = <-ch:
	case <-ctx.Done():
		// The workload has no cancellation of its own: report what the
		// scheduler counted and leave it to the process's exit.
		el := time.Since(start)
		fmt.Fprintf(stdout, "run: interrupted after %v of %v\n", el.Round(time.Millisecond), *duration)
		fields := map[string]any{"impl": *which, "workload": *workload, "procs": *procs, "seconds": el.Seconds()}
		if gmp != nil {
			st := gmp.Stats()
			fmt.Fprintf(stdout, "so far: spawned=%d exited=%d steals=%d preemptions=%d retakes=%d handoffs=%d Ms=%d\n",
				st.Spawned, st.Exited, st.Steals, st.Preempts, st.Retakes, st.Handoffs, st.Ms)
			fields["spawned"], fields["steals"] = st.Spawned, st.Steals
		}
		out.row("run", fields)
		writeRunTrace(stdout, rec, *tracePath, fmt.Sprintf("gmpcheck run -workload %s -procs %d (interrupted)", *workload, *procs))
		fmt.Fprintln(stdout, "run: INCONCLUSIVE (interrupted)")
		return out.result(inconclusive, "interrupted", nil)
	}
	el := time.Since(start)
	s.Shutdown()
	if d.err != nil {
		fmt.Fprintf(stdout, "run: %v\n", d.err)
		return out.result(fail, d.err.Error(), nil)
	}
	r := d.r
	fmt.Fprintf(stdout, "%s workload=%s procs=%d: %d ops in %v (%.0f ops/s), %d goroutines\n",
		*which, *workload, *procs, r.Ops, el.Round(time.Millisecond), float64(r.Ops)/el.Seconds(), r.Spawned)
	fields := map[string]any{"impl": *which, "workload": *workload, "procs": *procs, "ops": r.Ops,
		"seconds": el.Seconds(), "goroutines": r.Spawned}
	if gmp != nil {
		st := gmp.Stats()
		fmt.Fprintf(stdout, "steals=%d preemptions=%d retakes=%d handoffs=%d Ms=%d\n", st.Steals, st.Preempts, st.Retakes, st.Handoffs, st.Ms)
		fields["steals"], fields["preemptions"], fields["retakes"], fields["handoffs"], fields["ms"] = st.Steals, st.Preempts, st.Retakes, st.Handoffs, st.Ms
	}
	if rec != nil {
		if err := writeRunTrace(stdout, rec, *tracePath, fmt.Sprintf("gmpcheck run -workload %s -procs %d", *workload, *procs)); err != nil {
			return out.result(fail, err.Error(), nil)
		}
		fields["trace"] = *tracePath
	}
	out.row("run", fields)
	return out.result(pass, fmt.Sprintf("%d ops in %v", r.Ops, el.Round(time.Millisecond)), nil)
}

// runMaxDriverSteps caps -driver.
const runMaxDriverSteps = 100000

// runTraceMaxEvents caps a -trace of a workload: past it the trace keeps
// the runs open so far and says how many events it dropped (a 2 s mixed
// run at -procs 4 makes about 250,000).
const runTraceMaxEvents = 2_000_000

// writeRunTrace writes rec's trace to path, if tracing, and says so.
func writeRunTrace(w io.Writer, rec *perfetto.Recorder, path, title string) error {
	if rec == nil {
		return nil
	}
	if err := rec.WriteFile(path, title); err != nil {
		fmt.Fprintf(w, "run: writing the trace: %v\n", err)
		return err
	}
	fmt.Fprintf(w, "trace: %s (load it in ui.perfetto.dev or chrome://tracing)", path)
	if n := rec.Dropped(); n > 0 {
		fmt.Fprintf(w, "; %d events past the first %d were dropped", n, runTraceMaxEvents)
	}
	fmt.Fprintln(w)
	return nil
}

// runDriverWalk is run -driver: a random walk of the deterministic driver,
// the scheduler's real decision code one command at a time.
func runDriverWalk(out *output, procs, queue, steps int, seed uint64, tracePath string) int {
	w := out.human
	rec, n, err := perfetto.DriverTrace(perfetto.DriverConfig{Procs: procs, Steps: steps, Seed: seed, Cap: min(queue, 8)})
	if err != nil {
		fmt.Fprintf(w, "run: %v\n", err)
		return out.result(fail, err.Error(), nil)
	}
	fmt.Fprintf(w, "driver: %d commands of a random walk (seed %d) on %d Ps\n", n, seed, procs)
	fields := map[string]any{"impl": "gmp", "workload": "driver", "procs": procs, "ops": n}
	if tracePath != "" {
		if err := writeRunTrace(w, rec, tracePath, fmt.Sprintf("gmpcheck run -driver %d -seed %d -procs %d", steps, seed, procs)); err != nil {
			return out.result(fail, err.Error(), nil)
		}
		fields["trace"] = tracePath
	}
	out.row("run", fields)
	return out.result(pass, fmt.Sprintf("%d driver commands", n), nil)
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
		if err := impl.CheckAgainstSpec(r, 200); err != nil {
			fmt.Fprintf(log, "driver diverges from spec: %v\n", err)
			return stageResult{verdict: fail, summary: "driver diverges from the spec"}
		}
		traces++
	}
	fmt.Fprintf(log, "driver vs spec: %d random traces of up to 200 actions agree\n", traces)
	// 2. Each seeded bug must be caught (the bugs live in the instrumented
	// build: 'gmpcheck driver -stage' there).
	var seeded stageResult
	if impl.HooksEnabled() {
		seeded = driverSeeded(ctx, log)
	} else {
		seeded = hookedStage(ctx, log, "driver")
	}
	if seeded.verdict != pass {
		return seeded
	}
	// 3. Deadlock detection bites.
	s, err := impl.New(impl.Config{Procs: 2})
	if err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	s.Go(func(tk impl.Task) { tk.Park("forever") })
	err = s.Wait()
	s.Shutdown()
	if !errors.Is(err, impl.ErrDeadlock) {
		return stageResult{verdict: fail, summary: fmt.Sprintf("deadlock not reported: Wait = %v", err)}
	}
	// 4. Real goroutines: the mixed workload.
	var ops int64
	for _, procs := range []int{1, 2, 4, 8} {
		left := time.Until(end)
		if cut() || left < 500*time.Millisecond {
			return stageResult{verdict: inconclusive, summary: fmt.Sprintf("cut short after %d traces and %d workload ops", traces, ops)}
		}
		d := min(2*time.Second, left/4)
		s, err := impl.New(impl.Config{Procs: procs, QueueCapacity: 8})
		if err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		res, err := impl.RunWorkload(s, "mixed", procs, d)
		st := s.Stats()
		live := s.Live()
		s.Shutdown()
		if err != nil || live != 0 || st.Spawned != st.Exited {
			fmt.Fprintf(log, "procs=%d: err=%v live=%d spawned=%d exited=%d\n", procs, err, live, st.Spawned, st.Exited)
			return stageResult{verdict: fail, summary: fmt.Sprintf("mixed workload at procs=%d lost or leaked Gs", procs)}
		}
		ops += res.Ops
		fmt.Fprintf(log, "procs=%d: %d ops, %d Gs spawned and exited, %d steals, %d preemptions, %d retakes\n",
			procs, res.Ops, st.Spawned, st.Steals, st.Preempts, st.Retakes)
	}
	return stageResult{verdict: pass, seeded: seeded.seeded, caught: seeded.caught,
		summary: fmt.Sprintf("%d driver traces = spec, %d/%d seeded bugs caught, deadlock reported, %d workload ops conserved", traces, seeded.caught, seeded.seeded, ops)}
}
