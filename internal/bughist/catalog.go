// Package bughist is the catalog of real Go scheduler bugs (golang/go issues)
// and the runner that reproduces an entry with gmpcheck's own checks: the
// spec explorer, GMP.tla through tla/tlacheck, and the reference scheduler
// (impl.Driver) replaying the explorer's counterexample. Every reproduction
// also runs the unmodified Go 1.26 model through the same checks, which must
// pass.
//
// Two lists: Catalog, the bugs the model expresses, each a variant that
// every applicable technique reproduces; and Outside, the known scheduler
// bugs the model cannot express, each saying what it needs. A reproduction
// of one of those reports "outside the model" (exit 1), never a pass.
//
// The facts (versions, fixes) were checked against the released runtime
// sources (golang.org/toolchain modules, go1.5.4 to go1.27) and the golang/go
// issue threads; docs/history.md has the long form of each entry and
// docs/bugs.md the table with the counterexamples.
package bughist

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Technique names, as 'gmpcheck bugs' prints them.
const (
	TechExplore = "explore" // spec.Explore with liveness, Ms as the thread limit
	TechTLA     = "tla"     // GMP.tla's cfg, through tlacheck.CheckCfg
	TechImpl    = "impl"    // impl.Driver replays the explorer's counterexample
)

// Techniques lists every technique in the order a reproduction runs them.
var Techniques = []string{TechExplore, TechTLA, TechImpl}

// Variant is how the model expresses a bug: a release of the spec
// (Bounds.Go), the bounds each technique checks it on, and GMP.tla's cfg.
type Variant struct {
	Go spec.GoVersion
	// Explore is the explorer's bound (Bounds.Go is set from Go).
	Explore spec.Bounds
	// Kind is the property the explorer must find broken.
	Kind spec.ViolationKind
	// TLACfg is the cfg in tla/ (without .cfg) that checks the variant; its
	// go1.26 twin is derived from it (GoVersion = 126, expect: pass).
	TLACfg string
	// Driver is the bound whose shortest counterexample impl.Driver can
	// play: the Driver runs a wakep to its end at once, so the trace must
	// not step another M inside one.
	Driver spec.Bounds
	// LocalStarvation adds property (c), local-queue starvation, to the
	// explorer's checks (spec.Options.LocalStarvation). The variant must
	// break Kind among all the properties it breaks (spec.Options.All),
	// not necessarily first.
	LocalStarvation bool
	// Open marks a bug that no release has fixed: the variant is Go 1.26
	// itself, so there is no fixed twin to pass. What the twin's pass
	// shows for a fixed bug (that the property is not simply too strong)
	// is shown instead by the same bound passing every default property:
	// only the one the issue is about fails.
	Open bool
	// LargeTLA marks a cfg, or a go1.26 twin, of thousands of states or
	// more, which tla-checker takes a minute or more over and TLC seconds:
	// without a TLC jar the tla technique says so before it starts
	// tla-checker. tla/'s tests check the variant's cfg with tla-checker
	// in the long tier.
	LargeTLA bool
	// Throw is the runtime's throw that reported the bug, where the
	// reference scheduler throws it too, at the step where the spec's
	// state breaks the invariant: the impl technique then takes the
	// throw, at the trace's last step, as the reproduction.
	Throw string
	// TLCOptimizing marks a cfg, or a go1.26 twin, of forty thousand states
	// or more, on which TLC's optimizing compiler pays for its start: the
	// tla technique runs TLC without tlacheck.TLCOptions.QuickStart.
	TLCOptimizing bool
}

// Entry is one bug of Go's scheduler history.
type Entry struct {
	Name      string // catalog name, "hist-<issue>"
	Issue     int    // golang/go issue number
	Related   []int  // other golang/go issues of the same bug
	Title     string // the issue's title
	Versions  string // short: "1.17-1.19 -> 1.20"
	Area      string // short: the mechanism's family, for the table
	Affected  string // releases with the bug
	Fixed     string // the release (and backports) with the fix
	Mechanism string // where in proc.go it lives
	Cause     string // root cause, one paragraph
	Fix       string // what the fix changed, and the change when verified
	Property  string // the check that catches it, in gmpcheck's terms
	// Variant is set when the model expresses the bug; Needs otherwise
	// says which mechanism or property it lacks.
	Variant *Variant
	Needs   string
}

// Expressible reports whether the current model can write the bug down:
// true for every Catalog entry, false for every Outside one.
func (e Entry) Expressible() bool { return e.Variant != nil }

// VariantName is the name of the model variant ("go1.19"), or "".
func (e Entry) VariantName() string {
	if e.Variant == nil {
		return ""
	}
	return e.Variant.Go.String()
}

// Link is the issue as docs write it: golang/go#NNNNN.
func (e Entry) Link() string { return "golang/go#" + strconv.Itoa(e.Issue) }

// ExpressibleText says how the model writes the bug: "yes (go1.19)", or
// "no: outside the model, needs <mechanism>".
func (e Entry) ExpressibleText() string {
	if e.Expressible() {
		return "yes (" + e.VariantName() + ")"
	}
	return "no: outside the model, needs " + e.Needs
}

// Applicable lists the techniques that can check the entry (none when it
// is not expressible).
func (e Entry) Applicable() []string {
	if e.Variant == nil {
		return nil
	}
	var out []string
	if e.Variant.Explore.Ps > 0 {
		out = append(out, TechExplore)
	}
	if e.Variant.TLACfg != "" {
		out = append(out, TechTLA)
	}
	if e.Variant.Driver.Ps > 0 {
		out = append(out, TechImpl)
	}
	return out
}

// Lookup finds an entry of either list by name ("hist-45867"), issue
// number ("45867", "#45867", "golang/go#45867", a related issue too) or
// variant name ("go1.19").
func Lookup(name string) (Entry, error) {
	key := strings.TrimPrefix(strings.TrimPrefix(name, "golang/go"), "#")
	for _, e := range All() {
		if e.Name == name || (e.Variant != nil && !e.Variant.Open && e.VariantName() == name) {
			return e, nil
		}
		if n, err := strconv.Atoi(key); err == nil {
			if n == e.Issue {
				return e, nil
			}
			for _, r := range e.Related {
				if n == r {
					return e, nil
				}
			}
		}
	}
	return Entry{}, fmt.Errorf("unknown bug %q (want a catalog name such as hist-45867, an issue number, or a variant: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the names of both lists, the catalog's first.
func Names() []string {
	var out []string
	for _, e := range All() {
		out = append(out, e.Name)
	}
	return out
}

// All is Catalog, then Outside.
func All() []Entry { return append(Catalog(), Outside()...) }

// smallBounds is Ps=2 Ms=2 Gs=2 Cap=2 Spawn=1 without syscalls and
// netpoll, at SchedTick tick (GMP_hist_45867.cfg's bound at tick 1,
// GMP_go121.cfg's at tick 2): a few thousand states, whose shortest
// counterexamples impl.Driver can play. The verify bound catches the same
// lost wakeups (README, docs/versions.md) on a graph a hundred times larger.
func smallBounds(gv spec.GoVersion, tick int) spec.Bounds {
	return spec.Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: tick, Go: gv}
}

// injectBounds are the bounds of injectglist with a P: netpoll's list of
// two reaches it (Bounds.InjectList), no syscalls.
func injectBounds(gv spec.GoVersion, ms, tick int) spec.Bounds {
	return spec.Bounds{Ps: 2, Ms: ms, Gs: 2, Cap: 2, Spawn: 1, SchedTick: tick, Netpoll: true, InjectList: true, Go: gv}
}

// starveBounds are the bounds of the starvation entries: ps Ps, gs Gs
// (every G but g1 spawned), as many Ms as Ps (the thread limit), the 1/61
// check every second tick, no syscalls; noPark keeps every G from parking.
func starveBounds(ps, gs int, noPark bool) spec.Bounds {
	return spec.Bounds{Ps: ps, Ms: max(ps, 2), Gs: gs, Cap: 2, Spawn: gs - 1, SchedTick: 2, NoPark: noPark}
}

// Catalog is every bug the model expresses, by issue number: each a
// Variant that 'gmpcheck bugs NAME' reproduces. The known bugs outside the
// model are Outside (outside.go).
func Catalog() []Entry {
	// The bounds of the invariant entries, on which the explorer and the
	// impl technique check them alike.
	var (
		b10573 = spec.Bounds{Ps: 1, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true}
		b10618 = spec.Bounds{Ps: 1, Ms: 1, Gs: 1, Cap: 2, SchedTick: 2, Syscalls: true, STW: true, ProcResize: true}
		b23098 = spec.Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, STW: true, ProcResize: true}
		b28979 = spec.Bounds{Ps: 1, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, LockOSThread: true}
		b46524 = spec.Bounds{Ps: 1, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, Syscalls: true, LockOSThread: true}
	)
	return []Entry{
		{
			Name: "hist-10573", Issue: 10573,
			Title:    "runtime: \"spinning with local work\"",
			Versions: "1.5 dev -> 1.5", Area: "spinning Ms (handoffp, runnext)",
			Affected:  "the 1.5 development tree after runnext was added (April 2015); no release",
			Fixed:     "1.5 (go1.5.4's runqempty counts runnext; the fixing change is not verified)",
			Mechanism: "handoffp's local-work test -> startm(spinning); runnext; the spinning M's precondition",
			Cause: "When runnext was added, a P's only runnable G could sit in runnext while its ring was empty. The hand-off path " +
				"still judged local work from the ring alone, so a P whose G was in runnext counted as having none: handoffp started a " +
				"spinning M on it (nobody else spinning or idle), and that M found local work at once, breaking the rule that a " +
				"spinning M's P has none; schedule threw \"spinning with local work\".",
			Fix:      "the emptiness test counts runnext (runqempty in go1.5.4); the change itself is not verified",
			Property: "invariant 3 (a spinning M's P has an empty local queue, runnext included)",
			Variant: &Variant{
				LargeTLA: true, TLACfg: "GMP_hist_10573", Go: spec.Go15dev, Explore: b10573, Kind: spec.KindInvariant, Driver: b10573,
			},
		},
		{
			Name: "hist-10618", Issue: 10618,
			Title:    "runtime: forEachP: P did not run fn",
			Versions: "<=1.4, 1.5 dev -> 1.5", Area: "stop-the-world (worldsema)",
			Affected:  "1.4 and the 1.5 development tree (a maintainer's statement in the thread: the release before the restart is not in any source read)",
			Fixed:     "1.5 (go1.5.4's startTheWorld restarts the world, then releases worldsema, with a comment saying why; the fixing change is not verified)",
			Mechanism: "stopTheWorld / startTheWorld and worldsema; procresize under GOMAXPROCS; stopwait",
			Cause: "worldsema serializes the callers of stopTheWorld, and a caller holding it may assume gomaxprocs is fixed. GOMAXPROCS and " +
				"the GC released it as soon as they had decided to restart, before startTheWorld ran procresize and cleared gcwaiting. A " +
				"second caller could then stop the world while the first stop was still in force: it set stopwait to gomaxprocs when every " +
				"P was already stopped, so stopwait no longer counted the Ps still running, and forEachP, iterating Ps that procresize was " +
				"changing, threw.",
			Fix:      "hold worldsema across startTheWorldWithSema (procresize included) and release it after the restart",
			Property: "invariant 9 (while gcwaiting, stopwait counts the Ps not yet stopped); forEachP itself is not modelled",
			Variant: &Variant{
				TLACfg: "GMP_hist_10618", Go: spec.Go14, Kind: spec.KindInvariant,
				Explore: b10618, Driver: b10618,
			},
		},
		{
			Name: "hist-10958", Issue: 10958, Related: []int{24543},
			Title:    "runtime: tight loops should be preemptible",
			Versions: "<=1.13 -> 1.14", Area: "preemption (retake)",
			Affected:  "every release up to 1.13",
			Fixed:     "1.14 (asynchronous preemption, golang/go#24543; preemptM first in go1.14.15's proc.go, absent from go1.13.15)",
			Mechanism: "sysmon retake -> preemptone; cooperative preemption only at function prologues; the stop-the-world wait",
			Cause: "sysmon asked a long-running G to yield by setting its preempt flag and poisoning its stack guard, which only a " +
				"function prologue checks. A loop without calls never reaches one, so it held its P for as long as it ran: the P's " +
				"local queue starved, and a stop-the-world (GC, GOMAXPROCS) waited for it forever, freezing the program.",
			Fix:      "signal-based asynchronous preemption at asynchronous safe points (preemptM, 1.14); the change is not verified",
			Property: "local-queue starvation (c) without the time-slice obligation (go1.13: cooperative preemption only); the freeze, liveness of stop-the-world, waits for the stop-the-world mechanism",
			Variant: &Variant{
				TLACfg: "GMP_hist_10958", Go: spec.Go113, Explore: starveBounds(1, 2, false), Kind: spec.KindLocalStarvation, LocalStarvation: true,
			},
		},
		{
			Name: "hist-13546", Issue: 13546, Related: []int{24543},
			Title:    "runtime: goroutine starvation due to Gosched",
			Versions: "<=1.13 -> 1.14", Area: "starvation (Gosched)",
			Affected:  "up to 1.13 (reported against the 1.6 tree); the policy is unchanged in 1.26",
			Fixed:     "1.14, by asynchronous preemption (golang/go#24543 lists it); no scheduler-side fix",
			Mechanism: "goschedImpl -> globrunqput; findRunnable's order (local, global, netpoll, steal); cooperative preemption",
			Cause: "A G yielding in a loop goes to the global queue, and its P's next findRunnable, finding its local queue empty, takes " +
				"it straight back from the global queue before ever reaching stealWork. The starved G sits in the local queue of another " +
				"P whose G spins in a call-free loop that cooperative preemption cannot stop. Its own P never reschedules and the only " +
				"other P never steals, and the 1/61 check does not help because the global queue holds only the yielder.",
			Fix:      "none in the scheduler; asynchronous preemption (1.14) lets sysmon stop the looping G, after which its P runs the starved G",
			Property: "local-queue starvation (c) without the time-slice obligation (go1.13), on goroutines that never park (Bounds.NoPark: the report's program, which also leaves out hist-52934's runnext ping-pong, so go1.26 passes (c) there)",
			Variant: &Variant{
				LargeTLA: true, TLCOptimizing: true, TLACfg: "GMP_hist_13546", Go: spec.Go113, Explore: starveBounds(2, 3, true), Kind: spec.KindLocalStarvation, LocalStarvation: true,
			},
		},
		{
			Name: "hist-23098", Issue: 23098,
			Title:    "runtime: loop over allp causes a nil pointer dereference crash",
			Versions: "1.10 dev -> 1.10", Area: "procresize",
			Affected:  "the 1.10 development tree (allp became a slice procresize can grow); no release",
			Fixed:     "1.10 (allpSnapshot: absent from go1.9.7, present in go1.10.8)",
			Mechanism: "procresize (stop-the-world) against findrunnable's no-P recheck over allp",
			Cause: "After findrunnable drops its P nothing holds off a safe point, so a stop-the-world procresize can run during its " +
				"recheck loop over allp. The loop could see a grown allp whose new slots were still nil, or a torn slice header, and " +
				"crash on a nil P.",
			Fix:      "snapshot allp (and later the idle mask) before dropping the P and iterate the snapshot, whose first len entries never change",
			Property: "invariant 9: no rechecking M reads an allp slot procresize has not filled (the nil dereference); invariants 1 and 9 hold across procresize",
			Variant: &Variant{
				LargeTLA: true, TLACfg: "GMP_hist_23098", Go: spec.Go110dev, Kind: spec.KindInvariant,
				Explore: b23098, Driver: b23098,
				Throw: "nil pointer dereference",
			},
		},
		{
			Name: "hist-28979", Issue: 28979, Related: []int{20395},
			Title:    "runtime: OS thread appears to be re-used despite never releasing runtime.LockOSThread()",
			Versions: "1.10-1.11 -> 1.12", Area: "LockOSThread",
			Affected:  "1.10 and 1.11 (since a locked G's exit retires its thread, golang/go#20395)",
			Fixed:     "1.12, backported to 1.10.x and 1.11.x (go1.10.8 and go1.11.13 keep lockedExt on exit)",
			Mechanism: "LockOSThread: goexit0 -> mexit -> handoffp -> startm -> newm",
			Cause: "When a locked G exited, goexit0 cleared the M's external lock count before the M retired through mexit, whose " +
				"handoffp could start a new M. newm clones the current thread unless that thread is marked locked, in which case the " +
				"template thread creates it. With the mark gone, the new M was cloned from the tainted thread and inherited the " +
				"namespace or other state the exiting G had changed.",
			Fix:      "keep the lock mark while a locked G exits, so that newm hands thread creation to the template thread; the change is not verified",
			Property: "invariant 8: no M is cloned from a thread a locked G exited on (mexit's newm, which takes the exiting M's slot when no M is idle, goes through the template thread)",
			Variant: &Variant{
				TLACfg: "GMP_hist_28979", Go: spec.Go111, Kind: spec.KindInvariant,
				Explore: b28979, Driver: b28979,
			},
		},
		{
			Name: "hist-38860", Issue: 38860, Related: []int{44343},
			Title:    "runtime: CPU bound goroutines cause unnecessary timer latency",
			Versions: "1.14-1.15 -> 1.16", Area: "timers",
			Affected:  "1.14 and 1.15",
			Fixed:     "1.16, CL 232298 (shouldStealTimers: in go1.14.15 and go1.15.15, gone in go1.16.15)",
			Mechanism: "per-P timers, stealWork's timer pass, checkTimersNoP, blocking netpoll until the next timer, sysmon",
			Cause: "Since 1.14 a timer lives on the heap of the P that set it, and only an M holding that P, or a spinning M in its " +
				"last steal round, runs it. Nothing made sure such an M was awake: adding a timer woke an M only if one was already " +
				"blocked in netpoll, and an M that dropped its P slept until its own P's next timer at best, so a non-spinning M that " +
				"failed the spin limit never looked at the other Ps' heaps. A timer on a P busy with a CPU-bound G, or on a P that went " +
				"idle, then waited while other Ps idled until sysmon's check for overdue timers started an M: work conservation " +
				"failing for timers, at millisecond scale.",
			Fix: "CL 232298 (1.16): wakeNetPoller calls wakep when nobody polls, an M that drops its P folds every P's next timer into " +
				"its pollUntil (checkTimersNoP since 1.17), and the last steal round checks timers before run queues; read in go1.14.15, go1.15.15 and go1.16.15",
			Property: "the explorer's stuck-scheduler check: every M idle while a due timer waits (what sysmon's timer check ended in the real 1.15); the go1.26 twin passes it and liveness (e), a due timer runs",
			Variant: &Variant{
				LargeTLA: true, TLACfg: "GMP_hist_38860", Go: spec.Go115, Kind: spec.KindDeadlock,
				Explore: spec.Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1},
				Driver:  spec.Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1},
			},
		},
		{
			Name: "hist-45867", Issue: 45867,
			Title:    "runtime: broken work conservation due to CL 310850",
			Versions: "1.17-1.19 -> 1.20", Area: "spinning Ms (needspinning)",
			Affected:  "1.17, 1.18, 1.19 (needspinning absent from go1.19.13)",
			Fixed:     "1.20 (needspinning and pidlegetSpinning present in go1.20, absent from go1.19.13)",
			Mechanism: "checkRunqsNoP, the spin limit, the drop section; sched.needspinning, pidlegetSpinning",
			Cause: "After CL 310850 only a spinning M rechecks the run queues once it has released its P. Such an M can find a G on " +
				"a running P's queue and no idle P to run it on, because the last P is held by a non-spinning M that has just failed the " +
				"spin limit while the spinner was still counted. The spinner gives up and parks; the non-spinning M then sees an empty " +
				"global queue, releases its P and parks without rechecking; and whoever queued the G found nmspinning non-zero and woke " +
				"nobody. A G stays runnable next to an idle P with no M looking.",
			Fix: "1.20, CL 389014 (golang/go#60788 names it as the 1.20 change to injectglist's P acquisition; its title is not verified): pidlegetSpinning sets sched.needspinning when it finds no P; a non-spinning M reads it in the same " +
				"sched.lock section that would release its P and becomes spinning instead; becomeSpinning and handoffp clear it",
			Property: "work conservation (a)",
			Variant: &Variant{
				Go: spec.Go119, Explore: smallBounds(spec.Go119, 1), Kind: spec.KindWorkConservation,
				LargeTLA: true, TLACfg: "GMP_hist_45867", Driver: smallBounds(spec.Go119, 1),
			},
		},
		{
			Name: "hist-46524", Issue: 46524,
			Title:    "runtime: stoplockedm: inconsistent locking",
			Versions: "1.17 dev -> 1.17", Area: "LockOSThread (exitsyscall)",
			Affected:  "the 1.17 development tree (builder failures in April 2021); no release",
			Fixed:     "1.17 (go1.17.13 reads gp.lockedm inside exitsyscall0's lock section, before globrunqput; go1.16.15 read the M's own lockedg after the unlock; the fixing change is not verified)",
			Mechanism: "exitsyscall's slow path (exitsyscallNoP in 1.26): globrunqput, then stoplockedm or stopm; LockOSThread on another M",
			Cause: "A G returning from a system call with no P to take goes on the global queue, and its M then parks: in stoplockedm " +
				"if the G is locked to it, else in stopm. The development tree decided by reading the G's lockedm after releasing " +
				"sched.lock, when the G already belonged to the scheduler: another M could take it from the global queue, run it, and " +
				"lock it to itself, so the first M read a lockedm that was not its own and parked in stoplockedm with no locked G, " +
				"which threw \"stoplockedm: inconsistent locking\".",
			Fix:      "read whether the G is locked under sched.lock, before globrunqput publishes it (Go 1.26's exitsyscallNoP keeps that order)",
			Property: "invariant 7 (an M parked in stoplockedm is locked to a G)",
			Variant: &Variant{
				TLACfg: "GMP_hist_46524", Go: spec.Go117dev, Explore: b46524, Kind: spec.KindInvariant,
				Driver: b46524, Throw: "stoplockedm: inconsistent locking",
			},
		},
		{
			Name: "hist-52934", Issue: 52934,
			Title:    "runtime: new goroutine launches can starve other work indefinitely",
			Versions: ">=1.18, open", Area: "runnext fairness",
			Affected:  "1.18 and later (open)",
			Fixed:     "open",
			Mechanism: "newproc -> runqput(next) into runnext, execute with inheritTime, sysmon's time slice",
			Cause: "newproc puts the child in its parent's runnext, and a G taken from runnext inherits the time slice, so schedtick " +
				"does not advance. A P whose Gs keep launching a G and then blocking or exiting keeps running the newest G ahead of its " +
				"ring; the 10 ms preemption moves only the running G, so the ring runs only when runnext happens to be empty at a " +
				"preemption or another P steals. (Our reading of the mechanism; the thread's own analysis was not checked in full.)",
			Fix:      "none: open",
			Property: "local-queue starvation (c) on the unmodified model; an open bug has no fixed twin, so the check that (c) is not simply too strong is that the same bound passes every default property",
			Variant: &Variant{
				LargeTLA: true, TLCOptimizing: true, TLACfg: "GMP_hist_52934", Go: spec.Go126, Explore: starveBounds(2, 3, false), Kind: spec.KindLocalStarvation, LocalStarvation: true, Open: true,
			},
		},
		{
			Name: "hist-55160", Issue: 55160, Related: []int{60693},
			Title:    "runtime: mayMoreStackPreempt failures",
			Versions: "<=1.21 -> 1.22", Area: "work conservation (global queue)",
			Affected:  "up to 1.21 (goschedImpl without wakep in go1.21.13)",
			Fixed:     "1.22 (goschedImpl's wakep and the spinning M's global-queue recheck, both first in go1.22.12)",
			Mechanism: "goschedImpl -> globrunqput without wakep; the spinning M's recheck after nmspinning-- skips sched.runq",
			Cause: "The global queue took no part in the spinning handoff. A G put there by Gosched or preemption came with no wakep, " +
				"and a spinning M's last look at the global queue was in the drop section, before it decremented nmspinning; after the " +
				"decrement it rechecked only the per-P queues. So a G yielded to the global queue just after the last spinner's look " +
				"waited there while a P idled, until the busy P's 1/61 check or sysmon's next preemption. sysmon preempting every 10 ms " +
				"masked it in the field (golang/go#60693); the maymorestack=mayMoreStackPreempt test mode made it time out.",
			Fix: "1.22: goschedImpl calls wakep after globrunqput, and a spinning M that dropped its P takes sched.lock and, if " +
				"sched.runq is not empty, takes a P with pidlegetSpinning and a batch (the changes are not verified by number)",
			Property: "work conservation (a), which assumes no time slice, so nothing masks it",
			Variant: &Variant{
				Go: spec.Go121, Explore: smallBounds(spec.Go121, 2), Kind: spec.KindWorkConservation,
				LargeTLA: true, TLACfg: "GMP_go121", Driver: smallBounds(spec.Go121, 2),
			},
		},
		{
			Name: "hist-63555", Issue: 63555,
			Title:    "runtime: injectglist(glist *gList) npidle may not necessarily be the latest value. Could it cause scheduling starvation issues?",
			Versions: "1.15-1.22 -> 1.23", Area: "netpoll (injectglist with a P)",
			Affected:  "1.15 to 1.22 (the split by npidle first in go1.15.15)",
			Fixed:     "1.23 (injectglist ends with wakep: absent from go1.22.12, present in go1.23.12)",
			Mechanism: "injectglist with a P: npidle snapshot, global part with startIdle, runqputbatch of the rest, final wakep",
			Cause: "An M holding a P that injects a batch of ready Gs (netpoll results) reads npidle once, sends that many Gs to the " +
				"global queue with as many M starts, and puts the rest on its own run queue. If a P goes idle after the read, the Gs on " +
				"the local queue have nobody to steal them: the new idle P parked before they were queued, and nothing wakes an M for " +
				"them, so they wait for as long as the injecting M runs something else.",
			Fix:      "1.23: injectglist ends with wakep (cheap when no P idles or an M spins)",
			Property: "work conservation (a)",
			Variant: &Variant{
				Go: spec.Go122, Explore: injectBounds(spec.Go122, 2, 1), Kind: spec.KindWorkConservation,
				LargeTLA: true, TLACfg: "GMP_go122", Driver: injectBounds(spec.Go122, 2, 1),
			},
		},
	}
}
