package spec

import "fmt"

// InvariantError is a broken invariant: which one (its number in
// docs/spec.md) and what was seen.
type InvariantError struct {
	Inv int
	Msg string
}

func (e *InvariantError) Error() string { return fmt.Sprintf("invariant %d: %s", e.Inv, e.Msg) }

func inv(n int, format string, args ...any) error {
	return &InvariantError{Inv: n, Msg: fmt.Sprintf(format, args...)}
}

// Invariant numbers, as in docs/spec.md.
const (
	InvGPlace   = 1  // each G in exactly one place consistent with its status
	InvQueueCap = 2  // rings within capacity
	InvSpinning = 3  // a spinning M holds a P with an empty local queue (or has just released it)
	InvPIdle    = 4  // idle P: empty queue, no holder; running P: exactly one holder (sysmon's, between Retake and RetakeHandoff)
	InvCounts   = 5  // npidle and nmspinning equal their recounts; sched.pidle lists the idle Ps
	InvFreeLive = 6  // no G both free and live
	InvMShape   = 7  // M fields consistent with its PC
	InvLocked   = 8  // a locked G runs only on its M; one M per locked G
	InvSTW      = 9  // stop-the-world: no idle P while gcwaiting, stopwait counts the Ps not stopped, Ps past gomaxprocs dead and empty
	InvPoll     = 10 // the blocking poller and timers: one poller, lastpoll == 0 exactly while it polls, timers on waiting Gs
)

// Check reports the first invariant s breaks, or nil.
func (md Model) Check(s State) error { return md.check(&s) }

func (md *Model) check(s *State) error {
	nG, nP, nM := int(s.nG), int(s.nP), int(s.nM)
	// Where every G is: queued (count), curg of a holding M, curg of any M.
	var queued, curg [MaxGs + 1]uint8
	var curgWithP [MaxGs + 1]bool
	count := func(g GID) error {
		if g < 1 || int(g) > nG {
			return inv(InvGPlace, "queue holds bad G %d", g)
		}
		queued[g]++
		return nil
	}
	var holders [MaxPs]uint8
	var inHand [MaxGs + 1]bool // runnable curg of an M in exitsyscallNoP or about to resetspinning
	spinning := 0
	for m := 0; m < nM; m++ {
		ms := &s.M[m]
		if ms.P != NoP {
			if int(ms.P) < 0 || int(ms.P) >= nP {
				return inv(InvMShape, "m%d holds bad P %d", m, ms.P)
			}
			holders[ms.P]++
		}
		if ms.NextP != 0 {
			// A P in m.nextp is held by the locked M it was handed to.
			if ms.LockedG == NoG || ms.PC != MSched || ms.P == NoP || int(ms.NextP) > nP {
				return inv(InvMShape, "m%d at %v has nextp p%d (locked=%s, P=%d)", m, ms.PC, ms.NextP-1, gName(ms.LockedG), ms.P)
			}
			holders[ms.NextP-1]++
			// Its locked G came with it, still runnable, in no queue.
			curg[ms.LockedG]++
			inHand[ms.LockedG] = true
		}
		if g := ms.LockedG; g != NoG {
			if int(g) > nG || s.G[g] == GIdle || s.G[g] == GDead {
				return inv(InvLocked, "m%d is locked to %s, which is not live", m, gName(g))
			}
			for m2 := m + 1; m2 < nM; m2++ {
				if s.M[m2].LockedG == g {
					return inv(InvLocked, "%s is locked to both m%d and m%d", gName(g), m, m2)
				}
			}
			ok := false
			switch ms.PC {
			case MRun, MSyscallNoP:
				ok = ms.CurG == g
			case MSched, MLockedWait, MExitLockCheck:
				ok = ms.CurG == NoG && (ms.PC == MSched || ms.P == NoP)
			}
			if !ok || ms.Spinning || ms.Scan != 0 || ms.Inj != NoG {
				return inv(InvMShape, "m%d locked to %s at %v with P=%d curg=%s spinning=%v", m, gName(g), ms.PC, ms.P, gName(ms.CurG), ms.Spinning)
			}
		}
		if ms.Tainted {
			return inv(InvLocked, "m%d was cloned from a thread a locked G exited on (newm without the template thread)", m)
		}
		if ms.PC == MRun && ms.CurG != NoG && ms.LockedG != ms.CurG {
			if l := s.lockedm(ms.CurG); l >= 0 {
				return inv(InvLocked, "m%d runs %s, which is locked to m%d", m, gName(ms.CurG), l)
			}
		}
		// A spinning M's own run queue is empty: only the G running on a
		// P puts Gs on its local queue, and a spinning M runs none, until
		// it has found work (a steal or a global batch fills the queue just
		// before resetspinning: PC ResetSpin). This holds only because
		// timers are not modelled: stealWork runs other Ps' timers, whose
		// ready() puts Gs on the spinning M's own P.
		if ms.Spinning {
			spinning++
			switch {
			case ms.P == NoP && ms.PC != MDropSpin:
				return inv(InvSpinning, "m%d spins without a P", m)
			case ms.P != NoP && ms.PC != MResetSpin && ms.PC != MInjectWake && !md.timersReadied(ms):
				if ps := &s.P[ms.P]; !ps.empty() {
					return inv(InvSpinning, "m%d spins but its p%d has local work (runnext=%s, %d in ring)", m, ms.P, gName(ps.RunNext), ps.N)
				}
			}
		}
		switch {
		case ms.Wake == WakeCAS:
			spinning++ // its won CAS counts it in nmspinning until its lock section
			fallthrough
		case ms.Wake != WakeNone:
			if ms.Wake > WakeCAS || ms.P == NoP || (ms.PC != MRun && ms.PC != MSched && ms.PC != MResetSpin && ms.PC != MStartLocked) || (ms.PC == MSched) == (ms.CurG != NoG) {
				return inv(InvMShape, "m%d in %v at %v with P=%d curg=%s", m, ms.Wake, ms.PC, ms.P, gName(ms.CurG))
			}
		}
		snapPC := md.idleSnapshot && (ms.PC == MDrop || ms.PC == MDropSpin || ms.PC == MRecheck)
		if ms.Inj != NoG && ms.PC != MInjectGlob && ms.PC != MInjectLocal && ms.PC != MExitLockCheck {
			return inv(InvMShape, "m%d at %v holds %s for injectglist", m, ms.PC, gName(ms.Inj))
		}
		if ms.OldP != 0 && (ms.PC != MRun || ms.P != NoP || ms.CurG == NoG || s.G[ms.CurG] != GSyscall || int(ms.OldP) > nP) {
			return inv(InvMShape, "m%d at %v with P=%d curg=%s keeps oldp p%d", m, ms.PC, ms.P, gName(ms.CurG), ms.OldP-1)
		}
		if ms.Yield && (ms.PC != MRun || ms.P == NoP || ms.CurG == NoG || s.G[ms.CurG] != GRunning || !md.b.Goyield) {
			return inv(InvMShape, "m%d at %v with P=%d curg=%s is to goyield", m, ms.PC, ms.P, gName(ms.CurG))
		}
		if ms.SnapPs != 0 && (!ms.PC.rechecking() || int(ms.SnapPs) > nP || !md.b.ProcResize || ms.Scan>>ms.SnapPs != 0) {
			return inv(InvMShape, "m%d at %v keeps an allp snapshot of %d Ps (scan %s)", m, ms.PC, ms.SnapPs, scanString(ms.Scan))
		}
		if ms.Victim != 0 && ms.PC != MStealNext {
			return inv(InvMShape, "m%d at %v keeps runqgrab's victim p%d", m, ms.PC, ms.Victim-1)
		}
		if ms.Scan != 0 && ms.PC != MSteal && ms.PC != MStealNext && ms.PC != MRecheckRunqs && !snapPC {
			return inv(InvMShape, "m%d at %v has a scan in progress %s", m, ms.PC, scanString(ms.Scan))
		}
		switch ms.PC {
		case MIdle, MRecheck, MRecheckRunqs, MRecheckP, MStop:
			if ms.P != NoP || ms.CurG != NoG || ms.Spinning || ms.LockedG != NoG {
				return inv(InvMShape, "m%d at %v holds p%d / %s / spinning=%v", m, ms.PC, ms.P, gName(ms.CurG), ms.Spinning)
			}
		case MSched, MLocal, MPoll, MSpin, MDrop:
			if ms.P == NoP || ms.CurG != NoG {
				return inv(InvMShape, "m%d at %v with P=%d curg=%s", m, ms.PC, ms.P, gName(ms.CurG))
			}
		case MSteal:
			if ms.P == NoP || ms.CurG != NoG || !ms.Spinning || ms.Scan&(1<<ms.P) != 0 {
				return inv(InvMShape, "m%d stealing with P=%d curg=%s spinning=%v scan=%s", m, ms.P, gName(ms.CurG), ms.Spinning, scanString(ms.Scan))
			}
		case MStealNext:
			v := int(ms.Victim) - 1
			if ms.P == NoP || ms.CurG != NoG || !ms.Spinning || v < 0 || v >= nP || v == int(ms.P) || ms.Scan&(1<<v) == 0 || ms.Scan&(1<<ms.P) != 0 {
				return inv(InvMShape, "m%d reading p%d's runnext with P=%d curg=%s spinning=%v scan=%s", m, v, ms.P, gName(ms.CurG), ms.Spinning, scanString(ms.Scan))
			}
		case MDropSpin:
			if ms.P != NoP || ms.CurG != NoG || !ms.Spinning {
				return inv(InvMShape, "m%d dropping spinning with P=%d curg=%s spinning=%v", m, ms.P, gName(ms.CurG), ms.Spinning)
			}
		case MInjectGlob, MInjectLocal, MInjectStart, MInjectWake:
			withInj := ms.PC == MInjectGlob || ms.PC == MInjectLocal
			if ms.P == NoP || ms.CurG == NoG || int(ms.CurG) > nG || (ms.Inj != NoG) != withInj || int(ms.Inj) > nG || ms.Inj == ms.CurG {
				return inv(InvMShape, "m%d in injectglist (%v) with P=%d curg=%s inject=%s", m, ms.PC, ms.P, gName(ms.CurG), gName(ms.Inj))
			}
			curg[ms.CurG]++
			inHand[ms.CurG] = true
			if withInj {
				curg[ms.Inj]++
				inHand[ms.Inj] = true
			}
		case MStartLocked:
			if ms.P == NoP || ms.CurG == NoG || int(ms.CurG) > nG || ms.Spinning || s.lockedm(ms.CurG) < 0 || s.lockedm(ms.CurG) == m {
				return inv(InvMShape, "m%d about to startlockedm with P=%d curg=%s (locked to m%d) spinning=%v", m, ms.P, gName(ms.CurG), s.lockedm(ms.CurG), ms.Spinning)
			}
			curg[ms.CurG]++
			inHand[ms.CurG] = true
		case MExitLockCheck:
			if ms.P != NoP || ms.CurG != NoG || ms.Spinning || (ms.Inj != NoG) == (ms.LockedG != NoG) || int(ms.Inj) > nG || !md.b.lockCheckAfterPut() {
				return inv(InvMShape, "m%d about to read the lockedm of the G it queued with P=%d curg=%s inject=%s locked=%s", m, ms.P, gName(ms.CurG), gName(ms.Inj), gName(ms.LockedG))
			}
		case MLockedWait:
			if ms.P != NoP || ms.CurG != NoG || ms.LockedG == NoG {
				return inv(InvMShape, "m%d parked in stoplockedm with P=%d curg=%s locked=%s", m, ms.P, gName(ms.CurG), gName(ms.LockedG))
			}
		case MRecheckSpin:
			if ms.P == NoP || int(ms.CurG) > nG || ms.Spinning || ms.LockedG != NoG {
				return inv(InvMShape, "m%d about to becomeSpinning after the recheck with P=%d curg=%s spinning=%v", m, ms.P, gName(ms.CurG), ms.Spinning)
			}
			if ms.CurG != NoG {
				curg[ms.CurG]++
				inHand[ms.CurG] = true
			}
		case MResetSpin:
			if ms.P == NoP || ms.CurG == NoG || int(ms.CurG) > nG || !ms.Spinning {
				return inv(InvMShape, "m%d about to resetspinning with P=%d curg=%s spinning=%v", m, ms.P, gName(ms.CurG), ms.Spinning)
			}
			curg[ms.CurG]++
			inHand[ms.CurG] = true
		case MSyscallNoP:
			if ms.P != NoP || ms.CurG == NoG || int(ms.CurG) > nG || ms.Spinning {
				return inv(InvMShape, "m%d in exitsyscallNoP with P=%d curg=%s spinning=%v", m, ms.P, gName(ms.CurG), ms.Spinning)
			}
			curg[ms.CurG]++
			inHand[ms.CurG] = true
		case MTimersNoP, MPollCheck, MNetpoll, MNetpollRet:
			if ms.P != NoP || ms.CurG != NoG || ms.Spinning || !md.b.PollBlock {
				return inv(InvMShape, "m%d at %v with P=%d curg=%s spinning=%v", m, ms.PC, ms.P, gName(ms.CurG), ms.Spinning)
			}
		case MNetpollLock:
			if ms.P != NoP || ms.Spinning || int(ms.CurG) > nG || !md.b.PollBlock {
				return inv(InvMShape, "m%d back from netpoll with P=%d curg=%s spinning=%v", m, ms.P, gName(ms.CurG), ms.Spinning)
			}
			if ms.CurG != NoG {
				curg[ms.CurG]++
				inHand[ms.CurG] = true
			}
		case MRun:
			if ms.CurG == NoG || int(ms.CurG) > nG {
				return inv(InvMShape, "running m%d has curg %s", m, gName(ms.CurG))
			}
			curg[ms.CurG]++
			curgWithP[ms.CurG] = ms.P != NoP
		default:
			return inv(InvMShape, "m%d has bad pc %d", m, ms.PC)
		}
	}
	if s.RetakeP != 0 && (!md.b.Syscalls || int(s.RetakeP) > nP || s.P[s.RetakeP-1].Status != PRunning) {
		return inv(InvPIdle, "sysmon holds p%d for handoffp (syscalls=%v)", s.RetakeP-1, md.b.Syscalls)
	}
	if s.NeedSpinning && !md.b.needSpinning() {
		return inv(InvCounts, "needspinning set in %v, which has no such flag", md.b.Go)
	}
	for p := 0; p < nP; p++ {
		ps := &s.P[p]
		if int(ps.N) > md.b.Cap {
			return inv(InvQueueCap, "p%d ring holds %d > Cap %d", p, ps.N, md.b.Cap)
		}
		if ps.RunNext != NoG {
			if err := count(ps.RunNext); err != nil {
				return err
			}
		}
		for i := 0; i < int(ps.N); i++ {
			if err := count(ps.Ring[i]); err != nil {
				return err
			}
		}
		switch ps.Status {
		case PIdle:
			if !ps.empty() {
				return inv(InvPIdle, "idle p%d has local work (runnext=%s, %d in ring)", p, gName(ps.RunNext), ps.N)
			}
			if holders[p] != 0 {
				return inv(InvPIdle, "idle p%d is held by an M", p)
			}
		case PRunning:
			switch {
			case int(s.RetakeP) == p+1 && holders[p] != 0:
				return inv(InvPIdle, "p%d, taken by sysmon's retake, is held by %d Ms", p, holders[p])
			case int(s.RetakeP) != p+1 && holders[p] != 1:
				return inv(InvPIdle, "running p%d is held by %d Ms", p, holders[p])
			}
		case PGCStop, PDead:
			if holders[p] != 0 {
				return inv(InvSTW, "%v p%d is held by %d Ms", ps.Status, p, holders[p])
			}
		}
		if err := md.checkSTWP(s, p); err != nil {
			return err
		}
	}
	for i := 0; i < int(s.Runq.N); i++ {
		if err := count(s.Runq.Gs[i]); err != nil {
			return err
		}
	}
	for i := 0; i < int(s.transit.N); i++ {
		if err := count(s.transit.Gs[i]); err != nil {
			return err
		}
	}
	for g := 1; g <= nG; g++ {
		st := s.G[g]
		q, c := queued[g], curg[g]
		switch st {
		case GRunnable:
			if (q != 1 || c != 0) && (q != 0 || c != 1 || !inHand[g]) {
				return inv(InvGPlace, "runnable g%d is in %d queues and curg of %d Ms", g, q, c)
			}
		case GRunning:
			if q != 0 || c != 1 || !curgWithP[g] {
				return inv(InvGPlace, "running g%d: in %d queues, curg of %d Ms, with a P: %v", g, q, c, curgWithP[g])
			}
		case GSyscall:
			if q != 0 || c != 1 || inHand[g] {
				return inv(InvGPlace, "g%d in syscall: in %d queues, curg of %d Ms", g, q, c)
			}
		case GWaiting:
			if q != 0 || c != 0 {
				return inv(InvGPlace, "waiting g%d is in %d queues and curg of %d Ms", g, q, c)
			}
		case GIdle, GDead:
			if q != 0 || c != 0 {
				return inv(InvFreeLive, "g%d is free (%v) and live: in %d queues, curg of %d Ms", g, st, q, c)
			}
		default:
			return inv(InvGPlace, "g%d has bad status %d", g, st)
		}
	}
	idle := 0
	for p := 0; p < nP; p++ {
		if s.P[p].Status == PIdle {
			idle++
		}
	}
	if int(s.NPIdle) != idle {
		return inv(InvCounts, "npidle=%d but %d Ps are idle", s.NPIdle, idle)
	}
	if err := checkIdleList(s); err != nil {
		return err
	}
	if err := md.checkSTW(s); err != nil {
		return err
	}
	if err := md.checkPoll(s); err != nil {
		return err
	}
	if int(s.NMSpinning) != spinning {
		return inv(InvCounts, "nmspinning=%d but %d Ms spin or hold a won wakep CAS", s.NMSpinning, spinning)
	}
	return nil
}

// checkSTWP is invariant 9 for P p: a P past gomaxprocs is dead and
// empty, its timers moved too, one below it is not dead; a stopped P exists only while
// gcwaiting is set; and while it is set, no P is idle (the stopper took
// every idle P, and every P released since was stopped instead).
func (md *Model) checkSTWP(s *State, p int) error {
	ps := &s.P[p]
	switch {
	case !s.stw:
		if ps.Status == PGCStop || ps.Status == PDead {
			return inv(InvSTW, "p%d is %v without a stop-the-world", p, ps.Status)
		}
	case p >= s.procs():
		if ps.Status != PDead || !ps.empty() || ps.SchedTick != 0 {
			return inv(InvSTW, "p%d past gomaxprocs=%d is %v with runnext=%s and %d in its ring", p, s.Procs, ps.Status, gName(ps.RunNext), ps.N)
		}
		for g := 1; g <= int(s.nG); g++ {
			if int(s.TimerP[g]) == p+1 {
				return inv(InvSTW, "p%d past gomaxprocs=%d still holds g%d's timer (destroy's moveTimers lost it)", p, s.Procs, g)
			}
		}
	case ps.Status == PDead:
		return inv(InvSTW, "p%d below gomaxprocs=%d is dead", p, s.Procs)
	case ps.Status == PGCStop && !s.GCWaiting:
		return inv(InvSTW, "p%d is stopped but no stop-the-world waits", p)
	case ps.Status == PIdle && s.GCWaiting:
		return inv(InvSTW, "p%d is idle while a stop-the-world waits", p)
	}
	return nil
}

// checkSTW is invariant 9's global part: gcwaiting is set exactly while
// the stopper is stopping, and stopwait counts the Ps not yet stopped.
func (md *Model) checkSTW(s *State) error {
	if !s.stw {
		return nil
	}
	if s.GCWaiting != (s.STW == STWStopping || s.STW == STWGrown) {
		return inv(InvSTW, "gcwaiting=%v in stopper phase %d", s.GCWaiting, s.STW)
	}
	if s.Procs < 1 || int(s.Procs) > int(s.nP) {
		return inv(InvSTW, "gomaxprocs=%d, want 1..%d", s.Procs, s.nP)
	}
	running := 0
	for p := 0; p < s.procs(); p++ {
		if s.P[p].Status != PGCStop {
			running++
		}
	}
	if s.NilRead {
		return inv(InvSTW, "a rechecking M read an allp slot that procresize has not filled yet: nil P dereference")
	}
	if s.STW == STWGrown && (!md.b.liveAllp() || s.StopWait != 0) {
		return inv(InvSTW, "allp grown by procresize outside go1.10dev's window (stopwait=%d)", s.StopWait)
	}
	if s.GCWaiting && int(s.StopWait) != running {
		return inv(InvSTW, "stopwait=%d but %d Ps are not stopped", s.StopWait, running)
	}
	if !s.GCWaiting && s.StopWait != 0 {
		return inv(InvSTW, "stopwait=%d without a stop-the-world", s.StopWait)
	}
	return nil
}

// timersReadied reports whether a spinning M may hold a P with local
// work because its own checkTimers readied Gs onto it (Bounds.Timers):
// at the top, after the check (Checked), or past the 1/61 check.
func (md *Model) timersReadied(ms *MState) bool {
	return md.b.Timers > 0 && (ms.PC == MSched && ms.Checked || ms.PC == MLocal)
}

// checkPoll is invariant 10: at most one M is in the poller, and
// sched.lastpoll is 0 exactly while one is (blocked, or returned and
// not yet past its stores); sched.pollUntil is set only while an M polls,
// and an M still blocked has a timeout not yet reached; a timer's G is
// waiting, on an existing P's heap; the M-local fields are where they
// mean something.
func (md *Model) checkPoll(s *State) error {
	if !md.b.PollBlock && !s.poll {
		return nil // the fields are outside the key and never set
	}
	pollers := 0
	for m := 0; m < int(s.nM); m++ {
		ms := &s.M[m]
		switch ms.PC {
		case MNetpoll, MNetpollRet:
			pollers++
		}
		if !s.poll && (ms.WasSpinning || ms.PollUntil != 0 || ms.Checked || ms.Inherit) {
			return inv(InvPoll, "m%d has poller fields without the blocking poller", m)
		}
		if int(ms.PollUntil) > md.b.Timers+1 {
			return inv(InvPoll, "m%d has pollUntil %d past the longest sleep", m, ms.PollUntil)
		}
		probe := *ms
		normalizePollFields(&probe)
		if probe != *ms {
			return inv(InvPoll, "m%d at %v keeps findRunnable's locals (pollUntil=%d wasSpinning=%v checked=%v inherit=%v)", m, ms.PC, ms.PollUntil, ms.WasSpinning, ms.Checked, ms.Inherit)
		}
	}
	if !s.poll {
		if s.LastPoll || s.PollUntil != 0 || pollers != 0 {
			return inv(InvPoll, "poller state without the blocking poller")
		}
		return nil
	}
	switch {
	case pollers > 1:
		return inv(InvPoll, "%d Ms in netpoll", pollers)
	case s.LastPoll != (pollers == 0):
		return inv(InvPoll, "lastpoll set=%v with %d Ms in netpoll", s.LastPoll, pollers)
	case s.PollUntil != 0 && pollers == 0:
		return inv(InvPoll, "sched.pollUntil set with nobody in netpoll")
	case int(s.PollUntil) > md.b.Timers+1:
		return inv(InvPoll, "sched.pollUntil %d past the longest sleep", s.PollUntil)
	}
	if m := s.pollerM(); m >= 0 && s.M[m].PC == MNetpoll && s.PollUntil == 1 {
		return inv(InvPoll, "m%d still blocks in netpoll past its timeout", m)
	}
	for g := 1; g <= int(s.nG); g++ {
		tp, tw := s.TimerP[g], s.TimerWhen[g]
		switch {
		case tp == 0 && tw != 0:
			return inv(InvPoll, "g%d has a when without a timer", g)
		case tp == 0:
		case !s.timers || int(tp) > int(s.nP):
			return inv(InvPoll, "g%d has a timer on p%d", g, int(tp)-1)
		case s.G[g] != GWaiting:
			return inv(InvPoll, "g%d has a timer but is %v", g, s.G[g])
		case int(tw) > md.b.Timers:
			return inv(InvPoll, "g%d's timer is due in %d ticks, past the longest sleep", g, tw)
		}
	}
	return nil
}

// checkIdleList checks sched.pidle against the Ps' statuses: it lists
// each idle P once, and nothing past its length.
func checkIdleList(s *State) error {
	var seen [MaxPs]bool
	for i, p := range s.IdlePs {
		if i >= int(s.NPIdle) {
			if p != 0 {
				return inv(InvCounts, "sched.pidle has p%d past its length %d", p, s.NPIdle)
			}
			continue
		}
		if p < 0 || int(p) >= int(s.nP) || s.P[p].Status != PIdle || seen[p] {
			return inv(InvCounts, "sched.pidle lists p%d, which is not an idle P listed once", p)
		}
		seen[p] = true
	}
	return nil
}
