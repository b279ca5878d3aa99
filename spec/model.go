package spec

import (
	"errors"
	"fmt"
)

// Model is the scheduler state machine for one set of Bounds: Init, Enabled,
// Step and Check. It is a small value; copying it is fine.
type Model struct {
	b      Bounds // with defaults filled in
	period uint8  // schedtick period (61 in the runtime)
	half   int    // Cap/2: n of globrunqgetbatch(len(pp.runq)/2)

	// noRecheckRunqs drops checkRunqsNoP from the no-P recheck. It is not
	// a Bug (the impl has no counterpart); a test uses it to show that the
	// non-atomic steal scan makes the recheck necessary.
	noRecheckRunqs bool
	// idleSnapshot makes checkRunqsNoP skip the Ps that were idle when
	// the steal scan ended, as it would if findRunnable's idlepMaskSnapshot
	// copied the mask's bits. It copies only the slice header (pMask is a
	// []uint32), so the runtime reads the live bits; a test uses this to
	// show that the live read is what keeps the recheck sound.
	idleSnapshot bool
	// handoffRead, when set, is what handoffp decides (WithHandoffRead).
	handoffRead HandoffRead
	// Tests' knobs (apart.go): staleHandoffRead adds handoffp's read of
	// nmspinning during another M's wakep, spillApart the steps of others
	// inside runqputslow; handoffNeedSpinning makes handoffp's lock
	// section honour needspinning, spillWakep gives a spill without a
	// wakep one after its lock section (changes to proc.go, not Go 1.26).
	staleHandoffRead, handoffNeedSpinning, spillApart, spillWakep bool
}

// ErrNoIdleM is returned by Step when startm needs an M and every M slot is
// busy: the runtime would create one (newm). The explorer counts such cut
// transitions, and a liveness verdict over a cut graph is inconclusive
// unless the M bound is taken as the runtime's thread limit
// (Options.ThreadLimit).
var ErrNoIdleM = errors.New("startm: no idle M (raise Bounds.Ms)")

// NewModel validates the bounds and returns the model.
func NewModel(b Bounds) (Model, error) {
	if err := b.Validate(); err != nil {
		return Model{}, err
	}
	b = b.withDefaults()
	return Model{b: b, period: uint8(b.SchedTick), half: b.Cap / 2}, nil
}

// Bounds returns the model's bounds, defaults filled in.
func (md Model) Bounds() Bounds { return md.b }

// Init is the state in which main starts: g1 running on m0, which holds p0;
// every other P idle, every other M parked, every other G slot unused.
// schedinit's procresize puts the idle Ps on sched.pidle from p1 up, so
// the highest P is on top and the first pidleget takes it.
func (md Model) Init() State {
	s := State{nG: int8(md.b.Gs), nP: int8(md.b.Ps), nM: int8(md.b.Ms)}
	s.G[1] = GRunning
	s.P[0].Status = PRunning
	for p := 1; p < md.b.Ps; p++ {
		s.pidleput(p)
	}
	for m := 0; m < md.b.Ms; m++ {
		s.M[m] = MState{PC: MIdle, P: NoP}
	}
	s.M[0] = MState{PC: MRun, P: 0, CurG: 1}
	s.SpawnLeft = int8(md.b.Spawn)
	if md.b.PollBlock {
		// schedinit stores nanotime in sched.lastpoll: nobody polls yet.
		s.poll, s.LastPoll, s.timers = true, true, md.b.Timers > 0
	}
	if md.b.STW {
		s.stw, s.Procs, s.STWLeft = true, int8(md.b.Ps), 1
		if md.b.ProcResize {
			s.STWLeft = 2 // room to shrink, then grow back
		}
	}
	return s
}

// Enabled lists the actions enabled in s, in a fixed order: each M's actions
// by M number, then sysmon's per P, then netpoll's per G.
func (md Model) Enabled(s State) []Action { return md.appendEnabled(nil, &s) }

func (md *Model) appendEnabled(dst []Action, s *State) []Action {
	for m := 0; m < int(s.nM); m++ {
		ms := &s.M[m]
		mi := int8(m)
		if ms.Wake != WakeNone {
			// Inside wakep nothing else of the M happens (see WakeStage).
			dst = append(dst, md.wakeAction(s, mi))
			continue
		}
		switch ms.PC {
		case MRun:
			g := ms.CurG
			if s.G[g] == GRunning && ms.Yield {
				// semrelease's hand-off readied a waiter: its goyield is
				// next, in the same runtime call (no safe point between).
				dst = append(dst, Action{Kind: ActGoyield, M: mi, P: NoP})
			} else if s.G[g] == GRunning {
				if s.SpawnLeft > 0 && s.gfget() != NoG {
					dst = append(dst, Action{Kind: ActNewProc, M: mi, P: NoP})
				}
				dst = append(dst,
					Action{Kind: ActGoExit, M: mi, P: NoP},
					Action{Kind: ActGosched, M: mi, P: NoP})
				if !md.b.NoPark {
					dst = append(dst, Action{Kind: ActPark, M: mi, P: NoP})
					if md.b.Timers > 0 {
						dst = md.appendTimerSleeps(dst, mi)
					}
				}
				for g2 := 1; g2 <= int(s.nG); g2++ {
					if s.netWaiting(g2) {
						dst = append(dst, Action{Kind: ActReady, M: mi, P: NoP, G: GID(g2)})
						if md.b.Goyield {
							dst = append(dst, Action{Kind: ActReadyHandoff, M: mi, P: NoP, G: GID(g2)})
						}
					}
				}
				if md.b.Syscalls {
					dst = append(dst, Action{Kind: ActEnterSyscall, M: mi, P: NoP})
				}
				if md.b.SyscallBlock {
					dst = append(dst, Action{Kind: ActEnterSyscallBlock, M: mi, P: NoP})
				}
				if md.b.LockOSThread {
					k := ActLockOSThread
					if ms.LockedG != NoG {
						k = ActUnlockOSThread
					}
					dst = append(dst, Action{Kind: k, M: mi, P: NoP})
				}
			} else { // GSyscall
				k := ActExitSyscallNoP
				switch {
				case ms.P != NoP:
					k = ActExitSyscallFast
				case s.oldPInSyscall(ms) >= 0:
					k = ActExitSyscallOldP
				case s.NPIdle > 0:
					k = ActExitSyscallIdleP
				}
				dst = append(dst, Action{Kind: k, M: mi, P: NoP})
			}
		case MSched, MLocal, MPoll, MSpin:
			if ms.LockedG != NoG {
				// schedule of a locked M goes no further than stoplockedm.
				dst = append(dst, Action{Kind: ActStopLockedM, M: mi, P: NoP})
				break
			}
			if ms.PC == MSched && s.GCWaiting && md.b.Bug != BugGCWaitingIgnored {
				// findRunnable's first check: gcstopm, then back to the top.
				dst = append(dst, Action{Kind: ActGCStopM, M: mi, P: NoP})
				break
			}
			if md.checkTimersDue(s, ms) {
				// findRunnable's checkTimers, before the 1/61 check.
				dst = append(dst, Action{Kind: ActCheckTimers, M: mi, P: NoP})
				break
			}
			dst = md.appendSchedSteps(dst, s, mi)
		case MStartLocked:
			dst = append(dst, Action{Kind: ActStartLockedM, M: mi, P: NoP})
		case MExitLockCheck:
			dst = append(dst, Action{Kind: ActExitSyscallLockCheck, M: mi, P: NoP})
		case MTimersNoP, MPollCheck, MNetpoll, MNetpollRet, MNetpollLock:
			dst = md.appendPollSteps(dst, s, mi)
		case MInjectGlob:
			dst = append(dst, Action{Kind: ActInjectGlobrunq, M: mi, P: NoP})
		case MInjectStart:
			dst = append(dst, Action{Kind: ActInjectStartIdle, M: mi, P: NoP})
		case MInjectLocal:
			dst = append(dst, Action{Kind: ActInjectRunqput, M: mi, P: NoP})
		case MInjectWake:
			dst = append(dst, Action{Kind: ActInjectWakep, M: mi, P: NoP})
		case MSteal:
			// stealWork checks gcwaiting once per round, not per victim:
			// the M may visit more victims first, or go back to the top.
			dst = md.appendStealSteps(dst, s, mi)
			if s.GCWaiting && dst[len(dst)-1].Kind != ActGCStopM {
				dst = append(dst, Action{Kind: ActGCStopM, M: mi, P: NoP})
			}
		case MStealNext:
			// runqgrab, having read the ring empty, loads runnext and
			// CASes it to none: whatever the ring holds by now.
			v := ms.Victim - 1
			k := ActStealMiss
			if s.P[v].RunNext != NoG {
				k = ActStealRunnext
			}
			dst = append(dst, Action{Kind: k, M: mi, P: v})
		case MDrop:
			if s.GCWaiting {
				// The drop section sees gcwaiting under sched.lock and goes
				// back to the top (a section that changes nothing, fused
				// with the gcstopm it leads to).
				dst = append(dst, Action{Kind: ActGCStopM, M: mi, P: NoP})
				break
			}
			dst = md.appendDropSteps(dst, s, mi)
		case MDropSpin:
			dst = append(dst, Action{Kind: ActDropSpinning, M: mi, P: NoP})
		case MResetSpin:
			dst = append(dst, Action{Kind: ActResetSpinning, M: mi, P: NoP})
		case MRecheckSpin:
			dst = append(dst, Action{Kind: ActBecomeSpinning, M: mi, P: NoP})
		case MRecheck:
			switch {
			case s.Runq.N == 0 || !md.b.recheckGlobal():
				dst = md.appendRecheckRunqs(dst, s, mi)
			case s.NPIdle > 0:
				dst = append(dst, Action{Kind: ActRecheckGlobal, M: mi, P: NoP})
			default:
				dst = append(dst, Action{Kind: ActRecheckGlobalNoP, M: mi, P: NoP})
			}
		case MRecheckRunqs:
			dst = md.appendRecheckRunqs(dst, s, mi)
		case MRecheckP:
			k := ActRecheckRunqsNoP
			if s.NPIdle > 0 {
				k = ActRecheckRunqs
			}
			dst = append(dst, Action{Kind: k, M: mi, P: NoP})
		case MStop:
			dst = append(dst, Action{Kind: ActStopM, M: mi, P: NoP})
		case MSyscallNoP:
			k := ActExitSyscallGlobrunq
			if s.NPIdle > 0 {
				k = ActExitSyscallLateP
			}
			dst = append(dst, Action{Kind: k, M: mi, P: NoP})
		}
	}
	for p := 0; p < int(s.nP); p++ {
		if s.P[p].Status != PRunning {
			continue
		}
		m := s.holder(p)
		if m < 0 || s.M[m].CurG == NoG || s.M[m].Wake != WakeNone {
			// A G is preempted at a safe point; its M inside wakep
			// (acquirem, or the system stack) is at none.
			continue
		}
		switch s.G[s.M[m].CurG] {
		case GRunning:
			if s.M[m].Yield {
				break // in semrelease, runtime code: no safe point before its goyield
			}
			dst = append(dst, Action{Kind: ActPreempt, M: NoP, P: int8(p)})
		case GSyscall:
			// sysmon's retake loop looks at one P at a time: while it
			// holds a P it took, its next step is that P's handoffp.
			if md.b.Syscalls && s.RetakeP == 0 && md.retakeCond(s, p) {
				dst = append(dst, Action{Kind: ActRetake, M: NoP, P: int8(p)})
			}
		}
	}
	if s.RetakeP != 0 {
		dst = append(dst, Action{Kind: ActRetakeHandoff, M: NoP, P: s.RetakeP - 1})
	}
	if md.b.Netpoll && md.netPolled(s) {
		// sysmon's netpoll, skipped while an M blocks in netpoll.
		for g := 1; g <= int(s.nG); g++ {
			if s.netWaiting(g) {
				dst = append(dst, Action{Kind: ActInjectGList, M: NoP, P: NoP, G: GID(g)})
			}
		}
	}
	if md.b.STW {
		dst = md.appendStopper(dst, s)
	}
	if md.b.PollBlock {
		dst = md.appendNetpollReady(dst, s)
		if s.tickEnabled() {
			dst = append(dst, Action{Kind: ActTimerTick, M: NoP, P: NoP})
		}
	}
	if md.staleHandoffRead || md.spillApart {
		dst = md.appendApart(dst, s)
	}
	return dst
}

// appendStopper is the next step of the stop-the-world's caller: stop
// (once, STWLeft), wait until every P is stopped, restart with the same
// GOMAXPROCS or (Bounds.ProcResize) one P fewer or more, then wakep. The
// caller is outside the model's Ms: in the runtime it is a G whose own P
// is the first one stopped, which the model shows as that P's M having
// parked (docs/spec.md, "Stop-the-world").
func (md *Model) appendStopper(dst []Action, s *State) []Action {
	switch s.STW {
	case STWNone:
		if s.STWLeft > 0 {
			dst = append(dst, Action{Kind: ActStopTheWorld, M: NoP, P: NoP})
		}
	case STWStopping:
		if s.StopWait != 0 {
			break
		}
		if md.b.Go == Go14 && s.STWLeft > 0 {
			// worldsema released before the restart: the next stopper
			// may already be in.
			dst = append(dst, Action{Kind: ActStopTheWorld, M: NoP, P: NoP})
		}
		dst = append(dst, Action{Kind: ActStartTheWorld, M: NoP, P: s.Procs})
		if md.b.ProcResize {
			if s.Procs > 1 {
				dst = append(dst, Action{Kind: ActStartTheWorld, M: NoP, P: s.Procs - 1})
			}
			if int(s.Procs) < int(s.nP) {
				k := ActStartTheWorld
				if md.b.liveAllp() {
					k = ActProcResizeGrow
				}
				dst = append(dst, Action{Kind: k, M: NoP, P: s.Procs + 1})
			}
		}
	case STWGrown:
		dst = append(dst, Action{Kind: ActStartTheWorld, M: NoP, P: s.Procs + 1})
	case STWWakep:
		dst = append(dst, Action{Kind: ActStartTheWorldWakep, M: NoP, P: NoP})
	}
	return dst
}

// wakeAction is the next step of M mi inside wakep: the load and CAS of
// nmspinning (won only when no M spins), then the sched.lock section,
// which takes an idle P for a new spinning M or, with none, sets
// needspinning and gives the CAS back.
func (md *Model) wakeAction(s *State, mi int8) Action {
	k := ActWakepStartM
	switch {
	case s.M[mi].Wake == WakePending && s.NMSpinning != 0:
		k = ActWakepSkip
	case s.M[mi].Wake == WakePending:
		k = ActWakep
	case s.NPIdle == 0:
		k = ActWakepNoP
	}
	return Action{Kind: k, M: mi, P: NoP}
}

// appendSchedSteps is the top of findRunnable for an M holding a P and no
// G, one shared read per step, in the runtime's order. At MSched: the 1/61
// check, which reads sched.runq only when schedtick is a multiple of the
// period (else it is local and the M goes straight on). At MLocal: runqget,
// then the global queue. At MPoll: netpoll(0), which may return a G
// whatever the queues hold; then a spinning M goes on to stealWork, and a
// non-spinning one takes the spinning-limit decision (its loads of
// nmspinning and npidle), whose becomeSpinning is the next step (MSpin).
//
// A read and the lock section it leads to are one step: taking the read
// at the lock's instant loses nothing, because the lock section decides
// again from what it sees (globrunqget finding nothing is Global61Miss).
// A read that leads nowhere (a miss) is a step of its own, since the
// state it saw may change before the next read.
func (md *Model) appendSchedSteps(dst []Action, s *State, mi int8) []Action {
	ms := &s.M[mi]
	p := int(ms.P)
	ps := &s.P[p]
	switch ms.PC {
	case MSched:
		if md.check61(s, p) {
			k := ActGlobal61Miss
			if s.Runq.N > 0 {
				k = ActGlobal61
			}
			return append(dst, Action{Kind: k, M: mi, P: NoP})
		}
		fallthrough
	case MLocal:
		// The local queue gains work only from its owner, this M: a
		// runqget that finds nothing stays true until the global read.
		k := ActGlobRunqMiss
		switch {
		case !ps.empty():
			k = ActRunqGet
		case s.Runq.N > 0:
			k = ActGlobRunqGetBatch
		}
		return append(dst, Action{Kind: k, M: mi, P: NoP})
	case MSpin:
		return append(dst, Action{Kind: ActBecomeSpinning, M: mi, P: NoP})
	}
	// MPoll: netpoll(0), which findRunnable skips while an M blocks in
	// netpoll.
	if md.b.Netpoll && md.netPolled(s) {
		for g := 1; g <= int(s.nG); g++ {
			if !s.netWaiting(g) {
				continue
			}
			dst = append(dst, Action{Kind: ActNetpoll, M: mi, P: NoP, G: GID(g)})
			if !md.b.InjectList {
				continue
			}
			for h := 1; h <= int(s.nG); h++ {
				if h != g && s.netWaiting(h) {
					dst = append(dst, Action{Kind: ActNetpollInject, M: mi, P: NoP, G: GID(g), Inj: GID(h)})
				}
			}
		}
	}
	if ms.Spinning {
		return md.appendStealSteps(dst, s, mi)
	}
	if 2*int(s.NMSpinning) < s.procs()-int(s.NPIdle) {
		return append(dst, Action{Kind: ActSpinOK, M: mi, P: NoP})
	}
	return append(dst, Action{Kind: ActSpinLimit, M: mi, P: NoP})
}

// appendStealSteps is stealWork, one victim per step: the M looks at any P
// it has not looked at yet in this scan (the runtime's order is random, so
// every order is explored), and steals from it if it has work then. Work
// that lands on a victim after its visit is missed, as in the runtime; the
// no-P recheck exists for it. Once every other P was looked at, the scan
// has failed and the M goes on to release its P.
func (md *Model) appendStealSteps(dst []Action, s *State, mi int8) []Action {
	ms := &s.M[mi]
	visited := false
	for v := 0; v < s.procs(); v++ {
		if v == int(ms.P) || ms.Scan&(1<<v) != 0 {
			continue
		}
		visited = true
		k := ActStealMiss
		switch {
		case md.b.Timers > 0 && md.b.Bug != BugTimersNotStolen && s.hasDueTimer(v):
			// The last round's checkTimers(p2), before runqsteal.
			k = ActStealTimers
			if s.P[v].Status == PRunning && s.P[v].N > 0 {
				// The earlier rounds look at p2's ring only, and may
				// steal from it before the last round reaches the timer.
				dst = append(dst, Action{Kind: ActSteal, M: mi, P: int8(v)})
			}
		case s.P[v].Status == PRunning && s.P[v].N > 0:
			k = ActSteal
		case s.P[v].Status == PRunning:
			// runqgrab's loads of head and tail, then (a step of its
			// own) runnext: the owner may refill both in between.
			k = ActStealEmptyRing
		}
		dst = append(dst, Action{Kind: k, M: mi, P: int8(v)})
	}
	if !visited {
		if s.GCWaiting {
			// The scan is over, and the drop section would see gcwaiting.
			return append(dst, Action{Kind: ActGCStopM, M: mi, P: NoP})
		}
		return md.appendDropSteps(dst, s, mi)
	}
	return dst
}

// appendDropSteps is the sched.lock section that ends findRunnable's search
// with a P: take a batch from the global queue if it has one; else, for a
// non-spinning M in Go 1.20+, become spinning if sched.needspinning is set
// (the "delicate dance"); else release the P.
func (md *Model) appendDropSteps(dst []Action, s *State, mi int8) []Action {
	ms := &s.M[mi]
	switch {
	case s.Runq.N > 0:
		return append(dst, Action{Kind: ActGlobRunqGetBatch, M: mi, P: NoP})
	case !ms.Spinning && s.NeedSpinning:
		return append(dst, Action{Kind: ActNeedSpinning, M: mi, P: NoP})
	}
	return append(dst, Action{Kind: ActReleaseP, M: mi, P: NoP})
}

// appendRecheckRunqs is checkRunqsNoP, one P per step: a P not idle with a
// non-empty run queue sends the M on to pidlegetSpinning, under sched.lock
// in a step of its own (which gets an idle P, or sets needspinning); any
// other P is passed over.
func (md *Model) appendRecheckRunqs(dst []Action, s *State, mi int8) []Action {
	ms := &s.M[mi]
	if md.noRecheckRunqs {
		return append(dst, Action{Kind: ActStopM, M: mi, P: NoP})
	}
	for p := 0; p < md.walkLen(s, ms); p++ {
		if ms.Scan&(1<<p) != 0 {
			continue
		}
		k := ActRecheckMiss
		if st := s.P[p].Status; (st == PRunning || st == PGCStop) && !s.P[p].empty() {
			k = ActRecheckFound
		}
		dst = append(dst, Action{Kind: k, M: mi, P: int8(p)})
	}
	return dst
}

// lookAtVictimTimers is the last round's look at victim p2's timers,
// before runqsteal: none due (a due one is StealTimers), the earliest
// folded into the M's pollUntil.
func (md *Model) lookAtVictimTimers(s *State, ms *MState, p2 int8) {
	if md.b.Timers > 0 && md.b.Bug != BugTimersNotStolen {
		ms.PollUntil = minPollUntil(ms.PollUntil, s.nextTimer(int(p2)))
	}
}

// check61 reports whether the 1/61 check reads sched.runq: schedtick is
// a multiple of the period (the model keeps it modulo the period).
func (md *Model) check61(s *State, p int) bool {
	return md.b.Bug != BugNo61 && s.P[p].SchedTick == 0
}

// retakeCond is sysmon's untimed rule for a P in a syscall: retake it if it
// has local work, or if there is no spinning M and no idle P to pick up work.
func (md *Model) retakeCond(s *State, p int) bool {
	local := !s.P[p].empty() && md.b.Bug != BugRetakeIgnoresLocal
	return local || int(s.NMSpinning)+int(s.NPIdle) == 0
}

// oldPInSyscall is the M that exitsyscallTryGetP would take ms's old P
// from: the M holding it, if that M's G is in a system call (the P still
// _Prunning with it); else -1.
func (s *State) oldPInSyscall(ms *MState) int {
	if ms.OldP == 0 || s.P[ms.OldP-1].Status != PRunning {
		return -1
	}
	h := s.holder(int(ms.OldP - 1))
	if h < 0 || s.M[h].PC != MRun || s.M[h].CurG == NoG || s.G[s.M[h].CurG] != GSyscall {
		return -1
	}
	return h
}

// snapPs is how many Ps the M's no-P recheck walks: its allp snapshot's,
// or every P slot.
func (ms *MState) snapPs(s *State) int {
	if ms.SnapPs != 0 {
		return int(ms.SnapPs)
	}
	return int(s.nP)
}

// walkLen is how many Ps ms's no-P recheck walks: its allp snapshot's
// (SnapPs), or every P slot. go1.10dev walks the live allp instead, whose
// length the walk reads at its first step, as range reads a slice header
// once: gomaxprocs, or one more while procresize has grown allp and not
// yet made the new P (STWGrown); later steps keep it in SnapPs.
func (md *Model) walkLen(s *State, ms *MState) int {
	if ms.SnapPs == 0 && md.b.liveAllp() && md.b.ProcResize {
		n := int(s.Procs)
		if s.STW == STWGrown {
			n++
		}
		return n
	}
	return ms.snapPs(s)
}

// holder is the M holding P p, or -1.
func (s *State) holder(p int) int {
	for m := 0; m < int(s.nM); m++ {
		if int(s.M[m].P) == p {
			return m
		}
	}
	return -1
}

// gfget is the G slot NewProc uses: the lowest Dead G (free list), else the
// lowest never-used slot, else NoG.
func (s *State) gfget() GID {
	for g := 1; g <= int(s.nG); g++ {
		if s.G[g] == GDead {
			return GID(g)
		}
	}
	for g := 1; g <= int(s.nG); g++ {
		if s.G[g] == GIdle {
			return GID(g)
		}
	}
	return NoG
}

// Step applies a to s. It rejects an action that is not enabled in s.
func (md Model) Step(s State, a Action) (State, error) {
	ok := false
	for _, e := range md.appendEnabled(nil, &s) {
		if e == a {
			ok = true
			break
		}
	}
	if !ok {
		return s, fmt.Errorf("spec: %v is not enabled", a)
	}
	_, err := md.step(&s, a)
	return s, err
}

// stepInfo is what liveness needs to know about a transition beyond its
// action: which P (if any) started a fresh time slice (execute with
// inheritTime false increments its schedtick).
type stepInfo struct {
	freshP int8
}

// step applies an enabled action to *s in place.
func (md *Model) step(s *State, a Action) (info stepInfo, err error) {
	info.freshP = NoP
	if a.Inj != 0 && md.staleHandoffRead && handsOff[a.Kind] || md.spillApart && spillKinds[a.Kind] {
		return md.apartStep(s, a)
	}
	var ms *MState
	if !a.Kind.external() {
		ms = &s.M[a.M]
	}
	if md.b.PollBlock {
		if ms != nil {
			md.leaveTop(s, ms, a.Kind)
		}
		if a.Kind >= numBaseActionKinds {
			if a.Kind >= ActCheckTimers && a.Kind <= ActCheckTimersNoP || a.Kind == ActTimerSleep || a.Kind == ActTimerTick {
				info, err = md.stepTimers(s, ms, a)
			} else {
				info, err = md.stepPoll(s, ms, a)
			}
		} else {
			info, err = md.step1(s, ms, a)
		}
		if ms != nil {
			normalizePollFields(ms)
		}
		return info, err
	}
	return md.step1(s, ms, a)
}

// step1 applies an action of the model without the blocking poller and
// timers (ms is the acting M, nil for an external action).
func (md *Model) step1(s *State, ms *MState, a Action) (info stepInfo, err error) {
	info.freshP = NoP
	var buf [MaxCap]GID
	switch a.Kind {
	case ActNewProc:
		ng := s.gfget()
		s.G[ng] = GRunnable
		s.runqput(int(ms.P), ng, true, md.b.Cap)
		s.SpawnLeft--
		md.wakep(ms)
	case ActGoExit:
		s.G[ms.CurG] = GDead
		ms.CurG, ms.PC = NoG, MSched
		if ms.LockedG != NoG {
			// A G that exits locked takes its thread with it: mexit
			// hands the P off, and the M's slot is free for a new
			// thread once handoffp is done with the idle Ms.
			p := int(ms.P)
			ms.P, ms.PC = NoP, MRun
			s.newmSlot = a.M + 1
			err = md.handoffp(s, p)
			if s.newmSlot != 0 {
				*ms = MState{PC: MIdle, P: NoP} // no newm: the slot is free
			}
			s.newmSlot = 0
		}
	case ActGosched:
		g := ms.CurG
		ms.CurG, ms.PC = NoG, MSched
		md.goschedImpl(s, ms, g)
	case ActGoyield:
		// goyield_m: the G to its own P's ring tail (a full ring spills
		// half of it to sched.runq), then schedule; no wakep of its own:
		// the hand-off's ready made one.
		g := ms.CurG
		s.G[g] = GRunnable
		ms.CurG, ms.PC, ms.Yield = NoG, MSched, false
		s.runqput(int(ms.P), g, false, md.b.Cap)
	case ActPark:
		s.G[ms.CurG] = GWaiting
		ms.CurG, ms.PC = NoG, MSched
	case ActReady, ActReadyHandoff:
		s.G[a.G] = GRunnable
		s.runqput(int(ms.P), a.G, true, md.b.Cap)
		if md.b.Bug != BugReadyNoWakep {
			md.wakep(ms)
		}
		// semrelease1's direct hand-off: the readied waiter runs next,
		// on this P, once the caller has goyielded.
		ms.Yield = a.Kind == ActReadyHandoff
	case ActEnterSyscall:
		s.G[ms.CurG] = GSyscall
		if s.GCWaiting {
			// entersyscall's gcwaiting path: the P is stopped for the
			// stop-the-world at once, as entersyscallblock would hand it
			// off.
			p := int(ms.P)
			ms.P, ms.OldP = NoP, int8(p)+1
			s.gcstopP(p)
		}
	case ActEnterSyscallBlock:
		s.G[ms.CurG] = GSyscall
		p := int(ms.P)
		ms.P = NoP
		if md.b.Bug == BugSyscallBlockNoHandoff {
			s.pidleput(p)
		} else {
			err = md.handoffp(s, p)
		}
	case ActLockOSThread:
		ms.LockedG = ms.CurG
	case ActUnlockOSThread:
		ms.LockedG = NoG
	case ActExitSyscallFast:
		s.G[ms.CurG] = GRunning
	case ActExitSyscallOldP:
		// setBlockOnExitSyscall on the old P, takeP from the M holding
		// it (in a syscall itself: it loses the P as to a retake, which
		// becomes its own oldp), resume it, and acquire the P.
		h := &s.M[s.oldPInSyscall(ms)]
		h.P, h.OldP = NoP, ms.OldP
		ms.P, ms.OldP = ms.OldP-1, 0
		s.G[ms.CurG] = GRunning
	case ActExitSyscallIdleP:
		ms.P, ms.OldP = int8(s.pidleget()), 0
		s.G[ms.CurG] = GRunning
	case ActExitSyscallNoP:
		s.G[ms.CurG] = GRunnable
		ms.PC, ms.OldP = MSyscallNoP, 0
	case ActExitSyscallLateP:
		ms.P = int8(s.pidleget())
		info.freshP, err = md.run(s, a.M, ms.CurG, false)
	case ActExitSyscallGlobrunq:
		s.globrunqput(ms.CurG)
		if md.b.lockCheckAfterPut() {
			// The G is published; its lockedm is read in a step of its
			// own. A locked M's G is its LockedG; an unlocked M keeps
			// the G's id in Inj (the key has room for one of the two).
			if ms.LockedG == NoG {
				ms.Inj = ms.CurG
			}
			ms.CurG, ms.PC = NoG, MExitLockCheck
			break
		}
		ms.CurG, ms.PC = NoG, MStop
		if ms.LockedG != NoG {
			ms.PC = MLockedWait // stoplockedm with no P to hand off: park
		}
	case ActExitSyscallLockCheck:
		g := ms.Inj
		if ms.LockedG != NoG {
			g = ms.LockedG
		}
		ms.Inj, ms.PC = NoG, MStop
		if s.lockedm(g) >= 0 {
			// Locked to some M, this one or (the race) another: park in
			// stoplockedm.
			ms.PC = MLockedWait
		}
	case ActGlobal61:
		info.freshP, err = md.run(s, a.M, s.globrunqget(), false)
	case ActGlobal61Miss:
		ms.PC = MLocal
	case ActGlobRunqMiss:
		ms.PC = MPoll
	case ActRunqGet:
		g, inherit := s.P[ms.P].runqget()
		info.freshP, err = md.run(s, a.M, g, inherit)
	case ActGlobRunqGetBatch:
		info.freshP, err = md.takeGlobalBatch(s, a.M, &buf)
	case ActNetpoll:
		s.G[a.G] = GRunnable // netpoll's list is made runnable, then run
		info.freshP, err = md.run(s, a.M, a.G, false)
	case ActNetpollInject:
		// Both are marked runnable first (injectglist does, and the G to
		// run is no longer waiting for anyone). netpoll's own read of the
		// poller is free (any waiting Gs), so it is taken at the instant
		// of injectglist's npidle load, which decides the way.
		s.G[a.G], s.G[a.Inj] = GRunnable, GRunnable
		ms.CurG, ms.Inj = a.G, a.Inj
		ms.PC = MInjectLocal
		if s.NPIdle > 0 {
			ms.PC = MInjectGlob
		}
	case ActInjectGlobrunq:
		s.globrunqput(ms.Inj)
		ms.Inj, ms.PC = NoG, MInjectStart
	case ActInjectStartIdle:
		ms.PC = MInjectWake
		if p := s.pidleget(); p >= 0 {
			err = md.startm(s, p, false)
		} else {
			md.noIdleP(s)
		}
	case ActInjectRunqput:
		// runqputbatch puts what fits; the rest goes to sched.runq.
		if !s.P[ms.P].runqputbatch([]GID{ms.Inj}, md.b.Cap) {
			s.globrunqput(ms.Inj)
		}
		ms.Inj, ms.PC = NoG, MInjectWake
	case ActInjectWakep:
		g := ms.CurG
		ms.CurG = NoG
		info.freshP, err = md.run(s, a.M, g, false)
		if md.b.injectWakep() {
			md.wakep(ms)
		}
	case ActSpinOK:
		ms.PC = MSpin
	case ActBecomeSpinning:
		md.becomeSpinning(s, ms)
		if ms.PC == MRecheckSpin {
			// After the no-P recheck: back to the top, or run the G
			// RecheckGlobal took (resetspinning first).
			ms.PC = MSched
			if g := ms.CurG; g != NoG {
				ms.CurG = NoG
				info.freshP, err = md.run(s, a.M, g, false)
			}
			break
		}
		ms.PC = MSteal
		md.scanDone(s, ms)
	case ActSpinLimit:
		ms.PC = MDrop
	case ActSteal:
		n := s.P[a.P].runqsteal(&buf)
		if !s.P[ms.P].runqputbatch(buf[:n-1], md.b.Cap) {
			return info, fmt.Errorf("runqsteal: runq overflow")
		}
		ms.Scan = 0
		info.freshP, err = md.run(s, a.M, buf[n-1], false)
	case ActStealEmptyRing:
		md.lookAtVictimTimers(s, ms, a.P)
		ms.Scan |= 1 << a.P
		ms.PC, ms.Victim = MStealNext, a.P+1
	case ActStealRunnext:
		g := s.P[a.P].RunNext
		s.P[a.P].RunNext = NoG
		ms.Victim, ms.Scan = 0, 0
		info.freshP, err = md.run(s, a.M, g, false)
	case ActStealMiss:
		if ms.PC != MStealNext {
			md.lookAtVictimTimers(s, ms, a.P) // (from StealNext: looked at already)
		}
		ms.Victim = 0
		ms.Scan |= 1 << a.P
		ms.PC = MSteal
		md.scanDone(s, ms)
	case ActNeedSpinning:
		md.becomeSpinning(s, ms)
		ms.PC = MSched
	case ActReleaseP:
		if ms.PC == MSteal {
			// The scan ended with no live victim left unvisited, short
			// of scanDone's every P: procresize shrank gomaxprocs below
			// the model's Ps, and stealWork walks only the live ones.
			// The scan is over as scanDone ends it.
			md.endScan(s, ms)
		}
		s.pidleput(int(ms.P))
		ms.P = NoP
		if ms.Spinning {
			ms.PC = MDropSpin
			if md.b.ProcResize && !md.b.liveAllp() {
				// findRunnable's allpSnapshot, taken with the P held:
				// gomaxprocs Ps, whatever procresize does next.
				ms.SnapPs = s.Procs
			}
		} else {
			md.findRunnableTail(ms, false)
			ms.Scan = 0
		}
	case ActDropSpinning:
		ms.Spinning = false
		s.NMSpinning--
		ms.PC = MRecheck
	case ActRecheckGlobal:
		// pidlegetSpinning and globrunqgetbatch under sched.lock; the M
		// becomes spinning in a step of its own (MRecheckSpin).
		ms.SnapPs = 0
		ms.P = int8(s.pidleget())
		var g GID
		if g, err = md.globalBatch(s, a.M, &buf); err != nil {
			break
		}
		ms.CurG, ms.PC, ms.Scan = g, MRecheckSpin, 0
	case ActRecheckGlobalNoP:
		md.noIdleP(s)
		ms.PC = MRecheckRunqs
	case ActRecheckFound:
		if md.b.liveAllp() && md.b.ProcResize {
			ms.SnapPs = int8(md.walkLen(s, ms)) // as RecheckMiss: read at the walk's first step
		}
		ms.PC, ms.Scan = MRecheckP, 0
	case ActRecheckRunqs:
		ms.SnapPs = 0
		ms.P = int8(s.pidleget())
		ms.PC = MRecheckSpin
	case ActRecheckRunqsNoP:
		ms.SnapPs = 0
		md.noIdleP(s)
		md.findRunnableTail(ms, true)
	case ActRecheckMiss:
		n := md.walkLen(s, ms)
		if md.b.liveAllp() && s.STW == STWGrown && a.P == s.Procs {
			// go1.10dev: the live allp's new slot, not made yet: the
			// runtime dereferences nil here (invariant 9).
			s.NilRead = true
		}
		ms.Scan |= 1 << a.P
		ms.PC = MRecheckRunqs
		if md.b.liveAllp() && md.b.ProcResize {
			ms.SnapPs = int8(n) // the length the walk read at its first step
		}
		if ms.Scan == 1<<n-1 {
			ms.Scan, ms.SnapPs = 0, 0
			md.findRunnableTail(ms, true)
		}
	case ActStopM:
		ms.PC, ms.Scan = MIdle, 0
	case ActResetSpinning:
		ms.Spinning = false
		if md.b.Bug != BugSpinNoDec {
			s.NMSpinning--
		}
		info.freshP = md.dispatch(s, ms, ms.CurG, ms.Inherit)
		md.wakep(ms)
	case ActStartLockedM:
		info.freshP = md.startlockedm(s, ms)
	case ActStopLockedM:
		p := int(ms.P)
		ms.P = NoP
		if md.b.Bug == BugStopLockedNoHandoff {
			s.pidleput(p)
		} else if err = md.handoffp(s, p); err != nil {
			return info, err
		}
		ms.PC = MLockedWait
		if ms.NextP != 0 {
			// startlockedm came first: the park returns at once.
			ms.P, ms.NextP = ms.NextP-1, 0
			info.freshP = md.execute(s, ms, ms.LockedG, false)
		}
	case ActPreempt:
		m := &s.M[s.holder(int(a.P))]
		g := m.CurG
		m.CurG, m.PC = NoG, MSched
		if s.GCWaiting {
			// Preempted for a stop-the-world: the G stays in its P's
			// runnext, to run first once the world restarts.
			s.G[g] = GRunnable
			s.runqput(int(m.P), g, true, md.b.Cap)
			md.wakep(m)
			break
		}
		md.goschedImpl(s, m, g)
	case ActRetake:
		// takeP: the syscalling M loses its P, which sysmon holds (not
		// idle, not held by an M) until its handoffp; resume lets the M
		// leave its syscall, without the P, in between.
		m := s.holder(int(a.P))
		s.M[m].P, s.M[m].OldP = NoP, a.P+1
		s.RetakeP = a.P + 1
	case ActRetakeHandoff:
		s.RetakeP = 0
		err = md.handoffp(s, int(a.P))
	case ActWakep:
		s.NMSpinning++
		ms.Wake = WakeCAS
	case ActWakepSkip:
		ms.Wake = WakeNone
	case ActWakepStartM:
		ms.Wake = WakeNone
		err = md.startm(s, s.pidleget(), true)
	case ActWakepNoP:
		ms.Wake = WakeNone
		md.noIdleP(s)
		s.NMSpinning--
	case ActInjectGList:
		s.G[a.G] = GRunnable
		s.globrunqput(a.G)
		if p := s.pidleget(); p >= 0 {
			err = md.startm(s, p, false)
		} else {
			md.noIdleP(s)
		}
	case ActGCStopM:
		if md.b.Bug == BugGCWaitingIgnored {
			// Back to the top, which does not look at gcwaiting.
			ms.Scan, ms.PC = 0, MSched
			break
		}
		if ms.Spinning {
			// gcstopm's first atomic: the spinning M stops counting
			// itself, back at the top with its P.
			ms.Spinning, ms.Scan, ms.PC = false, 0, MSched
			s.NMSpinning--
			break
		}
		p := int(ms.P)
		ms.P, ms.Scan, ms.PC = NoP, 0, MStop
		s.gcstopP(p)
	case ActStopTheWorld:
		md.stopTheWorld(s)
	case ActStartTheWorld:
		err = md.startTheWorld(s, int(a.P))
	case ActProcResizeGrow:
		s.STW = STWGrown // allp is one longer; its last slot is nil until StartTheWorld
	case ActStartTheWorldWakep:
		s.STW = STWNone
		if s.NMSpinning == 0 {
			if p := s.pidleget(); p >= 0 {
				s.NMSpinning++
				err = md.startm(s, p, true)
			} else {
				md.noIdleP(s)
			}
		}
	default:
		return info, fmt.Errorf("spec: unknown action %v", a)
	}
	return info, err
}

// scanDone ends a steal scan that has looked at every other P: stealWork
// returns nothing and the M goes on to the lock section that releases its
// P. (With one P there is no victim and the scan ends at once.)
func (md *Model) scanDone(s *State, ms *MState) {
	// The live Ps: gomaxprocs cannot change during a scan (the M holds a
	// P, so the world is not stopped).
	all := uint8(1)<<s.procs() - 1
	if ms.Scan|1<<ms.P == all {
		ms.PC = MDrop
		md.endScan(s, ms)
	}
}

// endScan clears a finished steal scan's victims (with idleSnapshot, the
// Ps idle now are counted as looked at by the recheck instead).
func (md *Model) endScan(s *State, ms *MState) {
	ms.Scan = 0
	if md.idleSnapshot {
		ms.Scan = s.idleMask()
	}
}

// idleMask is idlepMask: bit p set when P p is idle.
func (s *State) idleMask() uint8 {
	var mask uint8
	for p := 0; p < int(s.nP); p++ {
		if s.P[p].Status == PIdle {
			mask |= 1 << p
		}
	}
	return mask
}

// becomeSpinning is m.becomeSpinning: m.spinning, nmspinning.Add(1), and
// (Go 1.20+) needspinning.Store(0), since a spinning M now exists to find
// the work whoever set it could not start an M for.
func (md *Model) becomeSpinning(s *State, ms *MState) {
	ms.Spinning = true
	s.NMSpinning++
	s.NeedSpinning = false
}

// noIdleP is pidlegetSpinning finding no idle P: in Go 1.20+ it sets
// sched.needspinning, so that a non-spinning M about to release its P
// becomes spinning instead; Go 1.19 has no such flag.
func (md *Model) noIdleP(s *State) {
	if md.b.needSpinning() {
		s.NeedSpinning = true
	}
}

// takeGlobalBatch is globrunqgetbatch(len(runq)/2) + runqputbatch + run.
func (md *Model) takeGlobalBatch(s *State, m int8, buf *[MaxCap]GID) (int8, error) {
	g, err := md.globalBatch(s, m, buf)
	if err != nil {
		return NoP, err
	}
	return md.run(s, m, g, false)
}

// globalBatch is globrunqgetbatch(len(runq)/2) onto M m's P
// (runqputbatch): the rest of the batch is queued there, and the first G,
// returned, is the one to run.
func (md *Model) globalBatch(s *State, m int8, buf *[MaxCap]GID) (GID, error) {
	g, k := s.globrunqgetbatch(md.half, s.procs(), buf)
	if !s.P[s.M[m].P].runqputbatch(buf[:k], md.b.Cap) {
		return NoG, fmt.Errorf("globrunqgetbatch: couldn't put Gs into empty local runq")
	}
	return g, nil
}

// goschedImpl puts a G that gave up its M ms (Gosched or preemption) on
// the global queue and calls wakep.
func (md *Model) goschedImpl(s *State, ms *MState, g GID) {
	s.G[g] = GRunnable
	if md.b.Bug == BugGoschedLocal {
		s.runqput(int(ms.P), g, true, md.b.Cap)
	} else {
		s.globrunqput(g)
	}
	if md.b.goschedWakep() {
		md.wakep(ms)
	}
}

// run is the end of schedule. A spinning M first takes resetspinning, a
// step of its own (ResetSpinning): until then it holds g, still runnable,
// and counts in nmspinning, and other Ms may read that count. Otherwise
// the M executes g. It returns the P whose time slice restarted, or NoP.
func (md *Model) run(s *State, m int8, g GID, inheritTime bool) (int8, error) {
	ms := &s.M[m]
	if ms.Spinning {
		if inheritTime && md.b.Timers == 0 {
			// A spinning M's own queue is empty: runnext is not its to
			// inherit. With timers it may be: a timer the M ran readied
			// the G into it (checkTimers, stealWork's timers).
			return NoP, fmt.Errorf("spec: spinning m%d inherits a time slice", m)
		}
		ms.CurG, ms.PC, ms.Scan, ms.Inherit = g, MResetSpin, 0, inheritTime
		return NoP, nil
	}
	return md.dispatch(s, ms, g, inheritTime), nil
}

// dispatch is schedule's last test before execute: a G locked to another
// M is not run here but handed to that M by startlockedm (PC
// StartLocked, a step of its own), the G still runnable in this M's hand.
func (md *Model) dispatch(s *State, ms *MState, g GID, inheritTime bool) int8 {
	if l := s.lockedm(g); l >= 0 && &s.M[l] != ms && md.b.Bug != BugLockedRunsAnywhere {
		ms.CurG, ms.PC, ms.Scan = g, MStartLocked, 0
		return NoP
	}
	return md.execute(s, ms, g, inheritTime)
}

// startlockedm hands the M's P and its curg to the M the G is locked to,
// and sends this M to stopm. A locked M parked in stoplockedm takes both
// and executes the G (a fresh time slice); one that has not parked yet
// finds the P in m.nextp when it gets there.
func (md *Model) startlockedm(s *State, ms *MState) int8 {
	g, p := ms.CurG, ms.P
	ms.CurG, ms.P, ms.PC = NoG, NoP, MStop
	lm := &s.M[s.lockedm(g)]
	if lm.PC != MLockedWait {
		lm.NextP = p + 1
		return NoP
	}
	lm.P = p
	return md.execute(s, lm, g, false)
}

// lockedm is g.lockedm: the M that g is locked to, or -1.
func (s *State) lockedm(g GID) int {
	if g == NoG {
		return -1
	}
	for m := 0; m < int(s.nM); m++ {
		if s.M[m].LockedG == g {
			return m
		}
	}
	return -1
}

// execute runs g on the M: Grunning, and schedtick incremented unless the
// G inherits the time slice. It returns the P whose slice restarted, or NoP.
func (md *Model) execute(s *State, ms *MState, g GID, inheritTime bool) int8 {
	s.G[g] = GRunning
	ms.CurG, ms.PC, ms.Scan = g, MRun, 0
	if inheritTime {
		return NoP
	}
	ps := &s.P[ms.P]
	ps.SchedTick = uint8((int(ps.SchedTick) + 1) % int(md.period))
	return ms.P
}

// wakep is the call of wakep at the end of its caller's step: the M goes
// on with wakep's own steps (wakeAction) before anything else.
func (md *Model) wakep(ms *MState) { ms.Wake = WakePending }

// handoffp gives away a P whose M is in a syscall: start an M if there is
// work for it, or if nobody spins and no P is idle (then the new M spins,
// and needspinning is cleared with the CAS that counts it); else the P
// goes idle.
func (md *Model) handoffp(s *State, p int) error {
	local := !s.P[p].empty() && md.b.Bug != BugRetakeIgnoresLocal
	if !md.b.runnextCounts() {
		local = s.P[p].N > 0 // go1.5dev: the ring alone
	}
	if md.handoffWork(s, local) {
		return md.startm(s, p, false)
	}
	if md.handoffSpins(s) {
		return md.handoffSpinning(s, p)
	}
	if s.GCWaiting {
		// A stop-the-world is waiting: the P is stopped, not idled.
		s.gcstopP(p)
		return nil
	}
	if md.handoffLockStarts(s) {
		return md.startm(s, p, false)
	}
	if md.handoffNeedSpinning && s.NeedSpinning {
		return md.handoffSpinning(s, p)
	}
	s.pidleput(p)
	if md.b.Timers > 0 {
		if when := s.nextTimer(p); when != 0 {
			return md.wakeNetPoller(s, nil, when)
		}
	}
	return nil
}

// stopTheWorld is stopTheWorldWithSema's lock section: sched.gcwaiting,
// stopwait = gomaxprocs, preemptall (the model's Preempt is always
// available), and every P that no M runs on is stopped at once: the idle
// ones (pidleget) and those whose M is in a system call (the M loses its
// P, as from retake, and finds none on its way out).
func (md *Model) stopTheWorld(s *State) {
	s.GCWaiting, s.STW, s.STWLeft = true, STWStopping, s.STWLeft-1
	s.StopWait = s.Procs
	for p := 0; p < s.procs(); p++ {
		switch s.P[p].Status {
		case PIdle:
			s.NPIdle--
			s.gcstopP(p)
		case PRunning:
			m := s.holder(p)
			if m >= 0 && s.M[m].PC == MRun && s.G[s.M[m].CurG] == GSyscall {
				s.M[m].P, s.M[m].OldP = NoP, int8(p)+1
				s.gcstopP(p)
			}
		}
	}
	s.IdlePs = [MaxPs]int8{} // every idle P was taken
}

// startTheWorld is startTheWorldWithSema's lock section with procresize:
// the Ps from procs on are destroyed, their local queues (ring from the
// tail, then runnext) put at the head of sched.runq; a new P starts
// empty; then, from the highest P down, a stopped P with work gets an idle
// M (mget, woken after the unlock: one step here, since the M is taken
// off the idle list under the lock); then the Ps without work go idle
// from the lowest up, so the highest of them is on top of sched.pidle
// (Go 1.26 collects them first and puts them last; a release that put
// each as it met it left the lowest on top). gcwaiting is cleared; the
// stopper's wakep is the next step.
func (md *Model) startTheWorld(s *State, procs int) error {
	for p := procs; p < s.procs(); p++ {
		ps := &s.P[p]
		for ps.N > 0 && md.b.Bug != BugProcResizeDropsRunq {
			ps.N--
			s.globrunqputhead(ps.Ring[ps.N])
			ps.Ring[ps.N] = NoG
		}
		if ps.RunNext != NoG && md.b.Bug != BugProcResizeDropsRunq {
			s.globrunqputhead(ps.RunNext)
			ps.RunNext = NoG
		}
		*ps = PState{Status: PDead} // the queue, moved or (the bug) dropped
		// destroy's moveTimers: the timers go to the P procresize runs
		// on, the stopper's own if it survives, else p0, which
		// procresize acquires first. The model's stopper holds no P,
		// so p0, which always survives, takes them.
		for g := 1; g <= int(s.nG); g++ {
			if int(s.TimerP[g]) == p+1 {
				s.TimerP[g] = 1
			}
		}
	}
	for p := s.procs(); p < procs; p++ {
		s.P[p] = PState{Status: PGCStop}
	}
	s.Procs = int8(procs)
	s.GCWaiting, s.StopWait, s.STW = false, 0, STWWakep
	for p := procs - 1; p >= 0; p-- {
		if s.P[p].Status != PGCStop || s.P[p].empty() {
			continue
		}
		s.P[p].Status = PRunning
		if err := md.startm(s, p, false); err != nil {
			return err
		}
	}
	for p := 0; p < procs; p++ {
		if s.P[p].Status == PGCStop {
			s.pidleput(p)
		}
	}
	return nil
}

// gcstopP stops P p for the stop-the-world: _Pgcstop, stopwait--.
func (s *State) gcstopP(p int) {
	s.P[p].Status = PGCStop
	s.StopWait--
}

// startm hands P p to the lowest idle M (mget). With none idle the runtime
// calls newm; the model's Ms slots are its threads, so when every slot is
// busy the transition is cut (ErrNoIdleM) and counted in Result.Pruned.
func (md *Model) startm(s *State, p int, spinning bool) error {
	for m := 0; m < int(s.nM); m++ {
		if s.M[m].PC == MIdle {
			s.M[m] = MState{PC: MSched, P: int8(p), Spinning: spinning}
			return nil
		}
	}
	if s.newmSlot != 0 {
		// mexit of a locked G: newm's thread replaces the exiting one.
		// Go 1.12 on, the exiting M is still marked locked, so the
		// template thread creates it; go1.11 clones the exiting thread.
		s.M[s.newmSlot-1] = MState{PC: MSched, P: int8(p), Spinning: spinning, Tainted: md.b.Go == Go111}
		s.newmSlot = 0
		return nil
	}
	return ErrNoIdleM
}

// pidleget pops the P on top of sched.pidle, the one idled last, or
// returns -1. The order matters: idle Ps differ in their schedtick and
// their timers, so which one wakes is part of the behaviour.
func (s *State) pidleget() int {
	if s.NPIdle == 0 {
		return -1
	}
	s.NPIdle--
	p := int(s.IdlePs[s.NPIdle])
	s.IdlePs[s.NPIdle] = 0
	s.P[p].Status = PRunning
	return p
}

// pidleput pushes P p on sched.pidle.
func (s *State) pidleput(p int) {
	s.P[p].Status = PIdle
	s.IdlePs[s.NPIdle] = int8(p)
	s.NPIdle++
}
