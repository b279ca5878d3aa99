package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/viz"
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
	fs.IntVar(&b.Ms, "ms", 3, fmt.Sprintf("number of M slots, ps..%d (0: Ps+Gs, at most %d)", spec.MaxMs, spec.MaxMs))
	fs.IntVar(&b.Gs, "gs", 2, fmt.Sprintf("number of G slots, 1..%d", spec.MaxGs))
	fs.IntVar(&b.Cap, "cap", 2, fmt.Sprintf("local run queue capacity, a power of two in 2..%d", spec.MaxCap))
	fs.IntVar(&b.Spawn, "spawn", 1, fmt.Sprintf("NewProc budget, 0..%d", spec.MaxSpawn))
	fs.IntVar(&b.SchedTick, "tick", 2, fmt.Sprintf("period of the global-queue check, 1..%d (the runtime's is %d)", spec.RuntimeSchedTick, spec.RuntimeSchedTick))
	fs.BoolVar(&b.Syscalls, "syscalls", true, "model syscalls and sysmon retake")
	fs.BoolVar(&b.Netpoll, "netpoll", false, "model netpoll as an external source of ready Gs")
	fs.BoolVar(&b.InjectList, "injectlist", false, "let findRunnable's netpoll return two Gs, the second injected by injectglist with the M's P (needs -netpoll and -gs >= 2)")
	fs.BoolVar(&b.SyscallBlock, "syscallblock", false, "let a running G enter a system call known to block (entersyscallblock: its M hands the P off at once)")
	fs.BoolVar(&b.LockOSThread, "lockosthread", false, "let a running G lock and unlock its M (LockOSThread: startlockedm, stoplockedm, a locked G's exit ending its M)")
	fs.BoolVar(&b.STW, "stw", false, "add one stop-the-world (gcwaiting, gcstopm, handoffp and entersyscall stopping Ps, startTheWorld and its wakep)")
	fs.BoolVar(&b.ProcResize, "procresize", false, "let the stop-the-world change GOMAXPROCS by one (procresize; needs -stw)")
	fs.BoolVar(&b.PollBlock, "pollblock", false, "let an M with no P and no work block in netpoll (sched.lastpoll, netpollBreak, handoffp's last-P clause; needs -netpoll)")
	fs.IntVar(&b.Timers, "timers", 0, "let a running G sleep 1..n ticks on a timer (checkTimers, stealWork's timers, checkTimersNoP, wakeNetPoller, the clock's TimerTick; needs -pollblock; with -stw -procresize, procresize moves a destroyed P's timers)")
	fs.BoolVar(&b.Goyield, "goyield", false, "the running G may goyield (the runtime's own yield: its P's ring tail, no wakep)")
	fs.BoolVar(&b.NoPark, "no-park", false, "goroutines spawn, yield and exit but never park (the workload of golang/go#13546; leaves out the runnext ping-pong of #52934)")
	goVersion := fs.String("go", spec.Go126.String(), "the runtime release whose scheduler the model follows (docs/versions.md): "+specGoVersions())
	threadLimit := fs.Bool("thread-limit", false, "take -ms as the runtime's thread limit: a startm past it is fatal thread exhaustion, so a liveness pass is conclusive for that limit (without it, a liveness pass on a graph the M bound cut is inconclusive)")
	bugName := fs.String("bug", "none", "seeded bug variant, which must be caught: none, "+specBugNames())
	liveness := fs.Bool("liveness", true, "check work conservation and global-queue starvation on the graph")
	localStarve := fs.Bool("local-starvation", false, "also check liveness (c): no G stays in the local run queues forever (not a default check: Go 1.26 fails it, golang/go#52934; docs/spec.md)")
	maxStates := fs.Int("max-states", 0, "stop after this many distinct states (0: no limit; a cut-short run is inconclusive)")
	workers := fs.Int("workers", 0, "goroutines expanding states (0: GOMAXPROCS); counts and traces are the same for any number")
	symmetry := fs.Bool("symmetry", false, "explore the quotient by permutations of M identities (states are orbits; liveness stays exact, docs/spec.md)")
	gsymmetry := fs.Bool("gsymmetry", false, "permute G identities as well as Ms (liveness checks starvation of some G on (state, tracked G) pairs)")
	psymmetry := fs.Bool("psymmetry", false, "permute P identities as well as Ms (and Gs with -gsymmetry); not with -stw, whose restart names Ps by position (docs/spec.md)")
	fingerprint := fs.Bool("fingerprint", false, "keep a 64-bit fingerprint per state instead of its key (the collision probability is reported; liveness needs -exact)")
	exact := fs.Bool("exact", false, "keep every state's full key (the default; the opposite of -fingerprint)")
	maxMemory := fs.String("max-memory", "0", "bound on the explorer's own memory, e.g. 2GiB, 512MiB (0: none); past it the run is inconclusive. The Go collector's soft limit is set an eighth and 256 MiB above it")
	all := fs.Bool("all", false, "continue past the first violation; violations are grouped by property")
	htmlFile := fs.String("html", "", "on a violation, write the counterexample as a self-contained HTML page to this file (docs/pictures.md)")
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
	if b.Go, err = spec.ParseGoVersion(*goVersion); err != nil {
		return usageError(stderr, "explore", "-go: %v", err)
	}
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
	if *fingerprint && *exact {
		return usageError(stderr, "explore", "-fingerprint and -exact exclude each other")
	}
	if *workers < 0 {
		return usageError(stderr, "explore", "-workers %d: want 0 (GOMAXPROCS) or more", *workers)
	}
	memBound, err := parseBytes(*maxMemory)
	if err != nil {
		return usageError(stderr, "explore", "-max-memory: %v", err)
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
	opt := spec.Options{Liveness: *liveness, MaxStates: *maxStates, ThreadLimit: *threadLimit,
		Workers: *workers, Symmetry: *symmetry, GSymmetry: *gsymmetry, PSymmetry: *psymmetry, Fingerprint: *fingerprint, MaxMemory: memBound, All: *all,
		LocalStarvation: *localStarve}
	if !*quiet {
		opt.Progress = stdout
	}
	fmt.Fprintf(stdout, "explore: %v\n", b)
	defer limitHeap(memBound)()
	r, err := spec.Explore(ctx, b, opt)
	if err != nil {
		return usageError(stderr, "explore", "%v", err)
	}
	v := reportExplore(stdout, ctx, r)
	if *htmlFile != "" && r.Violation != nil {
		if err := viz.WriteFile(*htmlFile, viz.Page{Title: "gmpcheck explore: " + r.Violation.Kind.String(), Bounds: b, Violation: r.Violation}); err != nil {
			return usageError(stderr, "explore", "-html: %v", err)
		}
		fmt.Fprintf(stdout, "counterexample picture: %s\n", *htmlFile)
	}
	fields := map[string]any{"bounds": b.String(), "states": r.Distinct, "transitions": r.Transitions, "depth": r.Depth, "complete": r.Complete}
	if r.Violation != nil {
		fields["violation"] = r.Violation.Kind.String()
		fields["trace_steps"] = r.Violation.Trace.Len()
	}
	fields["workers"], fields["symmetry"], fields["gsymmetry"], fields["fingerprint"] = r.Workers, r.Symmetry, r.GSymmetry, r.Fingerprint
	fields["psymmetry"] = r.PSymmetry
	fields["states_per_sec"], fields["bytes_per_state"], fields["memory_cut"] = r.StatesPerSec(), r.BytesPerState(), r.MemoryCut
	fields["liveness"], fields["liveness_partial"] = r.Liveness, r.LivenessPartial
	if r.Fingerprint {
		fields["fp_collision"] = r.FPCollision
	}
	if len(r.Violations) > 0 {
		groups := map[string]int{}
		for _, g := range r.Violations {
			groups[g.Key] = g.Count
		}
		fields["violations"] = groups
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

func specGoVersions() string {
	var names []string
	for v := spec.Go126; ; v++ {
		if _, err := spec.ParseGoVersion(v.String()); err != nil {
			break
		}
		names = append(names, v.String())
	}
	return strings.Join(names, ", ")
}

func specBugNames() string {
	join := func(bugs []spec.Bug) string {
		var names []string
		for _, b := range bugs {
			names = append(names, b.String())
		}
		return strings.Join(names, ", ")
	}
	return join(spec.Bugs()) + "; with -stw: " + join(spec.STWBugs()) +
		"; with -pollblock (timers-not-stolen also -timers): " + join(spec.PollBugs())
}

// parseBytes reads a size: a number of bytes with an optional KiB, MiB,
// GiB (or KB, MB, GB, also powers of 1024) suffix.
func parseBytes(v string) (uint64, error) {
	units := []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := uint64(1)
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil || n > math.MaxUint64/mult {
		return 0, fmt.Errorf("%q: want a size such as 2GiB, 512MiB or 1000000", v)
	}
	return n * mult, nil
}

func reportExplore(w io.Writer, ctx context.Context, r spec.Result) verdict {
	fmt.Fprintf(w, "explore: %v\n", r)
	for _, g := range r.Violations {
		fmt.Fprintf(w, "violations of %s: %d (first: %d steps)\n", g.Key, g.Count, g.First.Trace.Len())
	}
	switch {
	case r.Violation != nil:
		fmt.Fprintf(w, "VIOLATION (%d steps) %v\n", r.Violation.Trace.Len(), r.Violation)
		return fail
	case r.LivenessCut():
		fmt.Fprintf(w, "INCONCLUSIVE: no violation in %d states, but the M bound cut %d transitions where the runtime would create an M (newm); a lost wakeup needing one more M could hide there: raise -ms, or pass -thread-limit to check the runtime with that thread limit\n", r.Distinct, r.Pruned)
		return inconclusive
	case r.MemoryCut:
		fmt.Fprintf(w, "INCONCLUSIVE: the explorer reached -max-memory after %d states\n", r.Distinct)
		return inconclusive
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

// exploreStage: the verify bound of the real algorithm (Go 1.26) with
// liveness, Ms taken as the thread limit, plain and with the mechanisms
// behind bound flags; the go1.19, go1.21 and go1.22 variants, which must
// lose a wakeup (golang/go#45867, #55160, #63555); then
// every seeded bug
// on the small bound that exposes it, each of which must be found with the
// expected property and trace length.
func exploreStage(ctx context.Context, log io.Writer) stageResult {
	b := spec.VerifyBounds()
	opt := spec.Options{Liveness: true, ThreadLimit: true}
	fmt.Fprintf(log, "real algorithm: %v (Ms is the thread limit)\n", b)
	r, err := spec.Explore(ctx, b, opt)
	if err != nil {
		return stageResult{verdict: fail, summary: err.Error()}
	}
	fmt.Fprintf(log, "%v\n", r)
	if r.Violation != nil {
		fmt.Fprintf(log, "%v\n", r.Violation)
		return stageResult{verdict: fail, summary: "violation: " + r.Violation.Kind.String()}
	}
	if r.Verdict() != "pass" {
		return stageResult{verdict: inconclusive, summary: fmt.Sprintf("cut short after %d states", r.Distinct)}
	}
	// The mechanisms behind a bound flag, each on the same bound: injectglist
	// with a P (netpoll's list of two, without syscalls; go1.22 below loses
	// a wakeup there), and LockOSThread with entersyscallblock. go1.26
	// must pass them too.
	inj := b
	inj.Syscalls, inj.InjectList = false, true
	locked := b
	locked.LockOSThread, locked.SyscallBlock = true, true
	// Stop-the-world (with syscalls and netpoll) is explored on M orbits:
	// 1.2M of them instead of 7.0M states (the liveness checks stay
	// exact; docs/spec.md, "Symmetry").
	stw := b
	stw.STW = true
	// The M blocked in netpoll (findRunnable's blocking poll, netpollBreak,
	// handoffp's last-P clause), also on M orbits: work conservation and
	// (f), the network is watched.
	poll := b
	poll.PollBlock = true
	var mechSummary []string
	symOpt := opt
	symOpt.Symmetry = true
	for _, m := range []struct {
		name string
		b    spec.Bounds
		opt  spec.Options
	}{{"injectglist with a P", inj, opt}, {"LockOSThread and entersyscallblock", locked, opt}, {"stop-the-world", stw, symOpt}, {"blocking netpoll", poll, symOpt}} {
		fmt.Fprintf(log, "real algorithm with %s: %v\n", m.name, m.b)
		ri, err := spec.Explore(ctx, m.b, m.opt)
		if err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		fmt.Fprintf(log, "%v\n", ri)
		if ri.Violation != nil {
			fmt.Fprintf(log, "%v\n", ri.Violation)
			return stageResult{verdict: fail, summary: m.name + ": violation: " + ri.Violation.Kind.String()}
		}
		if ri.Verdict() != "pass" {
			return stageResult{verdict: inconclusive, summary: fmt.Sprintf("%s: cut short after %d states", m.name, ri.Distinct)}
		}
		mechSummary = append(mechSummary, fmt.Sprintf("%s %d", m.name, ri.Distinct))
	}
	// The releases before a fix must lose a wakeup on the same bound.
	olds := []spec.Bounds{b, b, inj}
	olds[0].Go, olds[1].Go, olds[2].Go = spec.Go119, spec.Go121, spec.Go122
	found, seeded := 0, len(spec.SeededBugCases())+len(olds)
	var oldSummary []string
	for _, old := range olds {
		gv := old.Go
		fmt.Fprintf(log, "%v variant: %v\n", gv, old)
		ro, err := spec.Explore(ctx, old, opt)
		if err != nil {
			return stageResult{verdict: fail, summary: err.Error()}
		}
		switch {
		case ro.Violation == nil && !ro.Complete:
			return stageResult{verdict: inconclusive, summary: gv.String() + " variant: cut short"}
		case ro.Violation == nil || ro.Violation.Kind != spec.KindWorkConservation:
			fmt.Fprintf(log, "%v variant: %v\n%v\n", gv, ro, ro.Violation)
			return stageResult{verdict: fail, summary: "the " + gv.String() + " variant did not lose a wakeup"}
		}
		fmt.Fprintf(log, "%v variant loses a wakeup, as expected: %d-step trace\n%v\n", gv, ro.Violation.Trace.Len(), ro.Violation)
		oldSummary = append(oldSummary, fmt.Sprintf("%v in %d", gv, ro.Violation.Trace.Len()))
		found++
	}
	for _, c := range spec.SeededBugCases() {
		bug := c.Bounds.Bug
		if ctx.Err() != nil {
			return stageResult{verdict: inconclusive, summary: "seeded bugs: cut short"}
		}
		rb, err := spec.Explore(ctx, c.Bounds, spec.SeededBugOptions)
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
	return stageResult{verdict: pass, seeded: seeded, caught: found,
		summary: fmt.Sprintf("go1.26: %d states, liveness ok (Ms=%d as thread limit); with mechanisms: %s; lost wakeups: %s steps; %d/%d seeded bugs found",
			r.Distinct, b.Ms, strings.Join(mechSummary, ", "), strings.Join(oldSummary, ", "), found-len(olds), len(spec.SeededBugCases()))}
}
