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

// handoffSpinning is handoffp's start of a spinning M for P p: counted in
// nmspinning, needspinning cleared (the spinning M will look for the work
// that set it).
func (md *Model) handoffSpinning(s *State, p int) error {
	s.NMSpinning++
	s.NeedSpinning = false
	return md.startm(s, p, true)
}
