package spec

import (
	"strings"
	"testing"
)

// Invariant clauses that no reachable state breaks are checked only by
// states made to break them. A mutation run showed the cost of leaving
// them unchecked: a clause weakened from || to && (or a disjunct negated
// away) is invisible to every test that explores reachable states, and
// 230 of check.go's 455 operator mutants sat on clauses no test of this
// package ever fired. TestCheckClausesFire breaks each clause, one
// disjunct per row, in a reachable state otherwise whole, and Check must
// report that clause: not merely some invariant, since the invariants
// overlap (an M holding a P it should not also breaks the P counts), and
// the clause that names the fault is what a reader of a counterexample
// gets.

// Where a disjunct is shadowed by an earlier clause, it has no row: a
// spinning M without a P breaks invariant 3 before its PC's clause is
// reached (a thief's, a runnext reader's, resetspinning's "P == NoP", and
// the no-P PCs' "Spinning"), and a locked M's own clause reports a parked
// locked M holding a P or a G before stoplockedm's does. Check returns the
// same error with or without such a disjunct, so its mutants are
// equivalent. Two clauses of checkPoll have no row because no state
// reaches them: the poller's fields set in a model without the poller
// (checkPoll returns first unless the model has it, and the state's poll
// flag is the model's bound, as mutate.Equivalents argues for
// spec/check.go:398:21).

// clauseModels are the small models whose reachable states the rows
// corrupt, each explored once, as far as its rows ask (up to clauseStates
// states).
var clauseModels = map[string]Bounds{
	"steal":     {Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, Syscalls: true},
	"inject":    {Ps: 1, Ms: 2, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Netpoll: true, InjectList: true},
	"locked":    {Ps: 1, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true, LockOSThread: true},
	"lockcheck": {Ps: 1, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true, LockOSThread: true, Go: Go117dev},
	"resize":    {Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, Syscalls: true, STW: true, ProcResize: true},
	"poll":      {Ps: 1, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, Netpoll: true, PollBlock: true, Timers: 1},
	"block":     {Ps: 1, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, Syscalls: true, SyscallBlock: true},
	"locked2":   {Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, LockOSThread: true},
}

const clauseStates = 60000

// clauseRow breaks one clause: in the first reached state of model where
// at holds for some M m (-1: any state, m 0), set corrupts it, and Check
// (of the model with check's bounds, if given) must report msg.
type clauseRow struct {
	name  string
	model string
	at    func(s *State, m int) bool
	set   func(s *State, m int)
	msg   string
	check func(b *Bounds) // the bounds Check judges by, changed from the model's
}

// lockedRun: m0 runs the G locked to it (the "locked" model has Gs 1 and
// 2, so 3 - LockedG is the other).
func lockedRun(s *State, m int) bool {
	return m == 0 && s.M[0].PC == MRun && s.M[0].LockedG != NoG && s.M[0].CurG == s.M[0].LockedG
}

// lockedParked: m is locked to a G and parked in stoplockedm.
func lockedParked(s *State, m int) bool { return s.M[m].LockedG != NoG && s.M[m].PC == MLockedWait }

// blockedInNetpoll selects states where M want blocks in netpoll with a
// timeout still ahead (pollUntil past 1), which a row then brings to 1.
func blockedInNetpoll(want int) func(s *State, m int) bool {
	return func(s *State, m int) bool { return m == want && s.M[m].PC == MNetpoll && s.PollUntil > 1 }
}

// runsG: M m runs a G, with a P.
func runsG(s *State, m int) bool {
	return s.M[m].PC == MRun && s.M[m].CurG != NoG && s.M[m].P != NoP && s.G[s.M[m].CurG] == GRunning
}

func atPC(pcs ...MPC) func(s *State, m int) bool {
	return func(s *State, m int) bool {
		for _, pc := range pcs {
			if s.M[m].PC == pc {
				return true
			}
		}
		return false
	}
}

func anyState(*State, int) bool { return true }

// spinningWithGlobal: M m spins at pc holding a P, and a G waits on the
// global queue (to be moved onto that P by queueGlobalHeadLocally).
func spinningWithGlobal(pc MPC) func(s *State, m int) bool {
	return func(s *State, m int) bool {
		return s.M[m].Spinning && s.M[m].P != NoP && s.M[m].PC == pc && s.Runq.N > 0 && s.P[s.M[m].P].RunNext == NoG
	}
}

// queueGlobalHeadLocally moves the global queue's head to the runnext of
// M m's P: the G is still runnable in exactly one queue, and only the
// P's emptiness changes.
func queueGlobalHeadLocally(s *State, m int) {
	s.P[s.M[m].P].RunNext = s.globrunqget()
}

func clauseRows() []clauseRow {
	stealNext := atPC(MStealNext)
	steal := atPC(MSteal)
	wake := func(s *State, m int) bool { return s.M[m].Wake != WakeNone }
	inj := func(s *State, m int) bool { return s.M[m].Inj != NoG && s.M[m].PC != MExitLockCheck }
	injPC := func(s *State, m int) bool {
		return (s.M[m].PC == MInjectGlob || s.M[m].PC == MInjectLocal) && s.M[m].Inj != NoG
	}
	oldP := func(s *State, m int) bool { return s.M[m].OldP != 0 }
	nextP := func(s *State, m int) bool { return s.M[m].NextP != 0 }
	snap := func(s *State, m int) bool { return s.M[m].SnapPs != 0 && s.M[m].SnapPs < 2 && !s.M[m].Spinning }
	retake := func(s *State, m int) bool { return s.RetakeP != 0 }
	gcWaiting := func(s *State, m int) bool { return s.GCWaiting && s.P[0].Status == PGCStop }
	stopping := func(s *State, m int) bool { return s.STW == STWStopping && s.StopWait == 0 }
	stillStopping := func(s *State, m int) bool { return s.STW == STWStopping && s.StopWait != 0 }
	noIdleP := func(s *State, m int) bool { return s.STW == STWNone && s.NPIdle == 0 }
	shrunk := func(s *State, m int) bool { return s.Procs == 1 && !s.GCWaiting }
	return []clauseRow{
		// Bad numbers.
		{"bad P", "steal", atPC(MRun), func(s *State, m int) { s.M[m].P = 2 }, "holds bad P", nil},
		{"negative P", "steal", atPC(MRun), func(s *State, m int) { s.M[m].P = -2 }, "holds bad P", nil},
		{"bad queued G", "steal", anyState, func(s *State, _ int) { s.Runq.Gs[s.Runq.N] = 3; s.Runq.N++ }, "queue holds bad G 3", nil},
		{"queued G 0", "steal", anyState, func(s *State, _ int) { s.Runq.Gs[s.Runq.N] = NoG; s.Runq.N++ }, "queue holds bad G 0", nil},
		{"bad pc", "steal", atPC(MIdle), func(s *State, m int) { s.M[m].PC = 200 }, "bad pc", nil},
		{"ring past Cap", "steal", anyState, func(s *State, _ int) { s.P[1].N = 3 }, "ring holds 3 > Cap 2", nil},

		// Where a G is. A runnable G that is an M's curg must be in that
		// M's hand (exitsyscallNoP, resetspinning's find): not a running
		// M's G, whose status alone says runnable.
		{"runnable curg of a running M", "steal", runsG, func(s *State, m int) { s.G[s.M[m].CurG] = GRunnable }, "runnable g", nil},

		// wakep's stages.
		{"wake stage past CAS", "steal", wake, func(s *State, m int) { s.M[m].Wake = WakeCAS + 1 }, "in WakeStage(3)", nil},
		{"wakep without a P", "steal", wake, func(s *State, m int) { s.M[m].P = NoP }, "in wakep", nil},
		{"wakep at a PC that calls none", "steal", wake, func(s *State, m int) { s.M[m].PC = MLocal }, "in wakep", nil},
		{"wakep with curg at MSched", "steal", func(s *State, m int) bool { return wake(s, m) && s.M[m].PC == MSched }, func(s *State, m int) { s.M[m].CurG = 1 }, "in wakep", nil},
		{"wakep without curg at MRun", "steal", func(s *State, m int) bool { return wake(s, m) && s.M[m].PC == MRun }, func(s *State, m int) { s.M[m].CurG = NoG }, "in wakep", nil},

		// The steal scan.
		{"thief with a G", "steal", steal, func(s *State, m int) { s.M[m].CurG = 1 }, "stealing with", nil},
		{"thief not spinning", "steal", steal, func(s *State, m int) { s.M[m].Spinning = false }, "stealing with", nil},
		{"thief scanned its own P", "steal", steal, func(s *State, m int) { s.M[m].Scan |= 1 << s.M[m].P }, "stealing with", nil},
		{"thief on p1 scanned its own P", "steal", func(s *State, m int) bool { return steal(s, m) && s.M[m].P == 1 }, func(s *State, m int) { s.M[m].Scan |= 1 << s.M[m].P }, "stealing with", nil},
		{"victim kept past runqgrab", "steal", steal, func(s *State, m int) { s.M[m].Victim = 1 }, "keeps runqgrab's victim p0", nil},
		{"runnext read with a G", "steal", stealNext, func(s *State, m int) { s.M[m].CurG = 1 }, "reading p", nil},
		{"runnext read not spinning", "steal", stealNext, func(s *State, m int) { s.M[m].Spinning = false }, "reading p", nil},
		{"runnext read of no victim", "steal", stealNext, func(s *State, m int) { s.M[m].Victim = 0 }, "reading p-1", nil},
		{"runnext read past the Ps", "steal", stealNext, func(s *State, m int) { s.M[m].Victim = 3; s.M[m].Scan |= 1 << 2 }, "reading p2", nil},
		{"runnext read of its own P", "steal", stealNext, func(s *State, m int) { s.M[m].Victim = s.M[m].P + 1 }, "reading p", nil},
		{"runnext read of an unscanned P", "steal", stealNext, func(s *State, m int) { s.M[m].Scan &^= 1 << (s.M[m].Victim - 1) }, "reading p", nil},
		{"runnext read with its own P scanned", "steal", stealNext, func(s *State, m int) { s.M[m].Scan |= 1 << s.M[m].P }, "reading p", nil},

		// The scheduler's PCs.
		{"MSched without a P", "steal", atPC(MSched, MLocal, MSpin, MDrop), func(s *State, m int) { s.M[m].P = NoP }, "with P=-1", nil},
		{"MSched with a G", "steal", atPC(MSched, MLocal, MSpin, MDrop), func(s *State, m int) { s.M[m].CurG = 2 }, "curg=g2", nil},
		{"dropping spinning with a G", "steal", atPC(MDropSpin), func(s *State, m int) { s.M[m].CurG = 1 }, "dropping spinning", nil},
		{"dropping spinning not spinning", "steal", atPC(MDropSpin), func(s *State, m int) { s.M[m].Spinning = false }, "dropping spinning", nil},
		{"resetspinning without a G", "steal", atPC(MResetSpin), func(s *State, m int) { s.M[m].CurG = NoG }, "about to resetspinning", nil},
		{"resetspinning with a bad G", "steal", atPC(MResetSpin), func(s *State, m int) { s.M[m].CurG = 3 }, "about to resetspinning", nil},
		{"resetspinning not spinning", "steal", atPC(MResetSpin), func(s *State, m int) { s.M[m].Spinning = false }, "about to resetspinning", nil},
		{"running a bad G", "steal", atPC(MRun), func(s *State, m int) { s.M[m].CurG = 3 }, "running m", nil},

		// System calls and sysmon.
		{"oldp at another PC", "steal", oldP, func(s *State, m int) { s.M[m].PC = MSched }, "keeps oldp", nil},
		{"oldp with a P", "steal", oldP, func(s *State, m int) { s.M[m].P = s.M[m].OldP - 1 }, "keeps oldp", nil},
		{"oldp without a G", "steal", oldP, func(s *State, m int) { s.M[m].CurG = NoG }, "keeps oldp", nil},
		{"oldp out of a syscall", "steal", oldP, func(s *State, m int) { s.G[s.M[m].CurG] = GRunning }, "keeps oldp", nil},
		{"oldp past the Ps", "steal", oldP, func(s *State, m int) { s.M[m].OldP = 3 }, "keeps oldp p2", nil},
		// A locked M given a P by startlockedm before it parked (m.nextp):
		// it is at the top of schedule, about to stoplockedm, holding a P.
		{"nextp at another PC", "locked2", nextP, func(s *State, m int) { s.M[m].PC = MLocal }, "has nextp", nil},
		{"nextp without a P", "locked2", nextP, func(s *State, m int) { s.M[m].P = NoP }, "has nextp", nil},
		{"nextp unlocked", "locked2", nextP, func(s *State, m int) { s.M[m].LockedG = NoG }, "has nextp", nil},
		{"nextp past the Ps", "locked2", nextP, func(s *State, m int) { s.M[m].NextP = 3 }, "has nextp p2", nil},
		// A spinning M whose P has local work, at the top of the loop or at
		// runqget: allowed only with timers, whose checkTimers can ready
		// Gs onto it (timersReadied), so these models refuse it.
		{"spinning at the top with local work", "steal", spinningWithGlobal(MSched), queueGlobalHeadLocally, "has local work", nil},
		{"spinning at runqget with local work", "steal", spinningWithGlobal(MLocal), queueGlobalHeadLocally, "has local work", nil},
		// With timers the exemption is the top of schedule once its
		// checkTimers has run (Checked), or past it: before that
		// check nothing has readied a G onto the spinning M's P.
		{"spinning at the top before checkTimers with local work", "poll", func(s *State, m int) bool {
			return spinningWithGlobal(MSched)(s, m) && !s.M[m].Checked
		}, queueGlobalHeadLocally, "has local work", nil},
		// A G running on an M without a P: the M in entersyscallblock, which
		// handed its P off and keeps no oldp, its G's status made running.
		{"running G without a P", "block", func(s *State, m int) bool {
			return s.M[m].PC == MRun && s.M[m].P == NoP && s.M[m].OldP == 0 && s.M[m].CurG != NoG
		}, func(s *State, m int) { s.G[s.M[m].CurG] = GRunning }, "with a P: false", nil},
		{"exitsyscallNoP without a G", "steal", atPC(MSyscallNoP), func(s *State, m int) { s.M[m].CurG = NoG }, "in exitsyscallNoP", nil},
		{"exitsyscallNoP with a bad G", "steal", atPC(MSyscallNoP), func(s *State, m int) { s.M[m].CurG = 3 }, "in exitsyscallNoP", nil},
		{"retake without syscalls", "steal", retake, func(*State, int) {}, "sysmon holds p", func(b *Bounds) { b.Syscalls = false }},
		{"retake past the Ps", "steal", retake, func(s *State, _ int) { s.RetakeP = 3 }, "sysmon holds p2 for handoffp", nil},
		{"retake of an idle P", "steal", retake, func(s *State, _ int) { s.P[s.RetakeP-1].Status = PIdle }, "sysmon holds p", nil},
		{"needspinning in go1.19", "steal", anyState, func(s *State, _ int) { s.NeedSpinning = true }, "needspinning set", func(b *Bounds) { b.Go = Go119 }},

		// injectglist.
		{"inject list at another PC", "inject", inj, func(s *State, m int) { s.M[m].PC = MRun }, "for injectglist", nil},
		{"injectglist without a P", "inject", injPC, func(s *State, m int) { s.M[m].P = NoP }, "in injectglist (", nil},
		{"injectglist without a G", "inject", injPC, func(s *State, m int) { s.M[m].CurG = NoG }, "in injectglist (", nil},
		{"injectglist with a bad G", "inject", injPC, func(s *State, m int) { s.M[m].CurG = 4 }, "in injectglist (", nil},
		{"injectglist without its list", "inject", injPC, func(s *State, m int) { s.M[m].Inj = NoG }, "in injectglist (", nil},
		{"injectglist of a bad G", "inject", injPC, func(s *State, m int) { s.M[m].Inj = 4 }, "in injectglist (", nil},
		{"injectglist of its own G", "inject", injPC, func(s *State, m int) { s.M[m].Inj = s.M[m].CurG }, "in injectglist (", nil},

		// LockOSThread.
		{"startlockedm without a P", "locked", atPC(MStartLocked), func(s *State, m int) { s.M[m].P = NoP }, "about to startlockedm", nil},
		{"startlockedm without a G", "locked", atPC(MStartLocked), func(s *State, m int) { s.M[m].CurG = NoG }, "about to startlockedm", nil},
		{"startlockedm with a bad G", "locked", atPC(MStartLocked), func(s *State, m int) { s.M[m].CurG = 3 }, "about to startlockedm", nil},
		{"startlockedm spinning", "locked", atPC(MStartLocked), func(s *State, m int) { s.M[m].Spinning = true; s.NMSpinning++ }, "about to startlockedm", nil},
		{"startlockedm of an unlocked G", "locked", atPC(MStartLocked), func(s *State, m int) { s.M[m].CurG = 3 - s.M[m].CurG }, "about to startlockedm", nil},
		{"parked in stoplockedm unlocked", "locked", atPC(MLockedWait), func(s *State, m int) { s.M[m].LockedG = NoG }, "parked in stoplockedm", nil},
		{"lock check with a P", "lockcheck", atPC(MExitLockCheck), func(s *State, m int) { s.M[m].P = 0 }, "about to read the lockedm", nil},
		{"lock check with a G", "lockcheck", atPC(MExitLockCheck), func(s *State, m int) { s.M[m].CurG = 2 }, "about to read the lockedm", nil},
		{"lock check of a bad G", "lockcheck", func(s *State, m int) bool { return s.M[m].PC == MExitLockCheck && s.M[m].Inj != NoG }, func(s *State, m int) { s.M[m].Inj = 3 }, "about to read the lockedm", nil},
		{"lock check with neither G", "lockcheck", func(s *State, m int) bool { return s.M[m].PC == MExitLockCheck && s.M[m].Inj != NoG }, func(s *State, m int) { s.M[m].Inj = NoG }, "about to read the lockedm", nil},
		{"lock check in go1.26", "lockcheck", atPC(MExitLockCheck), func(*State, int) {}, "about to read the lockedm", func(b *Bounds) { b.Go = Go126 }},

		// Stop-the-world and procresize.
		{"snapshot outside the recheck", "resize", snap, func(s *State, m int) { s.M[m].PC = MIdle }, "allp snapshot", nil},
		{"snapshot past the Ps", "resize", snap, func(s *State, m int) { s.M[m].SnapPs = 3 }, "allp snapshot", nil},
		{"snapshot without procresize", "resize", snap, func(*State, int) {}, "allp snapshot", func(b *Bounds) { b.ProcResize = false }},
		{"scan past the snapshot", "resize", snap, func(s *State, m int) { s.M[m].Scan |= 1 << s.M[m].SnapPs }, "allp snapshot", nil},
		{"gcwaiting outside the stop", "resize", noIdleP, func(s *State, _ int) { s.GCWaiting = true }, "gcwaiting=true in stopper phase 0", nil},
		{"gomaxprocs 0", "resize", anyState, func(s *State, _ int) { s.Procs = 0 }, "gomaxprocs=0", nil},
		{"gomaxprocs past the Ps", "resize", anyState, func(s *State, _ int) { s.Procs = 3 }, "gomaxprocs=3", nil},
		{"grown outside go1.10dev", "resize", stopping, func(s *State, _ int) { s.STW = STWGrown }, "allp grown", nil},
		{"grown before the world stopped", "resize", stillStopping, func(s *State, _ int) { s.STW = STWGrown }, "allp grown", func(b *Bounds) { b.Go = Go110dev }},
		{"stopwait off by one", "resize", gcWaiting, func(s *State, _ int) { s.StopWait++ }, "Ps are not stopped", nil},
		{"stopwait without a stop", "resize", func(s *State, _ int) bool { return !s.GCWaiting }, func(s *State, _ int) { s.StopWait = 1 }, "without a stop-the-world", nil},
		{"stopped P without a stop", "resize", gcWaiting, func(s *State, _ int) { s.GCWaiting, s.STW, s.StopWait = false, STWNone, 0 }, "stopped but no stop-the-world", nil},
		{"dead P below gomaxprocs", "resize", shrunk, func(s *State, _ int) { s.Procs = 2 }, "below gomaxprocs=2 is dead", nil},
		{"P past gomaxprocs alive", "resize", shrunk, func(s *State, _ int) { s.P[1].SchedTick = 1 }, "past gomaxprocs=1", nil},
		{"P past gomaxprocs stopped", "resize", shrunk, func(s *State, _ int) { s.P[1].Status = PGCStop }, "past gomaxprocs=1", nil},
		{"P past gomaxprocs with work", "resize", shrunk, func(s *State, _ int) { s.P[1].RunNext = 1 }, "past gomaxprocs=1", nil},
		{"stopped P in a model without", "steal", anyState, func(s *State, _ int) { s.P[1].Status = PGCStop }, "without a stop-the-world", nil},
		{"idle P while the world stops", "resize", gcWaiting, func(s *State, _ int) { s.P[0].Status = PIdle }, "idle while a stop-the-world waits", nil},
		{"stopped P held", "resize", func(s *State, m int) bool { return s.P[0].Status == PGCStop && s.M[m].PC == MRun && s.M[m].P == 1 }, func(s *State, m int) { s.M[m].P = 0 }, "gcstop p0 is held by 1 Ms", nil},

		// Where the Ps and Gs are.
		{"running P held by none", "steal", func(s *State, m int) bool { return s.M[m].PC == MRun && s.M[m].P == 0 && s.P[1].Status == PRunning }, func(s *State, m int) { s.M[m].P = 1 }, "running p0 is held by 0 Ms", nil},
		{"retaken P held", "steal", func(s *State, m int) bool { return s.RetakeP == 1 && s.M[m].PC == MRun && s.M[m].P == 1 }, func(s *State, m int) { s.M[m].P = 0 }, "taken by sysmon's retake, is held by 1 Ms", nil},
		{"idle P held", "steal", func(s *State, m int) bool {
			return s.M[m].PC == MRun && s.M[m].P == 1 && s.P[1].N == 0 && s.P[1].RunNext == NoG
		}, func(s *State, _ int) { s.P[1].Status = PIdle }, "idle p1 is held by an M", nil},
		{"syscall G queued too", "steal", func(s *State, m int) bool {
			return s.M[m].PC == MRun && s.G[s.M[m].CurG] == GSyscall && int(s.Runq.N) < len(s.Runq.Gs)
		}, func(s *State, m int) { s.Runq.Gs[s.Runq.N] = s.M[m].CurG; s.Runq.N++ }, "in syscall: in 1 queues", nil},
		{"syscall G of no M", "steal", func(s *State, _ int) bool { return s.G[2] == GWaiting }, func(s *State, _ int) { s.G[2] = GSyscall }, "g2 in syscall: in 0 queues, curg of 0 Ms", nil},
		{"waiting G queued", "steal", func(s *State, _ int) bool { return s.G[2] == GWaiting && int(s.Runq.N) < len(s.Runq.Gs) }, func(s *State, _ int) { s.Runq.Gs[s.Runq.N] = 2; s.Runq.N++ }, "waiting g2 is in 1 queues", nil},
		{"G of no status", "steal", anyState, func(s *State, _ int) { s.G[2] = GDead + 1 }, "g2 has bad status", nil},
		{"G locked to two Ms", "locked", func(s *State, m int) bool { return m == 0 && s.M[0].LockedG != NoG }, func(s *State, _ int) { s.M[1].LockedG = s.M[0].LockedG }, "is locked to both m0 and m1", nil},

		{"locked M running another G", "locked", lockedRun, func(s *State, _ int) { s.M[0].CurG = 3 - s.M[0].LockedG }, "m0 locked to", nil},
		{"locked M spinning", "locked", lockedRun, func(s *State, _ int) { s.M[0].Spinning = true }, "m0 locked to", nil},
		{"locked M scanning", "locked", lockedRun, func(s *State, _ int) { s.M[0].Scan = 1 }, "m0 locked to", nil},
		// A locked M parked in stoplockedm holds neither a G nor a P:
		// each alone breaks its shape.
		{"locked M parked with a G", "locked", lockedParked, func(s *State, m int) { s.M[m].CurG = s.M[m].LockedG }, "m0 locked to g1 at lockedwait", nil},
		{"locked M parked with a P", "locked", lockedParked, func(s *State, m int) { s.M[m].P = 0 }, "m0 locked to g1 at lockedwait", nil},

		// The blocking poller and timers.
		// m0 and m1 blocked in netpoll past the poller's timeout (the
		// clause must look at every M, m0 included).
		{"m0 blocks past its timeout", "poll", blockedInNetpoll(0), func(s *State, _ int) { s.PollUntil = 1 }, "m0 still blocks in netpoll past its timeout", nil},
		{"m1 blocks past its timeout", "poll", blockedInNetpoll(1), func(s *State, _ int) { s.PollUntil = 1 }, "m1 still blocks in netpoll past its timeout", nil},
		{"poll check with a P", "poll", atPC(MTimersNoP, MPollCheck, MNetpoll, MNetpollRet), func(s *State, m int) { s.M[m].P = 0 }, "spinning=", nil},
		{"poll check with a G", "poll", atPC(MTimersNoP, MPollCheck, MNetpoll, MNetpollRet), func(s *State, m int) { s.M[m].CurG = 2 }, "spinning=", nil},
		{"poll check without the poller", "poll", atPC(MTimersNoP, MPollCheck, MNetpoll, MNetpollRet), func(*State, int) {}, "spinning=", func(b *Bounds) { b.PollBlock, b.Timers = false, 0 }},
		{"back from netpoll with a P", "poll", atPC(MNetpollLock), func(s *State, m int) { s.M[m].P = 0 }, "back from netpoll", nil},
		{"back from netpoll with a bad G", "poll", atPC(MNetpollLock), func(s *State, m int) { s.M[m].CurG = 3 }, "back from netpoll", nil},
		{"back from netpoll without the poller", "poll", atPC(MNetpollLock), func(*State, int) {}, "back from netpoll", func(b *Bounds) { b.PollBlock, b.Timers = false, 0 }},
		{"pollUntil past the longest sleep", "poll", func(s *State, m int) bool { return s.M[m].PollUntil != 0 }, func(s *State, m int) { s.M[m].PollUntil = 3 }, "past the longest sleep", nil},
		{"sched.pollUntil past the longest sleep", "poll", func(s *State, _ int) bool { return s.PollUntil != 0 }, func(s *State, _ int) { s.PollUntil = 3 }, "sched.pollUntil 3 past the longest sleep", nil},
		{"sched.pollUntil with nobody polling", "poll", func(s *State, _ int) bool { return s.LastPoll }, func(s *State, _ int) { s.PollUntil = 1 }, "with nobody in netpoll", nil},
		{"timer on a bad P", "poll", func(s *State, _ int) bool { return s.TimerP[2] != 0 }, func(s *State, _ int) { s.TimerP[2] = 2 }, "has a timer on p1", nil},
		{"timer past the longest sleep", "poll", func(s *State, _ int) bool { return s.TimerP[2] != 0 }, func(s *State, _ int) { s.TimerWhen[2] = 2 }, "past the longest sleep", nil},
	}
}

func TestCheckClausesFire(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	// Each model is explored only as far as its rows ask, so a row that
	// fails does so before the searches that later rows need.
	reached := map[string]*reach{}
	models := map[string]Model{}
	for name, b := range clauseModels {
		md, err := NewModel(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		models[name] = md
		reached[name] = newReach(md, clauseStates, nil)
	}
	for _, r := range clauseRows() {
		t.Run(r.name, func(t *testing.T) {
			md := models[r.model]
			if r.check != nil {
				b := clauseModels[r.model]
				r.check(&b)
				var err error
				if md, err = NewModel(b); err != nil {
					t.Fatal(err)
				}
			}
			// The row's first state, and then its first state with a G
			// in a P's ring: Check walks the rings before the clauses
			// that follow them, so a Check that stopped looking once it
			// had seen a ring G shows only there. With the ring the
			// corruption may trip an earlier clause (an idle P with
			// local work), so there Check need only fail.
			for _, ring := range []bool{false, true} {
				if !clauseFires(t, md, r, reached[r.model], ring) && !ring {
					t.Fatalf("no state of %s (%d reached) where the row applies", r.model, reached[r.model].visited)
				}
			}
		})
	}
}

// clauseFires corrupts, by row r, the first state of reached (with a G in
// some P's ring, if ring) where r applies, and requires Check to report
// r's clause. It reports whether r applied anywhere.
func clauseFires(t *testing.T, md Model, r clauseRow, reached *reach, ring bool) bool {
	t.Helper()
	for i := 0; ; i++ {
		s, ok := reached.state(i)
		if !ok {
			break
		}
		if ring && !ringHoldsAG(&s) {
			continue
		}
		for m := 0; m < s.NumMs(); m++ {
			if !r.at(&s, m) {
				continue
			}
			bad := s
			r.set(&bad, m)
			err := md.Check(bad)
			if err == nil || (!ring && !strings.Contains(err.Error(), r.msg)) {
				t.Fatalf("m%d corrupted (with a ring G: %v): Check says %v, want the clause %q\nbefore: %v\nafter: %v", m, ring, err, r.msg, s, bad)
			}
			return true
		}
	}
	return false
}

// ringHoldsAG reports whether some P's ring holds a G.
func ringHoldsAG(s *State) bool {
	for p := range s.P {
		if s.P[p].N > 0 {
			return true
		}
	}
	return false
}
