package spec

import "strconv"

// ActionKind names a step of the scheduler after the runtime function that
// takes it (docs/spec.md lists each with its proc.go counterpart).
type ActionKind uint8

const (
	// Goroutine actions: the running G on M decides (no fairness).
	ActNewProc      ActionKind = iota // newproc: go statement
	ActGoExit                         // goexit0 / gdestroy
	ActGosched                        // Gosched → goschedImpl
	ActPark                           // gopark → park_m
	ActReady                          // goready → ready(gp, next=true) (param G)
	ActEnterSyscall                   // entersyscall
	// Syscall exit, by the M whose G is in a syscall.
	ActExitSyscallFast  // exitsyscall with m.p still set
	ActExitSyscallIdleP // exitsyscallTryGetP → pidleget
	ActExitSyscallNoP   // exitsyscallNoP → globrunqput, stopm
	// The schedule loop, by an M in findRunnable (weakly fair per M).
	ActGlobal61         // schedtick%61 == 0 → globrunqget
	ActRunqGet          // runqget
	ActGlobRunqGetBatch // globrunqgetbatch + runqputbatch
	ActNetpoll          // netpoll(0) in findRunnable (param G)
	ActBecomeSpinning   // becomeSpinning
	ActSteal            // stealWork → runqsteal (param P: victim)
	ActReleaseP         // releasep + pidleput (+ drop nmspinning)
	ActRecheckGlobal    // no-P recheck of sched.runq
	ActRecheckRunqs     // checkRunqsNoP
	ActStopM            // stopm
	// sysmon and netpoll (external).
	ActPreempt     // retake → preemptone → gopreempt_m (param P)
	ActRetake      // retake → handoffp of a P in a syscall (param P)
	ActInjectGList // netpoll from sysmon → injectglist without a P (param G)
	numActionKinds
)

var actionNames = [numActionKinds]string{
	ActNewProc:          "NewProc",
	ActGoExit:           "GoExit",
	ActGosched:          "Gosched",
	ActPark:             "Park",
	ActReady:            "Ready",
	ActEnterSyscall:     "EnterSyscall",
	ActExitSyscallFast:  "ExitSyscallFast",
	ActExitSyscallIdleP: "ExitSyscallIdleP",
	ActExitSyscallNoP:   "ExitSyscallNoP",
	ActGlobal61:         "Global61",
	ActRunqGet:          "RunqGet",
	ActGlobRunqGetBatch: "GlobRunqGetBatch",
	ActNetpoll:          "Netpoll",
	ActBecomeSpinning:   "BecomeSpinning",
	ActSteal:            "Steal",
	ActReleaseP:         "ReleaseP",
	ActRecheckGlobal:    "RecheckGlobal",
	ActRecheckRunqs:     "RecheckRunqs",
	ActStopM:            "StopM",
	ActPreempt:          "Preempt",
	ActRetake:           "Retake",
	ActInjectGList:      "InjectGList",
}

func (k ActionKind) String() string {
	if k < numActionKinds {
		return actionNames[k]
	}
	return "ActionKind(" + strconv.Itoa(int(k)) + ")"
}

// ActionKinds lists every kind, in declaration order.
func ActionKinds() []ActionKind {
	out := make([]ActionKind, numActionKinds)
	for i := range out {
		out[i] = ActionKind(i)
	}
	return out
}

// schedStep reports whether k is a step of the schedule loop (findRunnable
// and its no-P recheck): the actions weak fairness per M is about.
func (k ActionKind) schedStep() bool { return k >= ActGlobal61 && k <= ActStopM }

// external reports whether k is taken by sysmon or netpoll rather than an M.
func (k ActionKind) external() bool { return k >= ActPreempt }

// Action is one step with its explicit parameters. M is the acting M (unused,
// -1, for sysmon and netpoll); P is the victim of Steal or the target of
// Preempt/Retake; G the goroutine readied by Ready, Netpoll or InjectGList.
type Action struct {
	Kind ActionKind
	M    int8
	P    int8
	G    GID
}

// String reads like "m0: Ready(g2)", "m1: Steal(p0)", "sysmon: Retake(p1)".
func (a Action) String() string {
	var who string
	switch {
	case a.Kind == ActInjectGList:
		who = "netpoll"
	case a.Kind.external():
		who = "sysmon"
	default:
		who = "m" + strconv.Itoa(int(a.M))
	}
	s := who + ": " + a.Kind.String()
	switch a.Kind {
	case ActReady, ActNetpoll, ActInjectGList:
		s += "(" + gName(a.G) + ")"
	case ActSteal, ActPreempt, ActRetake:
		s += "(p" + strconv.Itoa(int(a.P)) + ")"
	}
	return s
}
