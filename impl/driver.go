package impl

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Driver runs the scheduler's real decision code one step at a time, with
// no goroutine of its own: no M goroutines, no G goroutines, no sysmon. The
// caller plays every part. It tells an M to take its next scheduler step
// (the M decides what that step is), scripts what each running G does
// (spawn, exit, yield, park, ready, syscall), and plays sysmon (preempt,
// retake). After each command Actions reports the spec action the
// scheduler took and Snapshot its state, so a test can compare both with
// spec/ step by step.
//
// Its initial state is the spec's: main (g1) running on m0, which holds p0.
type Driver struct {
	s       *Sched
	main    *G
	actions []Event
}

// NewDriver builds a deterministic scheduler. cfg.Trace, if set, also
// receives every event.
func NewDriver(cfg Config) (*Driver, error) {
	d := &Driver{}
	user := cfg.Trace
	cfg.Trace = func(e Event) {
		if e.Kind == EvAction {
			d.actions = append(d.actions, e)
		}
		if user != nil {
			user(e)
		}
	}
	s, main, err := newDetSched(cfg)
	if err != nil {
		return nil, err
	}
	d.s, d.main = s, main
	d.actions = nil
	return d, nil
}

// newDetSched builds a deterministic scheduler in the spec's initial state.
func newDetSched(cfg Config) (*Sched, *G, error) {
	cfg.deterministic = true
	cfg.NoSysmon = true
	s, err := New(cfg)
	if err != nil {
		return nil, nil, err
	}
	s.glob.Lock()
	pp := s.pidleget()
	m := s.newm()
	acquirep(m, pp)
	s.glob.Unlock()
	main := s.newproc1(pp, nil)
	s.execute(m, main, true) // main's slice is not a schedtick
	return s, main, nil
}

// Sched is the scheduler being driven.
func (d *Driver) Sched() *Sched { return d.s }

// Main is g1.
func (d *Driver) Main() *G { return d.main }

// Actions returns the EvAction events since the last call and forgets them.
func (d *Driver) Actions() []Event {
	a := d.actions
	d.actions = nil
	return a
}

func (d *Driver) m(i int) (*M, error) {
	if i < 0 || i >= len(d.s.allm) {
		return nil, fmt.Errorf("driver: no m%d", i)
	}
	return d.s.allm[i], nil
}

// onRunning calls f with M i if it runs a G (Grunning), as the goroutine
// actions' Driver methods do.
func (d *Driver) onRunning(i int, f func(m *M)) error {
	m, err := d.running(i, Grunning)
	if err == nil {
		f(m)
	}
	return err
}

// running returns m i if it is running a G in status st.
func (d *Driver) running(i int, st Gstatus) (*M, error) {
	m, err := d.m(i)
	if err != nil {
		return nil, err
	}
	if m.pc != spec.MRun {
		return nil, fmt.Errorf("driver: m%d is %v, not running a G", i, m.pc)
	}
	if g := m.curg.Load(); g.Status() != st {
		return nil, fmt.Errorf("driver: m%d's %v is %v, not %v", i, g, g.Status(), st)
	}
	return m, nil
}

// Step makes M i take one step of its schedule loop (findRunnable, the
// no-P recheck, stopm, exitsyscallNoP's lock section); the scheduler decides
// which.
func (d *Driver) Step(i int) error {
	m, err := d.m(i)
	if err != nil {
		return err
	}
	if m.pc == spec.MRun || m.pc == spec.MIdle || m.pc == spec.MLockedWait {
		return fmt.Errorf("driver: m%d is %v, not scheduling", i, m.pc)
	}
	d.s.schedStep(m)
	return nil
}

// NewProc makes M i's G start a new G (newproc).
func (d *Driver) NewProc(i int) (*G, error) {
	m, err := d.running(i, Grunning)
	if err != nil {
		return nil, err
	}
	return d.s.newproc(m, nil), nil
}

// GoExit makes M i's G exit; if it is locked to M i, the M ends with it.
func (d *Driver) GoExit(i int) error {
	return d.onRunning(i, func(m *M) { d.s.goexit0(m) })
}

// Gosched makes M i's G yield.
func (d *Driver) Gosched(i int) error {
	return d.onRunning(i, func(m *M) { d.s.goschedImpl(m, false) })
}

// Park makes M i's G park.
func (d *Driver) Park(i int) error {
	return d.onRunning(i, func(m *M) { d.s.parkm(m, nil) })
}

// Ready makes M i's G ready g.
func (d *Driver) Ready(i int, g *G) error {
	m, err := d.running(i, Grunning)
	if err != nil {
		return err
	}
	return d.s.ready(m, g)
}

// EnterSyscall makes M i's G enter a syscall.
func (d *Driver) EnterSyscall(i int) error {
	return d.onRunning(i, func(m *M) { d.s.entersyscall(m) })
}

// EnterSyscallBlock makes M i's G enter a syscall known to block: M i
// hands its P off at once.
func (d *Driver) EnterSyscallBlock(i int) error {
	return d.onRunning(i, func(m *M) { d.s.entersyscallblock(m) })
}

// LockOSThread makes M i's G lock itself to M i.
func (d *Driver) LockOSThread(i int) error {
	return d.onRunning(i, func(m *M) { m.curg.Load().LockOSThread() })
}

// UnlockOSThread makes M i's G undo its LockOSThread.
func (d *Driver) UnlockOSThread(i int) error {
	return d.onRunning(i, func(m *M) { m.curg.Load().UnlockOSThread() })
}

// ExitSyscall makes M i's G return from its syscall: it keeps running if it
// gets a P, else it becomes runnable in its M's hand (exitsyscallNoP), and
// the M's next Step decides where it runs.
func (d *Driver) ExitSyscall(i int) error {
	m, err := d.running(i, Gsyscall)
	if err != nil {
		return err
	}
	if !d.s.exitsyscall(m) {
		d.s.exitsyscallNoP(m)
	}
	return nil
}

// Preempt plays sysmon finding P p's G past its time slice; the G honours
// the request at once (its next Checkpoint).
func (d *Driver) Preempt(p int) error {
	allp := d.s.ps().allp
	if p < 0 || p >= len(allp) {
		return fmt.Errorf("driver: no p%d", p)
	}
	pp := allp[p]
	m := pp.m.Load()
	if m == nil || !d.s.preemptone(pp) {
		return fmt.Errorf("driver: p%d is not running a G", p)
	}
	m.curg.Load().x.preempt.Store(false)
	d.s.goschedImpl(m, true)
	return nil
}

// Retake plays sysmon looking at P p after its G has been in a syscall for
// one sysmon tick but less than 10 ms (the untimed rule). It reports whether
// the P was taken.
func (d *Driver) Retake(p int) (bool, error) {
	allp := d.s.ps().allp
	if p < 0 || p >= len(allp) {
		return false, fmt.Errorf("driver: no p%d", p)
	}
	s := d.s
	return s.retakeSyscall(allp[p], func(empty bool) bool {
		return retakeSyscallOK(empty, s.nmspinning.Load(), s.npidle.Load(), false)
	}), nil
}

// Netpoll makes M i, which must be at findRunnable's netpoll (pc MPoll),
// poll and find exactly the waiting Gs gs ready, in that order: their
// events arrive, then the M steps. One G runs (Netpoll); with more, the
// first runs and the rest go to injectglist (NetpollInject, then the M's
// next steps).
func (d *Driver) Netpoll(i int, gs ...*G) error {
	m, err := d.m(i)
	if err != nil {
		return err
	}
	if m.pc != spec.MPoll {
		return fmt.Errorf("driver: m%d is %v, not at netpoll", i, m.pc)
	}
	if len(gs) == 0 {
		return fmt.Errorf("driver: netpoll of no G")
	}
	for k, g := range gs {
		if g == nil || g.Status() != Gwaiting {
			return fmt.Errorf("driver: netpoll of %v, which is not waiting", g)
		}
		for _, h := range gs[:k] {
			if h == g {
				return fmt.Errorf("driver: netpoll of %v twice", g)
			}
		}
	}
	d.s.netpollAdd(gs...)
	d.s.schedStep(m)
	if d.s.poll.nready.Load() != 0 {
		return fmt.Errorf("driver: m%d did not poll", i)
	}
	return nil
}

// Apply takes the spec action a on the Driver: what a G, a syscall's end,
// sysmon or netpoll does becomes the call of that name, and any other
// action is a scheduler step of M a.M, whose choice is the impl's
// (StartLockedM and StopLockedM among them). slots
// maps the spec's G numbers to the impl's Gs. It returns the G a NewProc
// created, for the caller to enter in slots.
func (d *Driver) Apply(a spec.Action, slots *[spec.MaxGs + 1]*G) (*G, error) {
	m := int(a.M)
	switch a.Kind {
	case spec.ActNewProc:
		return d.NewProc(m)
	case spec.ActGoExit:
		return nil, d.GoExit(m)
	case spec.ActGosched:
		return nil, d.Gosched(m)
	case spec.ActPark:
		return nil, d.Park(m)
	case spec.ActReady:
		return nil, d.Ready(m, slots[a.G])
	case spec.ActEnterSyscall:
		return nil, d.EnterSyscall(m)
	case spec.ActEnterSyscallBlock:
		return nil, d.EnterSyscallBlock(m)
	case spec.ActLockOSThread:
		return nil, d.LockOSThread(m)
	case spec.ActUnlockOSThread:
		return nil, d.UnlockOSThread(m)
	case spec.ActExitSyscallFast, spec.ActExitSyscallIdleP, spec.ActExitSyscallNoP:
		return nil, d.ExitSyscall(m)
	case spec.ActPreempt:
		return nil, d.Preempt(int(a.P))
	case spec.ActRetake:
		took, err := d.Retake(int(a.P))
		if err == nil && !took {
			err = fmt.Errorf("the impl's retake does not take p%d", a.P)
		}
		return nil, err
	case spec.ActNetpoll:
		return nil, d.Netpoll(m, slots[a.G])
	case spec.ActNetpollInject:
		return nil, d.Netpoll(m, slots[a.G], slots[a.Inj])
	case spec.ActInjectGList:
		return nil, d.Inject(slots[a.G])
	case spec.ActStopTheWorld:
		return nil, d.StopTheWorld()
	case spec.ActStartTheWorld:
		return nil, d.StartTheWorld(int(a.P))
	case spec.ActStartTheWorldWakep:
		return nil, d.StartTheWorldWakep()
	}
	return nil, d.Step(m)
}

// StopTheWorld plays the stopper's first step, stopTheWorldWithSema's
// sched.lock section: gcwaiting set, the idle Ps and the Ps whose G is in
// a syscall stopped. The other Ps stop when their Ms step (gcstopm at
// findRunnable's top, in stealWork or in the drop section); a running G
// must first be preempted (Preempt), or leave its P otherwise. It fails if
// a stop is already under way.
func (d *Driver) StopTheWorld() error {
	if d.s.world.gcwaiting.Load() {
		return fmt.Errorf("driver: the world is already stopping")
	}
	d.s.world.sema.Lock()
	d.s.stopTheWorldSection()
	return nil
}

// StartTheWorld plays the stopper's restart once every P has stopped:
// startTheWorldWithSema's lock section, with procresize to procs Ps first
// unless procs is 0 or the current number (SetProcs); StartTheWorldWakep
// is the step after it. It fails if no stop is under way or a P has not
// stopped.
func (d *Driver) StartTheWorld(procs int) error {
	s := d.s
	if !s.world.gcwaiting.Load() {
		return fmt.Errorf("driver: the world is not stopping")
	}
	if procs < 0 || procs > s.cfg.MaxMs {
		return fmt.Errorf("driver: procresize to %d Ps", procs)
	}
	s.glob.Lock()
	left := s.world.stopwait
	s.glob.Unlock()
	if left != 0 {
		return fmt.Errorf("driver: %d Ps not stopped yet", left)
	}
	s.startTheWorldSection(int32(procs))
	return nil
}

// StartTheWorldWakep plays the stopper's last step, its wakep after the
// restart.
func (d *Driver) StartTheWorldWakep() error {
	if d.s.world.gcwaiting.Load() {
		return fmt.Errorf("driver: the world is still stopping")
	}
	d.s.startTheWorldWakep()
	return nil
}

// Inject readies a parked G from outside the scheduler (injectglist).
func (d *Driver) Inject(g *G) error { return d.s.Ready(g) }

// Snapshot is the scheduler's state in the spec's terms.
type Snapshot struct {
	Gs           []*G // every G ever created, in creation order
	Ps           []PSnapshot
	Ms           []MSnapshot
	Runq         []*G // global queue, head first
	NPIdle       int32
	NMSpinning   int32
	NeedSpinning uint32
	GCWaiting    bool  // sched.gcwaiting
	StopWait     int32 // sched.stopwait
}

// PSnapshot is one P.
type PSnapshot struct {
	Status    spec.PStatus
	SchedTick uint32
	RunNext   *G
	Ring      []*G
}

// MSnapshot is one M. Scan is the spec's view of a scan in progress: the
// victims stealWork looked at in its last pass (pc MSteal), or the Ps
// checkRunqsNoP looked at (pc MRecheckRunqs), as a bit mask of P ids.
type MSnapshot struct {
	PC       spec.MPC
	P        int // -1: none
	CurG     *G
	Spinning bool
	Scan     uint64
	Inj      []*G // the Gs netpoll gave injectglist, held by the M until queued
	LockedG  *G   // m.lockedg
	NextP    int  // m.nextp's number plus one, 0: none (as spec.MState.NextP)
}

// Snapshot reads the whole state. It is exact only when nothing runs
// concurrently, as under the Driver.
func (s *Sched) Snapshot() Snapshot {
	var sn Snapshot
	s.allgs.Lock()
	sn.Gs = append(sn.Gs, s.allgs.gs...)
	s.allgs.Unlock()
	for _, pp := range s.ps().allp {
		next, ring := pp.runq.Contents()
		sn.Ps = append(sn.Ps, PSnapshot{
			Status:    spec.PStatus(pp.status.Load()),
			SchedTick: pp.schedtick.Load(),
			RunNext:   next,
			Ring:      ring,
		})
	}
	s.glob.Lock()
	for _, m := range s.allm {
		ms := MSnapshot{PC: m.pc, P: int(pidOf(m.p.Load())), CurG: m.curg.Load(), Spinning: m.spinning, Inj: m.inj.Slice(),
			LockedG: m.lockedg, NextP: int(pidOf(m.nextp)) + 1}
		switch m.pc {
		case spec.MSteal:
			ms.Scan = m.scan.seen
		case spec.MRecheckRunqs:
			ms.Scan = 1<<m.rpos - 1
		}
		sn.Ms = append(sn.Ms, ms)
	}
	sn.Runq = s.glob.runq.Slice()
	sn.StopWait = s.world.stopwait
	s.glob.Unlock()
	sn.GCWaiting = s.world.gcwaiting.Load()
	sn.NPIdle = s.npidle.Load()
	sn.NMSpinning = s.nmspinning.Load()
	sn.NeedSpinning = s.needspinning.Load()
	return sn
}
