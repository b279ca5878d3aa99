package spec

// Timers (Bounds.Timers; docs/spec.md, "Timers"). A G that sleeps parks
// with a timer on its P's heap; a due timer readies its G (ready: runqput
// into the runnext of the P of the M that runs the timer, then wakep).
// Three places run timers, as in the runtime: checkTimers at the top of
// findRunnable (the M's own P), stealWork's last round (every other P:
// this is what keeps a timer on a P whose G never yields from waiting),
// and nobody else: an M that finds no work but has seen a timer sleeps in
// netpoll until it is due (poller.go), and whoever adds a timer earlier
// than the poller's wake-up breaks its sleep (wakeNetPoller).
//
// Time is a clock of ticks. Only differences matter to the scheduler, so
// a timer keeps the ticks until it is due (TimerWhen, 0: due), and every
// pollUntil the ticks until its deadline; TimerTick, an external step
// that is weakly fair (time passes), ages them all by one. A sleep takes
// 1..Bounds.Timers ticks, the program's choice. Any interleaving of ticks
// with the scheduler's steps is one the runtime has (a thread may be
// descheduled for any time), and the order of deadlines is kept exactly,
// so the comparisons the runtime makes (when < pollUntil) come out as
// they would.

// nextTimer is P p's earliest timer in pollUntil's encoding (0: none,
// 1: due, k+1: due in k ticks): timers.wakeTime.
func (s *State) nextTimer(p int) uint8 {
	best := uint8(0)
	for g := 1; g <= int(s.nG); g++ {
		if int(s.TimerP[g]) == p+1 {
			best = minPollUntil(best, s.TimerWhen[g]+1)
		}
	}
	return best
}

// minPollUntil is the earlier of two pollUntils (0: none).
func minPollUntil(a, b uint8) uint8 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// hasDueTimer reports whether P p's heap holds a due timer.
func (s *State) hasDueTimer(p int) bool { return s.nextTimer(p) == 1 }

// runTimers runs P p's due timers on an M holding P q: each sleeping G is
// readied into q's runnext (ready(gp, next=true)), in G order.
func (md *Model) runTimers(s *State, p, q int) {
	for g := 1; g <= int(s.nG); g++ {
		if int(s.TimerP[g]) == p+1 && s.TimerWhen[g] == 0 {
			s.TimerP[g] = 0
			s.G[g] = GRunnable
			s.runqput(q, GID(g), true, md.b.Cap)
		}
	}
}

// tickEnabled reports whether the clock has something to age: a timer not
// yet due, or a pollUntil (an M's, or the poller's) not yet reached.
func (s *State) tickEnabled() bool {
	if !s.timers {
		return false
	}
	if s.PollUntil > 1 {
		return true
	}
	for g := 1; g <= int(s.nG); g++ {
		if s.TimerP[g] != 0 && s.TimerWhen[g] > 0 {
			return true
		}
	}
	for m := 0; m < int(s.nM); m++ {
		if s.M[m].PollUntil > 1 {
			return true
		}
	}
	return false
}

// appendTimerSleeps lists TimerSleep for the running G of M mi, one per
// duration.
func (md *Model) appendTimerSleeps(dst []Action, mi int8) []Action {
	for d := 1; d <= md.b.Timers; d++ {
		dst = append(dst, Action{Kind: ActTimerSleep, M: mi, P: int8(d)})
	}
	return dst
}

// checkTimersDue reports whether findRunnable's top of M mi must run its
// own P's timers first: some is due and this pass has not checked yet.
func (md *Model) checkTimersDue(s *State, ms *MState) bool {
	return md.b.Timers > 0 && ms.PC == MSched && !ms.Checked && ms.LockedG == NoG && s.hasDueTimer(int(ms.P))
}

// stepTimers applies the timers' actions.
func (md *Model) stepTimers(s *State, ms *MState, a Action) (info stepInfo, err error) {
	info.freshP = NoP
	switch a.Kind {
	case ActTimerSleep:
		// gopark; park_m's resetForSleep adds the timer to the M's P
		// (maybeAdd), and if it is the P's earliest, wakeNetPoller.
		g, p := ms.CurG, int(ms.P)
		when := uint8(a.P)
		wake := s.nextTimer(p)
		wake = uint8(boolInt(wake == 0 || when+1 < wake))
		s.G[g] = GWaiting
		s.TimerP[g], s.TimerWhen[g] = uint8(p+1), when
		ms.CurG, ms.PC = NoG, MSched
		if wake != 0 {
			md.wakeNetPoller(s, ms, when+1)
		}
	case ActCheckTimers:
		p := int(ms.P)
		md.runTimers(s, p, p)
		ms.PollUntil, ms.Checked = s.nextTimer(p), true
		md.wakep(ms) // ready's wakep
	case ActStealTimers:
		// checkTimers(p2) readies p2's due Gs onto this M's P; the M
		// takes one at once (runqget: runnext, inheriting its slice).
		// ready's wakep finds this M spinning: nothing to do.
		p := int(ms.P)
		md.runTimers(s, int(a.P), p)
		ms.PollUntil = minPollUntil(ms.PollUntil, s.nextTimer(int(a.P)))
		g, inherit := s.P[p].runqget()
		ms.Scan = 0
		return md.runStep(s, a.M, g, inherit)
	case ActCheckTimersNoP:
		for p := 0; p < s.procs(); p++ {
			ms.PollUntil = minPollUntil(ms.PollUntil, s.nextTimer(p))
		}
		ms.PC = MPollCheck
	case ActTimerTick:
		for g := 1; g <= int(s.nG); g++ {
			if s.TimerP[g] != 0 && s.TimerWhen[g] > 0 {
				s.TimerWhen[g]--
			}
		}
		for m := 0; m < int(s.nM); m++ {
			if s.M[m].PollUntil > 1 {
				s.M[m].PollUntil--
			}
		}
		if s.PollUntil > 1 {
			s.PollUntil--
			if m := s.pollerM(); s.PollUntil == 1 && m >= 0 && s.M[m].PC == MNetpoll {
				s.M[m].PC = MNetpollRet // netpoll's timeout
			}
		}
	}
	return info, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// wakeNetPoller makes sure an M will be awake at when (a pollUntil): if an
// M blocks in netpoll past it, break its sleep; if nobody polls, wakep. m
// is the calling M (nil: handoffp's caller without one, whose wakep is
// taken as one step, as the stopper's is).
func (md *Model) wakeNetPoller(s *State, ms *MState, when uint8) error {
	if !s.LastPoll {
		if s.PollUntil == 0 || s.PollUntil > when {
			md.netpollBreak(s)
		}
		return nil
	}
	if !md.b.timerWakeups() {
		return nil // go1.15: nobody polls, nobody is woken
	}
	if ms != nil {
		md.wakep(ms)
		return nil
	}
	if s.NMSpinning != 0 {
		return nil
	}
	if p := s.pidleget(); p >= 0 {
		s.NMSpinning++
		return md.startm(s, p, true)
	}
	md.noIdleP(s)
	return nil
}

// normalizePollFields clears the M-local fields of the poller and timers
// where they mean nothing (the runtime's locals die there), so that
// states that differ only in them are one state.
func normalizePollFields(ms *MState) {
	switch ms.PC {
	case MLocal, MPoll, MSpin, MSteal, MStealNext, MDrop, MDropSpin, MRecheck, MRecheckRunqs, MRecheckP, MTimersNoP, MPollCheck:
	case MSched:
		if !ms.Checked {
			ms.PollUntil = 0
		}
	default:
		ms.PollUntil = 0
	}
	if ms.PC != MSched {
		ms.Checked = false
	}
	if ms.PC != MResetSpin {
		ms.Inherit = false
	}
	switch ms.PC {
	case MTimersNoP, MPollCheck, MNetpoll, MNetpollRet, MNetpollLock:
	default:
		ms.WasSpinning = false
	}
}

// leaveTop is the part of findRunnable's checkTimers that runs nothing:
// an M at the top that takes any step but checkTimers (or wakep's) has
// looked at its own P's timers and found none due, and keeps the earliest
// as its pollUntil. The look is taken at the instant of the step: the
// heap changes only by its owner's sleeps (this M runs no G) and by
// other Ms running its due timers, and the clock's ticks commute with
// the step, which reads no timer.
func (md *Model) leaveTop(s *State, ms *MState, k ActionKind) {
	if md.b.Timers == 0 || ms.PC != MSched || ms.Checked || ms.P == NoP || ms.LockedG != NoG || ms.CurG != NoG {
		return
	}
	switch k {
	case ActCheckTimers, ActWakep, ActWakepSkip, ActWakepStartM, ActWakepNoP:
		return
	}
	ms.PollUntil = s.nextTimer(int(ms.P))
}
