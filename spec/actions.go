package spec

import "strconv"

// ActionKind names a step of the scheduler after the runtime function that
// takes it (docs/spec.md lists each with its proc.go counterpart).
type ActionKind uint8

const (
	// Goroutine actions: the running G on M decides (no fairness).
	ActNewProc           ActionKind = iota // newproc: go statement
	ActGoExit                              // goexit0 / gdestroy
	ActGosched                             // Gosched → goschedImpl
	ActGoyield                             // goyield → goyield_m after ReadyHandoff: runqput(pp, gp, false), schedule (Bounds.Goyield)
	ActPark                                // gopark → park_m
	ActReady                               // goready → ready(gp, next=true) (param G)
	ActReadyHandoff                        // semrelease1's direct hand-off: readyWithTime (ready, next=true, wakep), then its goyield (param G; Bounds.Goyield)
	ActEnterSyscall                        // entersyscall
	ActEnterSyscallBlock                   // entersyscallblock: handoffp(releasep()), then _Gsyscall (Bounds.SyscallBlock)
	ActLockOSThread                        // LockOSThread: m.lockedg = curg, g.lockedm = m (Bounds.LockOSThread)
	ActUnlockOSThread                      // UnlockOSThread: both cleared
	// Syscall exit, by the M whose G is in a syscall (the G decides when).
	ActExitSyscallFast  // exitsyscall with m.p still set
	ActExitSyscallOldP  // exitsyscallTryGetP: setBlockOnExitSyscall(oldp) won, takeP from its M (itself in a syscall), acquire it
	ActExitSyscallIdleP // exitsyscallTryGetP → pidleget
	ActExitSyscallNoP   // exitsyscallNoP: curg Grunning → Grunnable, dropg
	// The schedule loop, by an M in findRunnable (weakly fair per M).
	ActGlobal61             // schedtick%61 == 0 and sched.runq not empty → globrunqget under sched.lock
	ActGlobal61Miss         // schedtick%61 == 0 but sched.runq empty (read, or found under the lock)
	ActRunqGet              // runqget
	ActGlobRunqGetBatch     // globrunqgetbatch + runqputbatch (top, or before releasing the P)
	ActGlobRunqMiss         // local queue and sched.runq seen empty at the top
	ActNetpoll              // netpoll(0) in findRunnable (param G)
	ActNetpollInject        // netpoll(0) returns two: G to run, Inj to injectglist; its npidle load (Bounds.InjectList)
	ActInjectGlobrunq       // injectglist, npidle > 0 read: globrunqputbatch under sched.lock
	ActInjectStartIdle      // injectglist's startIdle: pidlegetSpinning and startm under sched.lock
	ActInjectRunqput        // injectglist, npidle == 0 read: runqputbatch on the M's P
	ActInjectWakep          // injectglist's final wakep (Go 1.23 on); then the netpolled G runs
	ActSpinOK               // 2*nmspinning < procs-npidle: the limit allows spinning
	ActBecomeSpinning       // becomeSpinning: m.spinning, nmspinning.Add(1), needspinning = 0
	ActSpinLimit            // 2*nmspinning >= procs-npidle: do not spin
	ActSteal                // stealWork visits a victim and runqsteal takes work (param P: victim)
	ActStealMiss            // stealWork visits a victim and finds nothing (param P: victim)
	ActStealEmptyRing       // runqgrab loads the victim's head and tail: its ring is empty (param P: victim); its runnext is next
	ActStealRunnext         // runqgrab's load and CAS of the victim's runnext (read empty ring before) took that G (param P: victim)
	ActNeedSpinning         // sched.needspinning set: becomeSpinning instead of releasing the P
	ActReleaseP             // releasep + pidleput under sched.lock
	ActDropSpinning         // m.spinning = false; nmspinning.Add(-1) after releasing the P
	ActRecheckGlobal        // no-P recheck of sched.runq: pidlegetSpinning got a P
	ActRecheckGlobalNoP     // no-P recheck of sched.runq: no idle P, needspinning = 1
	ActRecheckFound         // checkRunqsNoP looks at a P and sees work there (param P)
	ActRecheckRunqs         // then sched.lock: pidlegetSpinning got a P
	ActRecheckRunqsNoP      // then sched.lock: no idle P, needspinning = 1
	ActRecheckMiss          // checkRunqsNoP looks at a P and finds nothing (param P)
	ActStopM                // stopm: mput under sched.lock
	ActExitSyscallLateP     // exitsyscallNoP: pidleget under sched.lock got a P → execute
	ActExitSyscallGlobrunq  // exitsyscallNoP: no idle P → globrunqput, then stopm
	ActExitSyscallLockCheck // go1.17dev: after that put, read the G's lockedm: stoplockedm if set, else stopm
	ActResetSpinning        // schedule: resetspinning (nmspinning.Add(-1), then wakep) and execute
	ActStartLockedM         // schedule: startlockedm: releasep, the P to the G's locked M (State.lockedm), then stopm
	ActStopLockedM          // schedule of a locked M: stoplockedm: handoffp(releasep()), park until startlockedm
	ActGCStopM              // sched.gcwaiting seen at a safe point: gcstopm (a spinning M first drops nmspinning), the P to _Pgcstop, stopwait-- (Bounds.STW)
	// wakep, by the M that called it (weakly fair per M, like the loop).
	ActWakep       // nmspinning was 0 and the CAS 0 → 1 won
	ActWakepSkip   // nmspinning != 0 (an M spins already): return
	ActWakepStartM // sched.lock: pidlegetSpinning got a P → startm(spinning)
	ActWakepNoP    // sched.lock: no idle P → needspinning = 1, nmspinning.Add(-1)
	// sysmon and netpoll (external).
	ActPreempt       // retake → preemptone → gopreempt_m (param P)
	ActRetake        // retake: setBlockOnExitSyscall, the untimed rule, takeP and resume (param P); sysmon holds the P
	ActRetakeHandoff // retake's handoffp of the P it took (param P), its own step: the syscalling M may exit in between
	ActInjectGList   // netpoll from sysmon → injectglist without a P (param G)
	// The stopper of a stop-the-world (a GC cycle, a GOMAXPROCS call), external (Bounds.STW).
	ActStopTheWorld       // stopTheWorldWithSema's lock section: gcwaiting, the idle Ps and syscall Ps to _Pgcstop
	ActStartTheWorld      // startTheWorldWithSema's lock section: procresize(P: new gomaxprocs), gcwaiting cleared, Ps with work started
	ActStartTheWorldWakep // then its wakep (the CAS and the lock section as one step)
	ActProcResizeGrow     // go1.10dev: procresize grows allp (the new slot still nil) before it makes the P
	// The blocking poller and timers (Bounds.PollBlock, Bounds.Timers;
	// poller.go, timers.go). The M's steps are weakly fair per M like
	// the loop; NetpollReady and TimerTick are external. PollActionKinds
	// lists them; no model without those bounds takes them.
	ActNetpollBlock    // findRunnable's tail: sched.lastpoll.Swap(0) won; sched.pollUntil stored; the M blocks in netpoll
	ActNetpollBreak    // findRunnable's tail: the swap lost and the poller sleeps past the M's pollUntil: netpollBreak, then stopm
	ActNetpollWake     // the poller returns (netpollBreak or timeout): sched.pollUntil = 0, sched.lastpoll stored
	ActNetpollPidleget // back from the poll: pidleget under sched.lock got a P: run the readied G, or goto top
	ActNetpollNoP      // back from the poll: no idle P: injectglist(the readied G) without a P, then stopm
	ActCheckTimers     // findRunnable's top: checkTimers runs the M's own P's due timers (ready: runqput, wakep)
	ActStealTimers     // stealWork's last round: checkTimers(p2) runs the victim's due timers onto the M's P (param P: victim)
	ActCheckTimersNoP  // no-P: checkTimersNoP folds every P's earliest timer into pollUntil
	ActTimerSleep      // goroutine: time.Sleep: gopark, then resetForSleep adds the timer (param P: ticks) and wakeNetPoller
	ActNetpollReady    // external: the network readies a G while an M blocks in netpoll, which returns (param G)
	ActTimerTick       // external: the clock advances one tick
	numActionKinds
)

// numBaseActionKinds ends the kinds of the model without the blocking
// poller and timers.
const numBaseActionKinds = ActNetpollBlock

var actionNames = [numActionKinds]string{
	ActNewProc:              "NewProc",
	ActGoExit:               "GoExit",
	ActGosched:              "Gosched",
	ActGoyield:              "Goyield",
	ActPark:                 "Park",
	ActReady:                "Ready",
	ActReadyHandoff:         "ReadyHandoff",
	ActEnterSyscall:         "EnterSyscall",
	ActEnterSyscallBlock:    "EnterSyscallBlock",
	ActLockOSThread:         "LockOSThread",
	ActUnlockOSThread:       "UnlockOSThread",
	ActExitSyscallFast:      "ExitSyscallFast",
	ActExitSyscallOldP:      "ExitSyscallOldP",
	ActExitSyscallIdleP:     "ExitSyscallIdleP",
	ActExitSyscallNoP:       "ExitSyscallNoP",
	ActGlobal61:             "Global61",
	ActGlobal61Miss:         "Global61Miss",
	ActRunqGet:              "RunqGet",
	ActGlobRunqGetBatch:     "GlobRunqGetBatch",
	ActGlobRunqMiss:         "GlobRunqMiss",
	ActNetpoll:              "Netpoll",
	ActNetpollInject:        "NetpollInject",
	ActInjectGlobrunq:       "InjectGlobrunq",
	ActInjectStartIdle:      "InjectStartIdle",
	ActInjectRunqput:        "InjectRunqput",
	ActInjectWakep:          "InjectWakep",
	ActSpinOK:               "SpinOK",
	ActBecomeSpinning:       "BecomeSpinning",
	ActSpinLimit:            "SpinLimit",
	ActSteal:                "Steal",
	ActStealMiss:            "StealMiss",
	ActStealEmptyRing:       "StealEmptyRing",
	ActStealRunnext:         "StealRunnext",
	ActNeedSpinning:         "NeedSpinning",
	ActReleaseP:             "ReleaseP",
	ActDropSpinning:         "DropSpinning",
	ActRecheckGlobal:        "RecheckGlobal",
	ActRecheckGlobalNoP:     "RecheckGlobalNoP",
	ActRecheckFound:         "RecheckFound",
	ActRecheckRunqs:         "RecheckRunqs",
	ActRecheckRunqsNoP:      "RecheckRunqsNoP",
	ActRecheckMiss:          "RecheckMiss",
	ActStopM:                "StopM",
	ActExitSyscallLateP:     "ExitSyscallLateP",
	ActExitSyscallGlobrunq:  "ExitSyscallGlobrunq",
	ActExitSyscallLockCheck: "ExitSyscallLockCheck",
	ActResetSpinning:        "ResetSpinning",
	ActStartLockedM:         "StartLockedM",
	ActStopLockedM:          "StopLockedM",
	ActGCStopM:              "GCStopM",
	ActWakep:                "Wakep",
	ActWakepSkip:            "WakepSkip",
	ActWakepStartM:          "WakepStartM",
	ActWakepNoP:             "WakepNoP",
	ActPreempt:              "Preempt",
	ActRetake:               "Retake",
	ActRetakeHandoff:        "RetakeHandoff",
	ActInjectGList:          "InjectGList",
	ActStopTheWorld:         "StopTheWorld",
	ActStartTheWorld:        "StartTheWorld",
	ActStartTheWorldWakep:   "StartTheWorldWakep",
	ActProcResizeGrow:       "ProcResizeGrow",
	ActNetpollBlock:         "NetpollBlock",
	ActNetpollBreak:         "NetpollBreak",
	ActNetpollWake:          "NetpollWake",
	ActNetpollPidleget:      "NetpollPidleget",
	ActNetpollNoP:           "NetpollNoP",
	ActCheckTimers:          "CheckTimers",
	ActStealTimers:          "StealTimers",
	ActCheckTimersNoP:       "CheckTimersNoP",
	ActTimerSleep:           "TimerSleep",
	ActNetpollReady:         "NetpollReady",
	ActTimerTick:            "TimerTick",
}

func (k ActionKind) String() string {
	if k < numActionKinds {
		return actionNames[k]
	}
	return "ActionKind(" + strconv.Itoa(int(k)) + ")"
}

// ActionKinds lists every kind of the model, in declaration order: the
// vocabulary GMP.tla, the impl's Driver and conform share.
func ActionKinds() []ActionKind {
	out := make([]ActionKind, numActionKinds)
	for i := range out {
		out[i] = ActionKind(i)
	}
	return out
}

// PollActionKinds lists the kinds of the blocking poller and timers
// (Bounds.PollBlock, Bounds.Timers), in declaration order: the part of
// ActionKinds that only models with those bounds take.
func PollActionKinds() []ActionKind {
	var out []ActionKind
	for k := numBaseActionKinds; k < numActionKinds; k++ {
		out = append(out, k)
	}
	return out
}

// Poll reports whether k is one of PollActionKinds.
func (k ActionKind) Poll() bool { return k >= numBaseActionKinds && k < numActionKinds }

// schedStep reports whether k is a step of the schedule loop (findRunnable,
// its no-P recheck, stopm, and the lock section of exitsyscallNoP) or of
// wakep: the actions weak fairness per M is about. The poller's and the
// timers' M steps are too.
func (k ActionKind) schedStep() bool {
	return k >= ActGlobal61 && k <= ActWakepNoP || k >= ActNetpollBlock && k <= ActCheckTimersNoP
}

// mFair reports whether taking k is a step of the acting M's fairness
// family: a schedStep, or the Goyield that follows semrelease's hand-off
// (MState.excused).
func (k ActionKind) mFair() bool { return k.schedStep() || k == ActGoyield }

// InGo126 reports whether the Go 1.26 model can take k: every kind but the
// steps only an older release's variant has (ExitSyscallLockCheck:
// go1.17dev; ProcResizeGrow: go1.10dev).
func (k ActionKind) InGo126() bool { return k != ActExitSyscallLockCheck && k != ActProcResizeGrow }

// stopper reports whether k is a step of a stop-the-world's caller.
func (k ActionKind) stopper() bool { return k >= ActStopTheWorld && k <= ActProcResizeGrow }

// external reports whether k is taken by sysmon, netpoll, the stopper or
// the clock rather than an M.
func (k ActionKind) external() bool {
	return k >= ActPreempt && (k < ActNetpollBlock || k > ActTimerSleep)
}

// Action is one step with its explicit parameters. M is the acting M (unused,
// -1, for sysmon and netpoll); P is the victim of Steal/StealMiss, the P
// looked at by RecheckRunqs/RecheckRunqsNoP/RecheckMiss, or the target of
// Preempt/Retake/RetakeHandoff; G the goroutine readied by Ready, Netpoll or InjectGList.
type Action struct {
	Kind ActionKind
	M    int8
	P    int8
	G    GID
	Inj  GID // NetpollInject: the G handed to injectglist
}

// String reads like "m0: Ready(g2)", "m1: Steal(p0)", "sysmon: Retake(p1)".
func (a Action) String() string {
	var who string
	switch {
	case a.Kind == ActInjectGList || a.Kind == ActNetpollReady:
		who = "netpoll"
	case a.Kind == ActTimerTick:
		who = "clock"
	case a.Kind.stopper():
		who = "stopper"
	case a.Kind.external():
		who = "sysmon"
	default:
		who = "m" + strconv.Itoa(int(a.M))
	}
	s := who + ": " + a.Kind.String()
	switch a.Kind {
	case ActReady, ActReadyHandoff, ActNetpoll, ActInjectGList, ActNetpollReady:
		s += "(" + gName(a.G) + ")"
	case ActTimerSleep:
		s += "(" + strconv.Itoa(int(a.P)) + " ticks)"
	case ActStealTimers:
		s += "(p" + strconv.Itoa(int(a.P)) + ")"
	case ActNetpollInject:
		s += "(" + gName(a.G) + ", " + gName(a.Inj) + ")"
	case ActSteal, ActStealMiss, ActStealEmptyRing, ActStealRunnext, ActRecheckFound, ActRecheckMiss, ActPreempt, ActRetake, ActRetakeHandoff:
		s += "(p" + strconv.Itoa(int(a.P)) + ")"
	case ActStartTheWorld, ActProcResizeGrow:
		s += "(procs=" + strconv.Itoa(int(a.P)) + ")"
	}
	switch {
	case a.Inj != 0 && handsOff[a.Kind]:
		// appendStaleHandoffs' step (a test's knob).
		s += " [handoffp read nmspinning in m" + strconv.Itoa(int(a.Inj)-1) + "'s wakep, idled the P after its WakepNoP]"
	case a.Inj == spillLock && a.Kind == ActGoyield:
		// appendSpillLock's step (a test's knob).
		s = who + ": runqputslow's lock section"
	}
	return s
}

// netReady reports whether k is the network readying a G (netpoll(0) in
// findRunnable, sysmon's netpoll, the blocked poller's return).
func (k ActionKind) netReady() bool {
	return k == ActNetpoll || k == ActNetpollInject || k == ActInjectGList || k == ActNetpollReady
}
