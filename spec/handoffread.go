package spec

// HandoffRead is what handoffp's reads decided, for a step applied at a
// point of a recorded run later than those reads.
//
// proc.go's handoffp reads the P's local queue and sched.runq's size,
// then nmspinning and npidle (and, if both are zero, CASes nmspinning),
// and only after that takes sched.lock for its last section. The spec
// takes the reads and what follows them as one step, so a run of the
// reference scheduler in which another M's step fell between them has no
// single point at which the spec's handoffp decides as the run did. The
// trace checker (conform, filter "stale-handoff") then applies the step
// with the decision the run's events show, and everything else, the lock
// section included, as the spec has it. A model used for exploration
// always reads (HandoffReadNow).
type HandoffRead uint8

const (
	// HandoffReadNow: the reads see the state the step applies to.
	HandoffReadNow HandoffRead = iota
	// HandoffReadWork: they saw work on the P or in sched.runq; startm.
	HandoffReadWork
	// HandoffReadSpinning: no work, nmspinning and npidle both zero and
	// the CAS won; startm of a spinning M.
	HandoffReadSpinning
	// HandoffReadIdle: no work and someone spinning or a P idle; the lock
	// section, which looks at sched.runq again as proc.go's does.
	HandoffReadIdle
)

// WithHandoffRead returns a copy of the model whose handoffp decides r
// instead of reading the state (HandoffReadNow: reads it). Every other
// step is the model's own.
func (md Model) WithHandoffRead(r HandoffRead) Model {
	md.handoffRead = r
	return md
}

// handoffWork is handoffp's first test: work on the P (local) or in
// sched.runq.
func (md *Model) handoffWork(s *State, local bool) bool {
	if md.handoffRead != HandoffReadNow {
		return md.handoffRead == HandoffReadWork
	}
	return local || s.Runq.N > 0
}

// handoffSpins is handoffp's second: nobody spinning and no P idle, so it
// counts itself in nmspinning and starts a spinning M. The model's CAS
// cannot lose (the step is atomic); a decided spin is taken as it was.
func (md *Model) handoffSpins(s *State) bool {
	if md.handoffRead != HandoffReadNow {
		return md.handoffRead == HandoffReadSpinning
	}
	return s.NMSpinning+s.NPIdle == 0
}

// handoffLockStarts is the lock section's reasons to start an M rather
// than idle the P: sched.runq not empty (proc.go looks again under the
// lock; in a step that has just read it empty that cannot hold, so only a
// decided read can meet it), and the last-poller clause.
func (md *Model) handoffLockStarts(s *State) bool {
	return md.handoffRead == HandoffReadIdle && s.Runq.N > 0 || md.lastPollerClause(s)
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

// handoffSpinning is handoffp's start of a spinning M for P p: counted in
// nmspinning, needspinning cleared (the spinning M will look for the work
// that set it).
func (md *Model) handoffSpinning(s *State, p int) error {
	s.NMSpinning++
	s.NeedSpinning = false
	return md.startm(s, p, true)
}
