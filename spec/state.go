package spec

import (
	"strconv"
	"strings"
)

// GStatus is a goroutine's g.atomicstatus, reduced to what scheduling sees.
type GStatus uint8

const (
	GIdle     GStatus = iota // _Gidle: the slot has never held a G
	GRunnable                // _Grunnable: in exactly one run queue
	GRunning                 // _Grunning: the curg of an M that holds a P
	GWaiting                 // _Gwaiting: parked, readied by Ready/Netpoll/InjectGList
	GSyscall                 // _Gsyscall: the curg of an M in a system call
	GDead                    // _Gdead: exited, on the free list (gFree)
)

var gStatusNames = [...]string{"idle", "runnable", "running", "waiting", "syscall", "dead"}

func (s GStatus) String() string {
	if int(s) < len(gStatusNames) {
		return gStatusNames[s]
	}
	return "GStatus(" + strconv.Itoa(int(s)) + ")"
}

// PStatus is p.status. Go 1.26 has no _Psyscall: a P whose M is in a system
// call stays _Prunning until retake takes it.
type PStatus uint8

const (
	PIdle    PStatus = iota // _Pidle: on sched.pidle, held by no M
	PRunning                // _Prunning: held by exactly one M
	PGCStop                 // _Pgcstop: stopped for a stop-the-world, held by no M (Bounds.STW)
	PDead                   // _Pdead: beyond GOMAXPROCS after a procresize (Bounds.ProcResize)
)

var pStatusNames = [...]string{"idle", "running", "gcstop", "dead"}

func (s PStatus) String() string {
	if int(s) < len(pStatusNames) {
		return pStatusNames[s]
	}
	return "PStatus(" + strconv.Itoa(int(s)) + ")"
}

// STWPhase is how far the stopper is in its stop-the-world (Bounds.STW).
type STWPhase uint8

const (
	STWNone     STWPhase = iota // the world runs; StopTheWorld is next if STWLeft > 0
	STWStopping                 // sched.gcwaiting set; the world is stopped once sched.stopwait is 0
	STWWakep                    // restarted (procresize done, gcwaiting clear); next: the stopper's wakep
	STWGrown                    // go1.10dev: procresize has grown allp by one slot, still nil; next: the rest of StartTheWorld
)

// MPC is where an M is in the scheduler: the model's program counter. Each
// value is a point between two of the runtime's synchronization steps (a
// sched.lock critical section, or a read-modify-write of a shared scheduler
// word), so that every interleaving proc.go admits between them is explored.
type MPC uint8

const (
	MIdle          MPC = iota // parked in stopm, on sched.midle
	MSched                    // top of findRunnable, holding a P, no curg; next: the 1/61 check
	MLocal                    // past the 1/61 check; next: runqget, then the global queue's read and lock section
	MPoll                     // local and global queues seen empty; next: netpoll(0), then the spinning limit (or stealWork)
	MSpin                     // the spinning limit allowed it; next: becomeSpinning's nmspinning.Add(1)
	MSteal                    // spinning in stealWork; Scan holds the victims visited
	MStealNext                // runqgrab saw Victim's ring empty; next: its runnext (load and CAS)
	MDrop                     // found nothing; next: the sched.lock section that releases the P
	MDropSpin                 // released its P while spinning; next: nmspinning.Add(-1)
	MRecheck                  // no P, spinning dropped; next: the global-queue recheck under sched.lock
	MRecheckRunqs             // no P; checkRunqsNoP, Scan holds the Ps looked at
	MRecheckP                 // no P; checkRunqsNoP saw work; next: pidlegetSpinning under sched.lock
	MStop                     // no P, nothing found; next: stopm's mput under sched.lock
	MSyscallNoP               // exitsyscallNoP: curg made runnable, next: pidleget or globrunqput
	MInjectGlob               // netpoll(0) gave curg and Inj, npidle > 0 was read; next: globrunqputbatch(Inj) under sched.lock
	MInjectStart              // next: injectglist's startIdle, pidlegetSpinning and startm under sched.lock
	MInjectLocal              // netpoll(0) gave curg and Inj, npidle == 0 was read; next: runqputbatch(Inj) on the M's P
	MInjectWake               // injectglist's puts are done; next: its final wakep (Go 1.23 on), and run curg
	MResetSpin                // a spinning M took curg (still runnable) from a queue; next: resetspinning, then execute
	MRun                      // running its curg (GRunning or GSyscall)
	MStartLocked              // schedule found curg (still runnable), locked to another M; next: startlockedm
	MLockedWait               // parked in stoplockedm, no P, until startlockedm hands it one with its locked G
	MExitLockCheck            // go1.17dev: exitsyscallNoP put curg on sched.runq; next: read its lockedm (Inj, or LockedG if locked)
	// The no-P recheck's and the poller's return's P, taken under
	// sched.lock (RecheckGlobal, RecheckRunqs, NetpollPidleget of a
	// spinning M): the M holds it, not yet counted in nmspinning; next:
	// becomeSpinning, its own atomic step after the unlock, then back to
	// the top, or, with curg (RecheckGlobal's batch, still runnable, in
	// hand), resetspinning.
	MRecheckSpin
	// The blocking poller (Bounds.PollBlock) and timers (Bounds.Timers): poller.go.
	MTimersNoP   // no P, was spinning, checkRunqsNoP found nothing; next: checkTimersNoP (Bounds.Timers)
	MPollCheck   // no P, nothing found; next: findRunnable's tail, sched.lastpoll.Swap(0) (or netpollBreak), then stopm
	MNetpoll     // blocked in netpoll(delay): sched.lastpoll is 0; woken by the network, netpollBreak or its timeout
	MNetpollRet  // netpoll returned (break or timeout); next: sched.pollUntil = 0, sched.lastpoll stored
	MNetpollLock // back from the poll, lastpoll stored; next: pidleget under sched.lock (curg: the G the network readied, in hand)
	numMPCs
)

var mpcNames = [...]string{"idle", "sched", "local", "poll", "spin", "steal", "stealnext", "drop", "dropspin", "recheck", "recheckrunqs", "recheckp", "stop", "syscallnop", "injectglob", "injectstart", "injectlocal", "injectwake", "resetspin", "run", "startlocked", "lockedwait", "exitlockcheck", "recheckspin", "timersnop", "pollcheck", "netpoll", "netpollret", "netpolllock"}

func (pc MPC) String() string {
	if int(pc) < len(mpcNames) {
		return mpcNames[pc]
	}
	return "MPC(" + strconv.Itoa(int(pc)) + ")"
}

// Rechecking reports whether an M at pc is in findRunnable's no-P recheck
// (rechecking, exported for the impl's snapshot).
func (pc MPC) Rechecking() bool { return pc.rechecking() }

// rechecking reports whether an M at pc is in findRunnable's no-P recheck:
// it has dropped (or is about to drop) nmspinning and will look at every
// source of work again before it stops.
func (pc MPC) rechecking() bool {
	return pc == MDropSpin || pc == MRecheck || pc == MRecheckRunqs || pc == MRecheckP
}

// excused reports whether the M's fairness family is disabled: it is
// parked (MIdle, or MLockedWait until another M hands it its G) or runs
// its G (MRun), whose next step the program decides, and is not inside
// wakep.
//
// An M blocked in netpoll (MNetpoll) is parked too: what wakes it (the
// network, a netpollBreak, its timeout) moves it to MNetpollRet, from
// where its own steps are fair again.
//
// An M whose G has made semrelease's hand-off (Yield) is not excused: the
// G is in runtime code that goyields next, with no safe point between,
// so that Goyield is the runtime's step, not the program's, and as fair
// as the schedule loop (ActionKind.mFair). Were it the program's choice,
// a stop-the-world would wait forever on a P whose G never reaches its
// goyield (sysmon's preemption cannot reach it either).
func (ms *MState) excused() bool {
	return (ms.PC == MIdle || ms.PC == MRun || ms.PC == MLockedWait || ms.PC == MNetpoll) && ms.Wake == WakeNone && !ms.Yield
}

// NoP marks an M that holds no P (m.p == nil).
const NoP = -1

// PState is one P: its status, its schedtick residue and its local run queue
// (runnext plus Ring[:N], head first). The ring is stored compactly for speed;
// Runq converts it to the reference LocalQueue, and the property tests show the
// two behave the same.
type PState struct {
	Status    PStatus
	SchedTick uint8
	RunNext   GID
	N         uint8
	Ring      [MaxCap]GID
}

// MState is one M: its place in the scheduler, the P it holds (NoP if none),
// its current G (NoG if none), m.spinning, the progress of the scan it
// is in (pc MSteal: bit v set once victim P v was looked at; pc
// MRecheckRunqs: bit p set once P p's run queue was looked at; else 0),
// and how far it is in a wakep call (Wake).
type MState struct {
	PC       MPC
	P        int8
	CurG     GID
	Spinning bool
	Scan     uint8
	Wake     WakeStage
	Inj      GID // the G netpoll's list gave injectglist, until it is queued (PCs InjectGlob, InjectLocal)
	// LockedG is m.lockedg (and g.lockedm, its inverse): the G that
	// LockOSThread wired to this M (Bounds.LockOSThread). While it is set
	// the M runs that G or nothing: it never enters findRunnable, so it
	// never spins, scans or injects.
	LockedG GID
	// NextP is m.nextp plus one (0: none, so that the zero MState has
	// none): the P startlockedm handed to this locked M before the M
	// reached stoplockedm's park. stoplockedm then returns at once with
	// it.
	NextP int8
	// Tainted marks an M cloned from a thread a locked G exited on
	// (the go1.11 variant's newm in mexit); invariant 8 forbids it.
	Tainted bool
	// OldP is m.oldp plus one (0: none) for an M in a system call that
	// has lost the P it entered the call with (to sysmon's retake, to a
	// stop-the-world, or to another exiting M): exitsyscallTryGetP tries
	// that P first, and takes it if the M holding it now is itself in a
	// system call. Zero while the M still holds its P (the runtime keeps
	// oldp there too, but reads it only when m.p is nil) and after
	// entersyscallblock, which sets none.
	OldP int8
	// SnapPs is the length of findRunnable's allp snapshot for the no-P
	// recheck (Bounds.ProcResize; 0 elsewhere, where it is every P slot):
	// gomaxprocs when the M released its P. checkRunqsNoP walks those Ps
	// only, though procresize may grow allp meanwhile.
	SnapPs int8
	// Yield marks a running G whose semrelease hand-off (ReadyHandoff)
	// has readied a waiter: its goyield is its next action (Bounds.Goyield).
	Yield bool
	// Victim is the P plus one whose ring runqgrab has just read empty
	// (PC StealNext; 0 elsewhere): the thief's next step reads that P's
	// runnext, which may have been set, and its ring refilled, since.
	Victim int8
	// The blocking poller and timers (Bounds.PollBlock, Bounds.Timers;
	// zero otherwise, and outside the key then). WasSpinning is
	// findRunnable's wasSpinning, from the no-P recheck to the end of
	// the poll (an M woken by its timeout spins again). PollUntil is
	// findRunnable's local pollUntil plus one (0: none; 1: due now; k+1:
	// due in k ticks), the earliest timer the M has seen in this search,
	// aged by TimerTick like the timers. Checked marks that the top of
	// this findRunnable pass has run checkTimers (PC Sched). Inherit is
	// the inheritTime of the G a spinning M took from its own runnext
	// after running timers (PC ResetSpin).
	WasSpinning bool
	PollUntil   uint8
	Checked     bool
	Inherit     bool
}

// WakeStage is how far an M is in wakep, which its caller (newproc, ready,
// goschedImpl, resetspinning) entered at the end of its own step. wakep
// takes two steps of its own: the load and CAS of nmspinning, then the
// sched.lock section (pidlegetSpinning, and startm or the undo). Nothing
// else of the M happens in between: the caller runs on the system stack or
// with preemption disabled, so PC stays where the caller goes next (MRun
// for newproc, ready and resetspinning, whose G is executed first, which
// nothing outside the M can tell from executing it after; MSched for
// goschedImpl).
type WakeStage uint8

const (
	WakeNone    WakeStage = iota // not in wakep
	WakePending                  // next: load nmspinning, CAS it 0 → 1
	WakeCAS                      // won the CAS (counted in nmspinning); next: the sched.lock section
)

var wakeStageNames = [...]string{"", "wakep", "wakep-cas"}

func (w WakeStage) String() string {
	if int(w) < len(wakeStageNames) {
		return wakeStageNames[w]
	}
	return "WakeStage(" + strconv.Itoa(int(w)) + ")"
}

// GlobalRunq is sched.runq stored compactly: Gs[:N], head first.
type GlobalRunq struct {
	N  uint8
	Gs [MaxGs]GID
}

// State is one state of the whole scheduler. It is a flat value: assigning it
// copies it, and no two States share storage. Only the first Ps / Ms / Gs
// entries of the arrays are used; the rest stay zero. G is indexed by GID
// (G[0] is unused).
type State struct {
	G      [MaxGs + 1]GStatus
	P      [MaxPs]PState
	M      [MaxMs]MState
	Runq   GlobalRunq
	NPIdle int8 // sched.npidle
	// IdlePs is sched.pidle, a LIFO list: IdlePs[:NPIdle] are the idle Ps,
	// the top (the next pidleget's) last; the rest stay zero.
	IdlePs     [MaxPs]int8
	NMSpinning int8 // sched.nmspinning
	// NeedSpinning is sched.needspinning (Go 1.20+): set under sched.lock by
	// pidlegetSpinning when an M found work but no idle P, cleared by
	// becomeSpinning and handoffp. Always false in the go1.19 variant.
	NeedSpinning bool
	SpawnLeft    int8 // NewProc budget left
	// RetakeP is the P sysmon's retake has taken from a syscalling M
	// (takeP) and not yet handed off, plus one (0: none). In between the
	// P is held by no M and is not on the idle list (the runtime stores
	// _Pidle in its status but only pidleput sets idlepMask and npidle,
	// and every other reader goes by those or by p.m); the model keeps it
	// PRunning, the status every such reader treats it as. Sysmon does
	// nothing else until RetakeHandoff.
	RetakeP int8
	// Stop-the-world (Bounds.STW): sched.gcwaiting, sched.stopwait (the
	// Ps still to stop), the stopper's phase, the stop-the-worlds left,
	// and gomaxprocs (Procs; P p exists when p < Procs, the rest are
	// PDead).
	GCWaiting bool
	StopWait  int8
	STW       STWPhase
	STWLeft   int8
	Procs     int8
	// NilRead records that a rechecking M read an allp slot procresize
	// had not filled yet (go1.10dev): the runtime's nil dereference,
	// which invariant 9 reports.
	NilRead bool
	// The blocking poller (Bounds.PollBlock): LastPoll is
	// sched.lastpoll != 0 (nobody blocks in netpoll; the time itself is
	// not modelled), PollUntil is sched.pollUntil in MState.PollUntil's
	// encoding. Timers (Bounds.Timers): TimerP[g] is the P+1 whose timer
	// heap holds g's sleep timer (0: none), TimerWhen[g] the ticks until
	// it is due (0: due).
	LastPoll  bool
	PollUntil uint8
	TimerP    [MaxGs + 1]uint8
	TimerWhen [MaxGs + 1]uint8

	nG, nP, nM int8 // sizes of this model; constant over a run, not part of the key
	// newmSlot is, during a locked G's exit only, the exiting M's slot
	// plus one: the thread newm creates when startm finds no idle M
	// takes the slot the exiting one leaves. Not part of the key.
	newmSlot int8
	// transit holds a runqputslow's batch between its CAS and its lock
	// section, for M transitM-1 (the spillApart test knob, apart.go;
	// transitM 0 otherwise). The key carries it only while it is held.
	transit  GlobalRunq
	transitM int8
	stw      bool // the model has Bounds.STW: the key carries the fields above
	poll     bool // the model has Bounds.PollBlock: the key carries the poller's fields
	timers   bool // the model has Bounds.Timers: the key carries the timers
}

// procs is gomaxprocs.
func (s *State) procs() int {
	if s.stw {
		return int(s.Procs)
	}
	return int(s.nP)
}

// NumGs, NumPs and NumMs are the sizes of the model this state belongs to.
func (s *State) NumGs() int { return int(s.nG) }
func (s *State) NumPs() int { return int(s.nP) }
func (s *State) NumMs() int { return int(s.nM) }

// LocalRunq returns P p's run queue as the reference LocalQueue value.
func (s *State) LocalRunq(p int, capacity int) LocalQueue {
	ps := &s.P[p]
	q := LocalQueue{Cap: capacity, RunNext: ps.RunNext}
	if ps.N > 0 {
		q.Ring = append([]GID(nil), ps.Ring[:ps.N]...)
	}
	return q
}

// GlobalQueue returns sched.runq as the reference GlobalQueue value.
func (s *State) GlobalQueue() GlobalQueue {
	var q GlobalQueue
	if s.Runq.N > 0 {
		q.Gs = append([]GID(nil), s.Runq.Gs[:s.Runq.N]...)
	}
	return q
}

// AppendKey appends the canonical encoding of s to dst: every state variable
// of docs/spec.md, one byte each, queues length-prefixed. Two states of one
// model have equal keys exactly when they are equal.
func (s *State) AppendKey(dst []byte) []byte {
	for g := 1; g <= int(s.nG); g++ {
		dst = append(dst, byte(s.G[g]))
	}
	for p := 0; p < int(s.nP); p++ {
		ps := &s.P[p]
		dst = append(dst, byte(ps.Status)|ps.SchedTick<<2, byte(ps.RunNext), ps.N)
		for i := 0; i < int(ps.N); i++ {
			dst = append(dst, byte(ps.Ring[i]))
		}
	}
	for m := 0; m < int(s.nM); m++ {
		ms := &s.M[m]
		// Four bytes: PC, Wake and Spinning; P+1 and CurG; Scan; Inj.
		// A locked M never scans or injects (see LockedG): its slot
		// holds NextP in Scan's byte and LockedG in Inj's, flagged.
		b0 := byte(ms.PC) | byte(ms.Wake)<<5
		if ms.Spinning {
			b0 |= 0x80
		}
		b2, b3 := ms.Scan, byte(ms.Inj)
		if ms.PC == MRun {
			b2 = byte(ms.OldP) // an M running its G scans nothing and has no nextp
			if ms.Yield {
				b2 |= 0x80
			}
		}
		if ms.PC == MStealNext {
			b3 = byte(ms.Victim) // Inj's nibble: a thief injects nothing
		}
		if ms.PC.rechecking() {
			b3 = byte(ms.SnapPs) // Inj's nibble: a rechecking M injects nothing
		}
		if ms.LockedG != NoG {
			// A locked M running its G keeps OldP (a syscall) and the
			// goyield flag in Scan's byte; a parked one keeps NextP
			// there. Neither holds the other.
			if ms.PC != MRun {
				b2 = byte(ms.NextP)
			}
			b3 = byte(ms.LockedG) | 0x10
		}
		if ms.Tainted {
			b3 |= 0x20
		}
		if s.poll {
			// The poller's and the timers' M fields: spare bits (Scan
			// has at most 4 Ps with timers; Checked and Inherit belong
			// to different PCs). An M running its G has no pollUntil
			// (normalizePollFields), and its byte holds OldP and the
			// goyield flag.
			if ms.PC != MRun {
				b2 |= ms.PollUntil << 4
			}
			if ms.WasSpinning {
				b3 |= 0x40
			}
			if ms.Checked || ms.Inherit {
				b3 |= 0x80
			}
		}
		dst = append(dst, b0, byte(ms.P+1)|byte(ms.CurG)<<4, b2, b3)
	}
	dst = append(dst, s.Runq.N)
	for i := 0; i < int(s.Runq.N); i++ {
		dst = append(dst, byte(s.Runq.Gs[i]))
	}
	need := byte(s.RetakeP) << 1 // zero without syscalls: the key is the old one
	if s.NeedSpinning {
		need |= 1
	}
	dst = append(dst, byte(s.NPIdle), byte(s.NMSpinning), byte(s.SpawnLeft), need)
	for i := 0; i < int(s.NPIdle); i++ {
		dst = append(dst, byte(s.IdlePs[i]))
	}
	if s.stw {
		gcw := byte(0)
		if s.GCWaiting {
			gcw = 1
		}
		if s.NilRead {
			gcw |= 0x80
		}
		dst = append(dst, gcw|byte(s.STW)<<1, byte(s.StopWait), byte(s.STWLeft), byte(s.Procs))
	}
	if s.poll {
		dst = s.appendPollKey(dst)
	}
	return s.appendTransit(dst)
}

// Key is AppendKey as a string, for use as a map key.
func (s *State) Key() string { return string(s.AppendKey(nil)) }

// decodeKey is the inverse of AppendKey for a model with the sizes of proto.
func decodeKey(proto *State, key []byte) State {
	var s State
	s.decode(proto, key)
	return s
}

// decode sets s to the state key encodes (decodeKey), in place: the
// search decodes every state a few times (to expand it, to check it, in
// each liveness pass), and a State is most of a kilobyte, which a
// returned value would copy once more. It clears s first; the caller may
// reuse one State across calls.
func (s *State) decode(proto *State, key []byte) {
	*s = State{}
	s.nG, s.nP, s.nM = proto.nG, proto.nP, proto.nM
	s.stw, s.poll, s.timers = proto.stw, proto.poll, proto.timers
	i := 0
	next := func() byte { b := key[i]; i++; return b }
	for g := 1; g <= int(s.nG); g++ {
		s.G[g] = GStatus(next())
	}
	for p := 0; p < int(s.nP); p++ {
		ps := &s.P[p]
		b := next()
		ps.Status = PStatus(b & 3)
		ps.SchedTick = b >> 2
		ps.RunNext = GID(next())
		ps.N = next()
		for j := 0; j < int(ps.N); j++ {
			ps.Ring[j] = GID(next())
		}
	}
	for m := 0; m < int(s.nM); m++ {
		ms := &s.M[m]
		b := next()
		ms.PC = MPC(b & 31)
		ms.Wake = WakeStage(b >> 5 & 3)
		ms.Spinning = b&0x80 != 0
		c := next()
		ms.P = int8(c&15) - 1
		ms.CurG = GID(c >> 4)
		scan, inj := next(), next()
		ms.Tainted = inj&0x20 != 0
		if s.poll && ms.PC != MRun {
			ms.PollUntil, scan = scan>>4, scan&15
			ms.WasSpinning = inj&0x40 != 0
			if inj&0x80 != 0 {
				ms.Checked, ms.Inherit = ms.PC == MSched, ms.PC == MResetSpin
			}
		}
		if ms.PC == MRun {
			ms.OldP, ms.Yield, scan = int8(scan&15), scan&0x80 != 0, 0
		}
		switch {
		case inj&0x10 != 0:
			ms.LockedG, ms.NextP = GID(inj&15), int8(scan)
		case ms.PC == MStealNext:
			ms.Victim, ms.Scan = int8(inj&15), scan
		case ms.PC.rechecking():
			ms.SnapPs, ms.Scan = int8(inj&15), scan
		default:
			ms.Inj, ms.Scan = GID(inj&15), scan
		}
	}
	s.Runq.N = next()
	for j := 0; j < int(s.Runq.N); j++ {
		s.Runq.Gs[j] = GID(next())
	}
	s.NPIdle = int8(next())
	s.NMSpinning = int8(next())
	s.SpawnLeft = int8(next())
	need := next()
	s.NeedSpinning, s.RetakeP = need&1 != 0, int8(need>>1)
	for i := 0; i < int(s.NPIdle); i++ {
		s.IdlePs[i] = int8(next())
	}
	if s.stw {
		b := next()
		s.GCWaiting, s.STW, s.NilRead = b&1 != 0, STWPhase(b>>1&7), b&0x80 != 0
		s.StopWait, s.STWLeft, s.Procs = int8(next()), int8(next()), int8(next())
	}
	if s.poll {
		i += s.decodePollKey(key[i:])
	}
	s.decodeTransit(key[i:])
}

// scanString lists the Ps of a scan mask: "{p0,p2}".
func scanString(mask uint8) string {
	var b strings.Builder
	b.WriteByte('{')
	for p := 0; p < MaxPs; p++ {
		if mask&(1<<p) != 0 {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.WriteString("p" + strconv.Itoa(p))
		}
	}
	b.WriteByte('}')
	return b.String()
}

func gName(g GID) string {
	if g == NoG {
		return "-"
	}
	return "g" + strconv.Itoa(int(g))
}

func writeGs(b *strings.Builder, gs []GID) {
	b.WriteByte('[')
	for i, g := range gs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(gName(g))
	}
	b.WriteByte(']')
}

// String renders the state on a few lines for traces:
//
//	G  g1:running g2:runnable ...
//	P  p0:running tick=1 runnext=g2 runq=[] | p1:idle ...
//	M  m0:run p0 g1 | m1:sched p1 spinning | m2:idle
//	sched.runq=[g3] npidle=0 nmspinning=1 spawn=2
func (s State) String() string {
	var b strings.Builder
	b.WriteString("G ")
	for g := 1; g <= int(s.nG); g++ {
		b.WriteString(" " + gName(GID(g)) + ":" + s.G[g].String())
	}
	b.WriteString("\nP ")
	for p := 0; p < int(s.nP); p++ {
		ps := &s.P[p]
		if p > 0 {
			b.WriteString(" |")
		}
		b.WriteString(" p" + strconv.Itoa(p) + ":" + ps.Status.String())
		b.WriteString(" tick=" + strconv.Itoa(int(ps.SchedTick)))
		b.WriteString(" runnext=" + gName(ps.RunNext) + " runq=")
		writeGs(&b, ps.Ring[:ps.N])
	}
	b.WriteString("\nM ")
	for m := 0; m < int(s.nM); m++ {
		ms := &s.M[m]
		if m > 0 {
			b.WriteString(" |")
		}
		b.WriteString(" m" + strconv.Itoa(m) + ":" + ms.PC.String())
		if ms.P != NoP {
			b.WriteString(" p" + strconv.Itoa(int(ms.P)))
		}
		if ms.CurG != NoG {
			b.WriteString(" " + gName(ms.CurG))
		}
		if ms.Inj != NoG {
			b.WriteString(" inject=" + gName(ms.Inj))
		}
		if ms.LockedG != NoG {
			b.WriteString(" locked=" + gName(ms.LockedG))
		}
		if ms.NextP != 0 {
			b.WriteString(" nextp=p" + strconv.Itoa(int(ms.NextP)-1))
		}
		if ms.Spinning {
			b.WriteString(" spinning")
		}
		if ms.Tainted {
			b.WriteString(" tainted")
		}
		if ms.Scan != 0 {
			b.WriteString(" scanned=" + scanString(ms.Scan))
		}
		if ms.OldP != 0 {
			b.WriteString(" oldp=p" + strconv.Itoa(int(ms.OldP)-1))
		}
		if ms.Yield {
			b.WriteString(" goyield-next")
		}
		if ms.Victim != 0 {
			b.WriteString(" victim=p" + strconv.Itoa(int(ms.Victim)-1))
		}
		if ms.SnapPs != 0 {
			b.WriteString(" allp-snapshot=" + strconv.Itoa(int(ms.SnapPs)))
		}
		if ms.Wake != WakeNone {
			b.WriteString(" in " + ms.Wake.String())
		}
		if ms.WasSpinning {
			b.WriteString(" wasspinning")
		}
		if ms.PollUntil != 0 {
			b.WriteString(" polluntil=" + pollUntilString(ms.PollUntil))
		}
		if ms.Checked {
			b.WriteString(" checked")
		}
		if ms.Inherit {
			b.WriteString(" inherit")
		}
	}
	b.WriteString("\nsched.runq=")
	writeGs(&b, s.Runq.Gs[:s.Runq.N])
	s.writeTransit(&b)
	b.WriteString(" npidle=" + strconv.Itoa(int(s.NPIdle)))
	if s.NPIdle > 1 {
		// Which idle P the next pidleget takes: the list from its top.
		b.WriteString(" pidle=[")
		for i := int(s.NPIdle) - 1; i >= 0; i-- {
			b.WriteString("p" + strconv.Itoa(int(s.IdlePs[i])))
			if i > 0 {
				b.WriteByte(' ')
			}
		}
		b.WriteByte(']')
	}
	b.WriteString(" nmspinning=" + strconv.Itoa(int(s.NMSpinning)))
	if s.NeedSpinning {
		b.WriteString(" needspinning=1")
	}
	b.WriteString(" spawn=" + strconv.Itoa(int(s.SpawnLeft)))
	if s.RetakeP != 0 {
		b.WriteString(" sysmon:handoffp(p" + strconv.Itoa(int(s.RetakeP)-1) + ")")
	}
	if s.stw {
		if s.GCWaiting {
			b.WriteString(" gcwaiting stopwait=" + strconv.Itoa(int(s.StopWait)))
		}
		if s.STW == STWWakep {
			b.WriteString(" stopper:wakep")
		}
		b.WriteString(" gomaxprocs=" + strconv.Itoa(int(s.Procs)) + " stw-left=" + strconv.Itoa(int(s.STWLeft)))
	}
	if s.poll {
		s.writePoll(&b)
	}
	return b.String()
}
