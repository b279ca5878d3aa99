package spec

import (
	"strconv"
	"strings"
)

// Tests' knobs that take apart two of proc.go's steps the model fuses
// (docs/spec.md, "Coarser steps"), to check what the fusion hides. Their
// steps carry a non-zero Inj where the kind does not use it (a stale
// handoffp names the M whose wakep it read; a spill's lock section is
// spillLock), and with spillApart every step that may spill goes through
// spillStep. The model proper never sets them: its graphs, keys and speed
// are those without the knobs.

// appendApart adds the enabled knobs' steps to dst, the steps enabled in s.
func (md *Model) appendApart(dst []Action, s *State) []Action {
	if md.staleHandoffRead {
		dst = md.appendStaleHandoffs(dst, s)
	}
	if md.spillApart {
		dst = md.appendSpillLock(dst, s)
	}
	return dst
}

// apartStep applies a step appendApart added.
func (md *Model) apartStep(s *State, a Action) (stepInfo, error) {
	if handsOff[a.Kind] {
		return md.staleHandoffStep(s, a)
	}
	return md.spillStep(s, a)
}

// handsOff are the steps that end in handoffp.
var handsOff = map[ActionKind]bool{
	ActRetakeHandoff: true, ActEnterSyscallBlock: true, ActStopLockedM: true, ActGoExit: true,
}

// appendStaleHandoffs is the staleHandoffRead knob: the interleaving the
// one-step handoffp leaves out, in which handoffp loads nmspinning while
// another M's wakep holds its won CAS (Wake == WakeCAS), that wakep's lock
// section finds no idle P (WakepNoP: needspinning set, the CAS given
// back), and then handoffp's own lock section idles the P, which the
// wakep could have had. For each enabled step that ends in handoffp,
// whose reads see no work on the P or in sched.runq, and each such M, it
// adds the step with Inj = that M + 1; staleHandoffStep applies it as the
// M's WakepNoP followed by the step with the idle read. Only the tests set
// the knob: the model proper takes handoffp as one step (docs/spec.md,
// "Coarser steps").
func (md *Model) appendStaleHandoffs(dst []Action, s *State) []Action {
	if s.NPIdle != 0 {
		return dst // the wakep's lock section would take an idle P
	}
	n := len(dst)
	for _, a := range dst[:n] {
		if !handsOff[a.Kind] {
			continue
		}
		p := int(a.P)
		if a.Kind != ActRetakeHandoff {
			ms := &s.M[a.M]
			if a.Kind == ActGoExit && ms.LockedG == NoG || md.b.Bug == BugSyscallBlockNoHandoff || md.b.Bug == BugStopLockedNoHandoff {
				continue
			}
			p = int(ms.P)
		}
		if !s.P[p].empty() || s.Runq.N > 0 {
			continue // the reads see work: startm, whatever nmspinning is
		}
		for w := 0; w < int(s.nM); w++ {
			if int8(w) != a.M && s.M[w].Wake == WakeCAS {
				v := a
				v.Inj = GID(w + 1)
				dst = append(dst, v)
			}
		}
	}
	return dst
}

// staleHandoffStep applies a step appendStaleHandoffs added: the wakep's
// WakepNoP, then the step with handoffp's read taken as idle.
func (md *Model) staleHandoffStep(s *State, a Action) (stepInfo, error) {
	if info, err := md.step(s, Action{Kind: ActWakepNoP, M: int8(a.Inj) - 1, P: NoP}); err != nil {
		return info, err
	}
	idle := *md
	idle.handoffRead = HandoffReadIdle
	a.Inj = 0
	return idle.step(s, a)
}

// spillKinds are the steps whose runqput on the M's own P may spill a
// full ring to sched.runq (runqputslow): Goyield's kind is also the
// spill's lock section (spillLock).
var spillKinds = map[ActionKind]bool{
	ActNewProc: true, ActReady: true, ActReadyHandoff: true, ActGoyield: true,
}

// Spills reports whether k's runqput on its M's own P may spill a full
// ring to sched.runq (runqputslow): the steps trace validation's filter
// runqput-spill follows, and the knob spillApart takes apart.
func (k ActionKind) Spills() bool { return spillKinds[k] }

// spillLock, as the Inj of a Goyield-kind step, is the sched.lock section
// of the runqputslow whose batch the M holds (spillApart).
const spillLock GID = 0xff

// appendSpillLock is the spillApart knob: runqputslow takes half the
// full ring by a CAS of its head and puts those Gs and the new one on
// sched.runq only in its sched.lock section; in between they are in
// neither queue, and every other actor may step. A step that spills
// (spillStep) leaves the batch in State.transit, held by its M, whose
// only step is then that lock section (Goyield's kind, a step of the
// M's fairness family, with Inj spillLock). The Goyield and NewProc
// callers' Ms are in the family then (at the top of schedule, or in
// wakep), so the lock section is weakly fair.
func (md *Model) appendSpillLock(dst []Action, s *State) []Action {
	if s.transitM == 0 {
		return dst
	}
	m := s.transitM - 1
	out := dst[:0]
	for _, a := range dst {
		if a.Kind.external() || a.M != m {
			out = append(out, a)
		}
	}
	return append(out, Action{Kind: ActGoyield, M: m, P: NoP, Inj: spillLock})
}

// spillStep applies a step that may spill (spillKinds) under spillApart:
// the model's own step, then the Gs it put at sched.runq's tail back in
// its M's hands (State.transit), or, for the lock-section step, those Gs
// at sched.runq's tail.
func (md *Model) spillStep(s *State, a Action) (stepInfo, error) {
	if a.Inj == spillLock {
		for i := 0; i < int(s.transit.N); i++ {
			s.globrunqput(s.transit.Gs[i])
		}
		s.transit, s.transitM = GlobalRunq{}, 0
		if ms := &s.M[a.M]; md.spillWakep && ms.Wake == WakeNone {
			md.wakep(ms) // goyield's spill, which has no wakep of its own
		}
		return stepInfo{freshP: NoP}, nil
	}
	n := s.Runq.N
	info, err := md.plain().step(s, a)
	if err != nil || s.Runq.N <= n || s.transitM != 0 {
		return info, err // no spill; or one M holds a batch already, and this spill is one step
	}
	for i := n; i < s.Runq.N; i++ {
		s.transit.Gs[s.transit.N] = s.Runq.Gs[i]
		s.transit.N++
		s.Runq.Gs[i] = NoG
	}
	s.Runq.N, s.transitM = n, a.M+1
	return info, nil
}

// appendTransit appends the held batch to a state's key, only while one
// is held: every other key is as it was without the knob.
func (s *State) appendTransit(dst []byte) []byte {
	if s.transitM == 0 {
		return dst
	}
	dst = append(dst, byte(s.transitM), s.transit.N)
	for i := 0; i < int(s.transit.N); i++ {
		dst = append(dst, byte(s.transit.Gs[i]))
	}
	return dst
}

// decodeTransit reads appendTransit's bytes, if any: rest is what
// follows every other field of the key.
func (s *State) decodeTransit(rest []byte) {
	if len(rest) == 0 {
		return
	}
	s.transitM, s.transit.N = int8(rest[0]), rest[1]
	for j := range int(s.transit.N) {
		s.transit.Gs[j] = GID(rest[2+j])
	}
}

// writeTransit renders the held batch, if any.
func (s *State) writeTransit(b *strings.Builder) {
	if s.transitM != 0 {
		b.WriteString(" m" + strconv.Itoa(int(s.transitM)-1) + ":runqputslow")
		writeGs(b, s.transit.Gs[:s.transit.N])
	}
}

// plain is the model without the knobs that add steps.
func (md *Model) plain() *Model {
	p := *md
	p.staleHandoffRead, p.spillApart = false, false
	return &p
}
