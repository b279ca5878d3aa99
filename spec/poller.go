package spec

import "strconv"

// The blocking poller (Bounds.PollBlock; docs/spec.md, "The blocking
// poller"). An M that has given up its P and found no work does not always
// park in stopm: if a G waits on the network, or it has seen a timer
// (MState.PollUntil), and nobody else is in the poller (sched.lastpoll is
// not 0), it claims the poller by swapping lastpoll to 0 and blocks in
// netpoll until the network readies a G, another M's netpollBreak, or its
// timeout. Whoever could leave the network unwatched makes sure an M will
// be there: handoffp starts an M on the last running P while nobody polls,
// and an M that finds the poller taken but sleeping past its own timer
// breaks the sleep. While an M blocks there, the non-blocking polls
// (findRunnable's netpoll(0) and sysmon's) are skipped, as in the runtime
// (both test lastpoll != 0).
//
// In this model every waiting G that no timer holds may be readied by the
// network (Netpoll, InjectGList and NetpollReady choose any), so
// netpollAnyWaiters is "some G waits without a timer".

// netWaiting reports whether g is parked on something other than a timer:
// the network (or a channel) may ready it.
func (s *State) netWaiting(g int) bool { return s.G[g] == GWaiting && s.TimerP[g] == 0 }

// netpollAnyWaiters is netpollAnyWaiters: some G waits on the network.
func (s *State) netpollAnyWaiters() bool {
	for g := 1; g <= int(s.nG); g++ {
		if s.netWaiting(g) {
			return true
		}
	}
	return false
}

// pollerM is the M in the poller (blocked, or returned and not yet past
// its stores of sched.pollUntil and sched.lastpoll), or -1.
func (s *State) pollerM() int {
	for m := 0; m < int(s.nM); m++ {
		if pc := s.M[m].PC; pc == MNetpoll || pc == MNetpollRet {
			return m
		}
	}
	return -1
}

// netPolled reports whether the non-blocking polls may run: without the
// blocking poller always; with it only while nobody blocks in netpoll
// (sched.lastpoll != 0).
func (md *Model) netPolled(s *State) bool { return !md.b.PollBlock || s.LastPoll }

// findRunnableTail is where findRunnable goes once it has no P and has
// found nothing: stopm, or with the blocking poller the netpoll decision
// (after checkTimersNoP if the M was spinning and timers exist).
func (md *Model) findRunnableTail(ms *MState, wasSpinning bool) {
	switch {
	case !md.b.PollBlock:
		ms.PC = MStop
	case wasSpinning && md.b.Timers > 0 && md.b.timerWakeups():
		ms.PC, ms.WasSpinning = MTimersNoP, true
	default:
		ms.PC, ms.WasSpinning = MPollCheck, wasSpinning
	}
}

// appendPollSteps lists the next step of M mi at one of the poller's PCs.
func (md *Model) appendPollSteps(dst []Action, s *State, mi int8) []Action {
	ms := &s.M[mi]
	k := ActionKind(0)
	switch ms.PC {
	case MTimersNoP:
		k = ActCheckTimersNoP
	case MPollCheck:
		// if (netpollAnyWaiters() || pollUntil != 0) &&
		// lastpoll.Swap(0) != 0: block; else if pollUntil != 0 and the
		// poller sleeps past it: netpollBreak; then stopm. A swap that
		// loses changes nothing, so it is read with what follows.
		switch {
		case (ms.PollUntil != 0 || s.netpollAnyWaiters()) && s.LastPoll:
			k = ActNetpollBlock
		case ms.PollUntil != 0 && !s.LastPoll && (s.PollUntil == 0 || s.PollUntil > ms.PollUntil):
			k = ActNetpollBreak
		default:
			k = ActStopM
		}
	case MNetpoll:
		return dst // blocked: NetpollReady, a break or the clock wake it
	case MNetpollRet:
		k = ActNetpollWake
	case MNetpollLock:
		k = ActNetpollNoP
		if s.NPIdle > 0 {
			k = ActNetpollPidleget
		}
	}
	return append(dst, Action{Kind: k, M: mi, P: NoP})
}

// appendNetpollReady lists the network's readiness for the M blocked in
// netpoll: any G that waits without a timer.
func (md *Model) appendNetpollReady(dst []Action, s *State) []Action {
	m := s.pollerM()
	if m < 0 || s.M[m].PC != MNetpoll {
		return dst
	}
	for g := 1; g <= int(s.nG); g++ {
		if s.netWaiting(g) {
			dst = append(dst, Action{Kind: ActNetpollReady, M: NoP, P: NoP, G: GID(g)})
		}
	}
	return dst
}

// stepPoll applies the poller's actions.
func (md *Model) stepPoll(s *State, ms *MState, a Action) (info stepInfo, err error) {
	info.freshP = NoP
	switch a.Kind {
	case ActNetpollBlock:
		// lastpoll.Swap(0) won; sched.pollUntil.Store(pollUntil) with it;
		// netpoll(delay). A pollUntil already due is netpoll(0): it
		// returns at once.
		s.LastPoll, s.PollUntil = false, ms.PollUntil
		ms.PollUntil, ms.PC = 0, MNetpoll
		if s.PollUntil == 1 {
			ms.PC = MNetpollRet
		}
	case ActNetpollBreak:
		md.netpollBreak(s)
		ms.PC = MStop
	case ActNetpollWake:
		s.PollUntil, s.LastPoll = 0, true
		ms.PC = MNetpollLock
	case ActNetpollReady:
		// netpoll returns the G; the poller's stores of pollUntil and
		// lastpoll are taken at the same instant (the readiness is free).
		pm := &s.M[s.pollerM()]
		s.G[a.G] = GRunnable
		pm.CurG = a.G
		s.PollUntil, s.LastPoll = 0, true
		pm.PC = MNetpollLock
	case ActNetpollPidleget:
		g, was := ms.CurG, ms.WasSpinning
		ms.P = int8(s.pidleget())
		ms.CurG, ms.WasSpinning = NoG, false
		if g != NoG {
			return md.runStep(s, a.M, g, false)
		}
		ms.PC = MSched // goto top, spinning again if it was
		if was {
			ms.PC = MRecheckSpin // becomeSpinning first, its own step
		}
	case ActNetpollNoP:
		if g := ms.CurG; g != NoG {
			// injectglist without a P: globrunqputbatch, then startIdle's
			// pidlegetSpinning (there is no idle P: it sets needspinning).
			s.globrunqput(g)
			ms.CurG = NoG
			md.noIdleP(s)
		}
		ms.PC, ms.WasSpinning = MStop, false
	}
	return info, nil
}

// runStep is run as a step's result.
func (md *Model) runStep(s *State, m int8, g GID, inherit bool) (stepInfo, error) {
	p, err := md.run(s, m, g, inherit)
	return stepInfo{freshP: p}, err
}

// netpollBreak wakes the M blocked in netpoll, if any. The runtime's
// break is a write to the poller's wake-up fd, kept until the next
// netpoll if nobody sleeps: here a break with nobody blocked is lost
// (docs/spec.md: the spurious wake-ups it would cause are left out).
func (md *Model) netpollBreak(s *State) {
	if m := s.pollerM(); m >= 0 && s.M[m].PC == MNetpoll {
		s.M[m].PC = MNetpollRet
	}
}

// lastPollerClause is handoffp's "this was the last running P and nobody
// is polling the network": start an M on it, which will block in netpoll.
func (md *Model) lastPollerClause(s *State) bool {
	return md.b.PollBlock && md.b.Bug != BugHandoffIgnoresPoller &&
		int(s.NPIdle) == s.procs()-1 && s.LastPoll
}

// appendPollKey appends the poller's and the timers' global fields to a
// state's key (AppendKey).
func (s *State) appendPollKey(dst []byte) []byte {
	b := s.PollUntil << 1
	if s.LastPoll {
		b |= 1
	}
	dst = append(dst, b)
	if s.timers {
		for g := 1; g <= int(s.nG); g++ {
			dst = append(dst, s.TimerP[g]|s.TimerWhen[g]<<4)
		}
	}
	return dst
}

// decodePollKey is appendPollKey's inverse; it returns the bytes it read.
func (s *State) decodePollKey(key []byte) int {
	s.LastPoll, s.PollUntil = key[0]&1 != 0, key[0]>>1
	if !s.timers {
		return 1
	}
	for g := 1; g <= int(s.nG); g++ {
		s.TimerP[g], s.TimerWhen[g] = key[g]&15, key[g]>>4
	}
	return 1 + int(s.nG)
}

// pollUntilString renders a pollUntil: "due" or "+k" ticks.
func pollUntilString(pu uint8) string {
	if pu == 1 {
		return "due"
	}
	return "+" + strconv.Itoa(int(pu)-1)
}

// writePoll renders the poller's and the timers' global fields.
func (s *State) writePoll(b interface{ WriteString(string) (int, error) }) {
	if s.LastPoll {
		b.WriteString(" lastpoll=set")
	} else {
		b.WriteString(" lastpoll=0")
	}
	if s.PollUntil != 0 {
		b.WriteString(" polluntil=" + pollUntilString(s.PollUntil))
	}
	for g := 1; g <= int(s.nG); g++ {
		if s.TimerP[g] != 0 {
			w := "due"
			if s.TimerWhen[g] > 0 {
				w = "+" + strconv.Itoa(int(s.TimerWhen[g]))
			}
			b.WriteString(" timer(" + gName(GID(g)) + ")=p" + strconv.Itoa(int(s.TimerP[g])-1) + ":" + w)
		}
	}
}
