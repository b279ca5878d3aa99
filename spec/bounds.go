package spec

import "fmt"

// Hard limits of the fixed-size State. They are far above what an exhaustive
// search can cover and keep State a flat value that copies without allocating.
// The trace checker (conform) needs them: the reference scheduler's runs at
// GOMAXPROCS 8 use eight Ps and, with a G in a syscall and an M spinning or
// locked, more than eight Ms.
const (
	MaxPs    = 8
	MaxMs    = 12
	MaxGs    = 8
	MaxCap   = 8
	MaxSpawn = 15
	// MaxTimerDelay is the longest sleep Bounds.Timers allows, in ticks.
	MaxTimerDelay = 3

	// defaultMs caps the default number of M slots (Bounds.Ms == 0).
	defaultMs = 8
)

// RuntimeSchedTick is the runtime's period of the global-queue fairness check
// (schedtick%61 in findRunnable). Models use a smaller period so that the
// per-P tick residue does not multiply the state space by 61 per P.
const RuntimeSchedTick = 61

// Bug selects a seeded-bug variant of the spec. BugNone is the real algorithm;
// every other value breaks one rule on purpose so the checks can prove they
// bite.
type Bug uint8

const (
	BugNone Bug = iota
	// BugReadyNoWakep: ready() puts the G on the run queue but does not call
	// wakep, so an idle P can stay idle next to runnable work.
	BugReadyNoWakep
	// BugNo61: findRunnable skips the schedtick%period global-queue check.
	BugNo61
	// BugSpinNoDec: resetspinning clears m.spinning without decrementing
	// sched.nmspinning.
	BugSpinNoDec
	// BugGoschedLocal: goschedImpl (Gosched and preemption) puts the G in its
	// own P's runnext instead of the global queue.
	BugGoschedLocal
	// BugRetakeIgnoresLocal: retake and handoffp treat the P's local run
	// queue as empty.
	BugRetakeIgnoresLocal
	// BugSyscallBlockNoHandoff: entersyscallblock puts its P on the idle
	// list instead of handing it off, so the P's local run queue is
	// stranded, and no M is started when nobody spins.
	BugSyscallBlockNoHandoff
	// BugStopLockedNoHandoff: stoplockedm puts the locked M's P on the
	// idle list instead of handing it off (handoffp), with the same loss.
	BugStopLockedNoHandoff
	// BugLockedRunsAnywhere: schedule executes a locked G on whichever M
	// found it instead of calling startlockedm.
	BugLockedRunsAnywhere
	numBugs
)

// The seeded bugs of stop-the-world and procresize (Bounds.STW), which the
// reference scheduler's deterministic driver does not play: Bugs leaves
// them out, STWBugs lists them.
const (
	// BugProcResizeDropsRunq: procresize destroys a P without moving its
	// local run queue to the global queue.
	BugProcResizeDropsRunq Bug = numBugs + iota
	// BugGCWaitingIgnored: findRunnable's top does not check
	// sched.gcwaiting, so an M sent back to the top by the drop section
	// (or stealWork) loops without ever stopping its P.
	BugGCWaitingIgnored
	// The seeded bugs of the blocking poller and timers (Bounds.PollBlock,
	// Bounds.Timers), listed by PollBugs.
	//
	// BugTimersNotStolen: stealWork's last round does not run other Ps'
	// due timers (nor fold their next one into pollUntil), so a timer on
	// a P whose G never yields waits while other Ps idle (the reference
	// scheduler's seeded bug of the same name).
	BugTimersNotStolen
	// BugHandoffIgnoresPoller: handoffp lacks its "last running P and
	// nobody polling the network" clause: the P goes idle and no M is
	// left to block in netpoll.
	BugHandoffIgnoresPoller
	numAllBugs
)

var bugNames = [numAllBugs]string{
	BugNone:                  "none",
	BugReadyNoWakep:          "ready-no-wakep",
	BugNo61:                  "no-61",
	BugSpinNoDec:             "nmspinning-no-dec",
	BugGoschedLocal:          "gosched-local",
	BugRetakeIgnoresLocal:    "retake-ignores-local",
	BugSyscallBlockNoHandoff: "syscallblock-no-handoff",
	BugStopLockedNoHandoff:   "stoplockedm-no-handoff",
	BugLockedRunsAnywhere:    "locked-runs-anywhere",
	BugProcResizeDropsRunq:   "procresize-drops-runq",
	BugGCWaitingIgnored:      "findrunnable-ignores-gcwaiting",
	BugTimersNotStolen:       "timers-not-stolen",
	BugHandoffIgnoresPoller:  "handoffp-ignores-poller",
}

func (b Bug) String() string {
	if b < numAllBugs {
		return bugNames[b]
	}
	return fmt.Sprintf("Bug(%d)", uint8(b))
}

// Bugs lists every seeded bug (BugNone excluded).
func Bugs() []Bug {
	out := make([]Bug, 0, numBugs-1)
	for b := BugNone + 1; b < numBugs; b++ {
		out = append(out, b)
	}
	return out
}

// STWBugs lists the seeded bugs of stop-the-world and procresize.
func STWBugs() []Bug { return []Bug{BugProcResizeDropsRunq, BugGCWaitingIgnored} }

// PollBugs lists the seeded bugs of the blocking poller and timers.
func PollBugs() []Bug { return []Bug{BugTimersNotStolen, BugHandoffIgnoresPoller} }

// ParseBug maps a name from Bug.String back to the Bug.
func ParseBug(name string) (Bug, error) {
	for b := BugNone; b < numAllBugs; b++ {
		if bugNames[b] == name {
			return b, nil
		}
	}
	return 0, fmt.Errorf("unknown seeded bug %q (want one of %v)", name, bugNames)
}

// Bounds are the parameters of one finite model: how many Ps, Ms and G slots,
// the ring capacity, how many go statements may run, the fairness period, which
// optional parts of the scheduler are in, and which seeded bug (if any).
type Bounds struct {
	Ps        int  // GOMAXPROCS
	Ms        int  // M slots (the thread limit); 0 means min(Ps+Gs, 8)
	Gs        int  // G slots, g1..gGs; g1 is the main goroutine
	Cap       int  // capacity of each P's ring
	Spawn     int  // total NewProc budget
	SchedTick int  // period of the global-queue check; 0 means 61
	Syscalls  bool // EnterSyscall, ExitSyscall*, Retake
	Netpoll   bool // Netpoll in findRunnable, InjectGList from sysmon
	// InjectList lets findRunnable's netpoll(0) return two Gs: one to run,
	// the other injected by injectglist with the M's P (its npidle load,
	// the global part with startIdle, the local part, the final wakep).
	// It needs Netpoll and two G slots.
	InjectList bool
	// SyscallBlock adds entersyscallblock: a G enters a system call known
	// to block and its M hands its P off at once (handoffp), without
	// waiting for sysmon's retake.
	SyscallBlock bool
	// LockOSThread adds LockOSThread and UnlockOSThread for the running
	// G, and with them startlockedm, stoplockedm, and the end of a thread
	// whose locked G exits.
	LockOSThread bool
	// NoPark restricts the goroutines to the workload of golang/go#13546:
	// they spawn, yield (Gosched) and exit, but never park, so nothing is
	// ever readied. It leaves out the runnext ping-pong through Ready
	// that makes Go 1.26 fail property (c) (golang/go#52934, open), and
	// so lets (c) tell a release with asynchronous preemption from one
	// without.
	NoPark bool
	// Goyield adds goyield for the running G: the runtime's own yield
	// (semrelease's hand-off to a waiter, sync.Mutex in starvation mode),
	// which puts the G at the tail of its P's local run queue and calls
	// no wakep, where Gosched puts it on the global queue and wakes an M.
	Goyield bool
	// STW adds one stop-the-world, as a GC cycle or a GOMAXPROCS call
	// makes it: an external stopper (stopTheWorldWithSema) sets
	// sched.gcwaiting and stops the idle Ps and the Ps of Ms in system
	// calls at once; every M holding a P stops it at its next safe point
	// (gcstopm at the top of findRunnable, in stealWork and in the drop
	// section, or handoffp's gcwaiting clause); once sched.stopwait is 0
	// the world restarts (startTheWorldWithSema: procresize, the Ps with
	// work started, then wakep).
	STW bool
	// ProcResize lets the restart change GOMAXPROCS by one (procresize:
	// the local run queues of the Ps that go away move to the head of
	// the global queue; a new P starts empty). It needs STW.
	ProcResize bool
	// PollBlock adds the M that blocks in netpoll (poller.go): at the
	// end of findRunnable an M with no P, no work and something to wait
	// for (a G parked on the network, or a timer) claims the poller by
	// swapping sched.lastpoll to 0 and sleeps there until the network
	// readies a G, netpollBreak or its timeout; handoffp keeps an M
	// polling when the last running P goes idle; sysmon and
	// findRunnable's netpoll(0) poll only while nobody blocks there. It
	// needs Netpoll.
	PollBlock bool
	// Timers is the longest sleep, in ticks of the model's clock, that
	// TimerSleep may take (0: no timers; at most MaxTimerDelay): a
	// sleeping G's timer on its P's heap, checkTimers at findRunnable's
	// top, stealWork's timers, checkTimersNoP, wakeNetPoller, and the
	// clock's TimerTick (timers.go). It needs PollBlock, at most 4 Ps,
	// (with ProcResize, procresize moves a destroyed P's timers to p0).
	Timers int
	// Go selects the runtime release whose scheduler the model follows
	// (docs/versions.md). The zero value is Go126.
	Go  GoVersion
	Bug Bug
}

// GoVersion is a runtime release whose scheduler differs from 1.26's in a
// way the model represents.
type GoVersion uint8

const (
	// Go126 is Go 1.26 (and 1.20 on): sched.needspinning and
	// pidlegetSpinning close the race between a spinning M that finds work
	// but no idle P and a non-spinning M about to release its P.
	Go126 GoVersion = iota
	// Go119 is Go 1.19 (and 1.17-1.19): no needspinning. An M that found
	// work without an idle P gives up, and a non-spinning M releases its P
	// unconditionally: golang/go#45867's lost wakeup, brought in by the
	// 1.17 change that left the no-P recheck to spinning Ms only.
	Go119
	// Go121 is Go 1.21 (and 1.20): needspinning, but goschedImpl does not
	// call wakep, and a spinning M that dropped its P rechecks only the
	// local run queues, not the global one. A G that Gosched or preemption
	// put on the global queue can then wait while a P idles: the lost work
	// conservation of golang/go#55160, which sysmon's preemption masked
	// (golang/go#60693), fixed in 1.22.
	Go121
	// Go122 is Go 1.22 (and 1.15-1.22 for this one change): as Go 1.26,
	// but injectglist with a P does not end with wakep. A P that goes idle
	// after its npidle load leaves the Gs it put on its own run queue
	// with nobody to steal them: golang/go#63555, fixed in 1.23. It
	// differs from Go126 only with Bounds.InjectList.
	Go122
	// Go113 is Go 1.13 (and every release before 1.14) for one change:
	// preemption is cooperative only. sysmon may still ask a running G to
	// yield (Preempt), but a G in a loop without function calls never
	// reaches a point where it checks, so no time slice is owed: the
	// Slice fairness family of the starvation properties is dropped
	// (liveness.go). golang/go#10958 and #13546; asynchronous preemption
	// (1.14, golang/go#24543) restored the obligation. Safety and work
	// conservation are as Go 1.26's.
	Go113
	// Go117dev is the Go 1.17 development tree (spring 2021) for one
	// change: exitsyscall's slow path, with no P, put its G on the global
	// queue, unlocked sched.lock, and only then read the G's lockedm to
	// choose between stoplockedm and stopm. By then another M may have
	// run the G and locked it to itself, so the M parks in stoplockedm
	// with no locked G of its own: "stoplockedm: inconsistent locking",
	// golang/go#46524. go1.17 reads it in the lock section, before the
	// put publishes the G (ExitSyscallLockCheck is the separate read).
	Go117dev
	// Go15dev is the Go 1.5 development tree (April 2015, after runnext
	// was added) for one change: handoffp judged a P's local queue empty
	// from its ring alone, so a P whose only G sat in runnext was handed
	// to a spinning M (or to the idle list): "spinning with local work",
	// golang/go#10573.
	Go15dev
	// Go110dev is the Go 1.10 development tree for one change: the no-P
	// recheck loops over the live allp, not a snapshot taken before the
	// M dropped its P. Nothing holds off a stop-the-world while it loops,
	// and procresize grows allp before it makes the new Ps, so the loop
	// can read a slot that is still nil (State.NilRead, invariant 9):
	// golang/go#23098. With
	// Bounds.ProcResize the growth is then a step of its own
	// (ProcResizeGrow), so that the window exists.
	Go110dev
	// Go111 is Go 1.10 and 1.11 for one change: a locked G's exit
	// (goexit0) cleared the M's lock before mexit, so when mexit's
	// handoffp had to create an M (no idle one), newm cloned the exiting
	// thread, whose state the locked G may have changed, instead of
	// asking the template thread: golang/go#28979. MState.Tainted marks
	// such a clone; invariant 8 reports it.
	Go111
	// Go14 is Go 1.4 and the 1.5 development tree for one change: a
	// stop-the-world's caller released worldsema before it restarted the
	// world, so a second stop could begin while the first one was still
	// in force (with Bounds.ProcResize's second stop-the-world): its
	// stopwait counts Ps that are already stopped (invariant 9),
	// golang/go#10618. go1.5 restarts the world first.
	Go14
	// Go115 is Go 1.14 and 1.15 for the two parts of CL 232298 (1.16)
	// that concern the scheduler: wakeNetPoller only breaks an M already
	// blocked in netpoll and, with nobody polling, wakes nobody (1.16
	// added the wakep), and an M that drops its P folds no other P's
	// timers into its pollUntil (1.16 added the fold that 1.26 keeps as
	// checkTimersNoP). A due timer then waits with no M awake to run it
	// while a P idles: on a P whose G runs without yielding (the report
	// of golang/go#38860), or on a P that went idle, which the explorer
	// finds as a stuck scheduler (every M parked). The runtime's sysmon
	// started an M for overdue timers at its own period, which bounded
	// the wait; the model has no sysmon, as property (a) assumes none
	// for golang/go#55160.
	Go115
	numGoVersions
)

var goVersionNames = [numGoVersions]string{Go126: "go1.26", Go119: "go1.19", Go121: "go1.21", Go122: "go1.22", Go113: "go1.13", Go117dev: "go1.17dev", Go15dev: "go1.5dev", Go110dev: "go1.10dev", Go111: "go1.11", Go14: "go1.4", Go115: "go1.15"}

func (v GoVersion) String() string {
	if v < numGoVersions {
		return goVersionNames[v]
	}
	return fmt.Sprintf("GoVersion(%d)", uint8(v))
}

// ParseGoVersion maps a name from GoVersion.String ("go1.26", "go1.21",
// "go1.19"), with or without its "go", to the GoVersion.
func ParseGoVersion(name string) (GoVersion, error) {
	for v := Go126; v < numGoVersions; v++ {
		if goVersionNames[v] == name || goVersionNames[v] == "go"+name {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown Go version %q (want one of %v)", name, goVersionNames)
}

// needSpinning reports whether the release has sched.needspinning.
func (b Bounds) needSpinning() bool { return b.Go != Go119 }

// goschedWakep reports whether goschedImpl calls wakep after putting the G
// on the global queue (Go 1.22 on; the go1.19 variant keeps it too: see
// docs/versions.md).
func (b Bounds) goschedWakep() bool { return b.Go != Go121 }

// recheckGlobal reports whether a spinning M that dropped its P rechecks the
// global queue before the local ones (Go 1.22 on; kept in go1.19 as above).
func (b Bounds) recheckGlobal() bool { return b.Go != Go121 }

// injectWakep reports whether injectglist with a P ends with wakep (Go 1.23
// on; the go1.19 and go1.21 variants predate it too).
func (b Bounds) injectWakep() bool { return b.Go == Go126 }

// asyncPreempt reports whether sysmon can stop a G that makes no calls
// (Go 1.14 on), so that a P owes its ring a fresh time slice.
func (b Bounds) asyncPreempt() bool { return b.Go != Go113 }

// lockCheckAfterPut reports whether exitsyscall's slow path reads the G's
// lockedm after globrunqput has published the G (the go1.17dev variant).
func (b Bounds) lockCheckAfterPut() bool { return b.Go == Go117dev }

// runnextCounts reports whether handoffp's emptiness test counts runnext
// (every release; not the go1.5dev variant).
func (b Bounds) runnextCounts() bool { return b.Go != Go15dev }

// liveAllp reports whether the no-P recheck reads the live allp (the
// go1.10dev variant) rather than the snapshot findRunnable takes before
// dropping its P.
func (b Bounds) liveAllp() bool { return b.Go == Go110dev }

// timerWakeups reports whether the two timer wake-ups of Go 1.16 are
// there: wakeNetPoller's wakep when nobody polls, and the fold of every
// P's timers into the pollUntil of an M without a P (checkTimersNoP).
func (b Bounds) timerWakeups() bool { return b.Go != Go115 }

// withDefaults fills the zero-means-default fields.
func (b Bounds) withDefaults() Bounds {
	if b.Ms == 0 {
		b.Ms = min(b.Ps+b.Gs, defaultMs)
	}
	if b.SchedTick == 0 {
		b.SchedTick = RuntimeSchedTick
	}
	return b
}

// Validate reports the first bound out of range.
func (b Bounds) Validate() error {
	b = b.withDefaults()
	switch {
	case b.Ps < 1 || b.Ps > MaxPs:
		return fmt.Errorf("bounds: Ps=%d, want 1..%d", b.Ps, MaxPs)
	case b.Gs < 1 || b.Gs > MaxGs:
		return fmt.Errorf("bounds: Gs=%d, want 1..%d", b.Gs, MaxGs)
	case b.Ms < b.Ps || b.Ms > MaxMs:
		return fmt.Errorf("bounds: Ms=%d, want Ps(%d)..%d", b.Ms, b.Ps, MaxMs)
	case b.Spawn < 0 || b.Spawn > MaxSpawn:
		return fmt.Errorf("bounds: Spawn=%d, want 0..%d", b.Spawn, MaxSpawn)
	case b.SchedTick < 1 || b.SchedTick > RuntimeSchedTick:
		return fmt.Errorf("bounds: SchedTick=%d, want 1..%d", b.SchedTick, RuntimeSchedTick)
	case b.Bug >= numAllBugs:
		return fmt.Errorf("bounds: unknown bug %d", b.Bug)
	case b.Go >= numGoVersions:
		return fmt.Errorf("bounds: unknown Go version %d", b.Go)
	case b.InjectList && (!b.Netpoll || b.Gs < 2):
		return fmt.Errorf("bounds: InjectList needs Netpoll and Gs >= 2")
	case b.ProcResize && !b.STW:
		return fmt.Errorf("bounds: ProcResize needs STW (procresize runs with the world stopped)")
	case b.PollBlock && !b.Netpoll:
		return fmt.Errorf("bounds: PollBlock needs Netpoll (an M blocks in the network poller)")
	case b.Timers < 0 || b.Timers > MaxTimerDelay:
		return fmt.Errorf("bounds: Timers=%d, want 0..%d", b.Timers, MaxTimerDelay)
	case b.Timers > 0 && !b.PollBlock:
		return fmt.Errorf("bounds: Timers needs PollBlock (an M with no work sleeps in netpoll until its timer)")
	case b.Timers > 0 && b.Ps > 4:
		return fmt.Errorf("bounds: Timers needs Ps <= 4 (the key keeps pollUntil beside the scan mask)")
	case (b.Bug == BugTimersNotStolen && b.Timers == 0) || (b.Bug == BugHandoffIgnoresPoller && !b.PollBlock):
		return fmt.Errorf("bounds: seeded bug %v needs its bound (Timers or PollBlock)", b.Bug)
	}
	if b.Cap > MaxCap {
		return fmt.Errorf("bounds: Cap=%d, want at most %d", b.Cap, MaxCap)
	}
	if err := ValidQueueCap(b.Cap); err != nil {
		return fmt.Errorf("bounds: %v", err)
	}
	return nil
}

func (b Bounds) String() string {
	b = b.withDefaults()
	s := fmt.Sprintf("Ps=%d Ms=%d Gs=%d Cap=%d Spawn=%d SchedTick=%d Syscalls=%v Netpoll=%v",
		b.Ps, b.Ms, b.Gs, b.Cap, b.Spawn, b.SchedTick, b.Syscalls, b.Netpoll)
	if b.InjectList {
		s += " InjectList=true"
	}
	if b.SyscallBlock {
		s += " SyscallBlock=true"
	}
	if b.LockOSThread {
		s += " LockOSThread=true"
	}
	if b.NoPark {
		s += " NoPark=true"
	}
	if b.Goyield {
		s += " Goyield=true"
	}
	if b.STW {
		s += " STW=true"
	}
	if b.ProcResize {
		s += " ProcResize=true"
	}
	if b.PollBlock {
		s += " PollBlock=true"
	}
	if b.Timers > 0 {
		s += fmt.Sprintf(" Timers=%d", b.Timers)
	}
	if b.Go != Go126 {
		s += " Go=" + b.Go.String()
	}
	if b.Bug != BugNone {
		s += " Bug=" + b.Bug.String()
	}
	return s
}
