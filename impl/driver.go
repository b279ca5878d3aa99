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
	// netParks: the program's parked Gs wait on the network poller
	// (UseNetpoll).
	netParks bool
	// retaken: the P sysmon's Retake took, until its RetakeHandoff.
	retaken *P
	// yielding: the Ms whose G's ReadyHandoff has readied a waiter and
	// whose goyield is the G's next action.
	yielding map[*M]bool
	// badEvent is the first event that broke the event contract
	// (Event.Check), for the spec comparisons to fail on.
	badEvent error
}

// NewDriver builds a deterministic scheduler. cfg.Trace, if set, also
// receives every event.
func NewDriver(cfg Config) (*Driver, error) {
	d := &Driver{yielding: map[*M]bool{}}
	user := cfg.Trace
	cfg.Trace = func(e Event) {
		if err := e.Check(); err != nil && d.badEvent == nil {
			d.badEvent = err
		}
		if err := d.checkOwnP(e); err != nil && d.badEvent == nil {
			d.badEvent = err
		}
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
	s.poller.clock.Store(1) // nanotime is never 0
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

// checkOwnP checks the P of an event that reports a change of its M's own
// state (EvSpinning, EvNetpollBlock): it is the P that M holds as the
// event is emitted, -1 for none, so that a trace viewer draws it on the
// right P's track. The driver runs one step at a time, so the M's P is
// stable while it emits.
func (d *Driver) checkOwnP(e Event) error {
	if d.s == nil || e.M < 0 || int(e.M) >= len(d.s.allm) {
		return nil
	}
	if e.Kind == EvGCStopP {
		// An M names itself on a P stop only from entersyscall: it has
		// just given the P up, its G in the syscall (handoffp's stop
		// names no M).
		m := d.s.allm[e.M]
		if g := m.curg.Load(); m.p.Load() != nil || g == nil || g.Status() != Gsyscall {
			return fmt.Errorf("m%d named on the stop of p%d, but it is not an M that just entered a syscall", e.M, e.P)
		}
		return nil
	}
	if e.Kind != EvSpinning && e.Kind != EvNetpollBlock {
		return nil
	}
	if want := pidOf(d.s.allm[e.M].p.Load()); e.P != want {
		return fmt.Errorf("m%d's %v event names p%d, but the M holds p%d (-1: none)", e.M, e.Kind, e.P, want)
	}
	return nil
}

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
	if m.pc == spec.MRun || m.pc == spec.MIdle || m.pc == spec.MLockedWait || m.pc == spec.MNetpoll {
		return fmt.Errorf("driver: m%d is %v, not scheduling", i, m.pc)
	}
	d.s.schedStep(m)
	d.pollerShell()
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

// Park makes M i's G park; after UseNetpoll, on the network poller.
func (d *Driver) Park(i int) error {
	return d.onRunning(i, func(m *M) {
		if d.netParks {
			d.s.netpollWaitOn(m.curg.Load())
		}
		d.s.parkm(m, nil)
	})
}

// Ready makes M i's G ready g.
func (d *Driver) Ready(i int, g *G) error {
	m, err := d.running(i, Grunning)
	if err != nil {
		return err
	}
	if g != nil {
		d.s.netpollUnwait(g)
	}
	return d.s.ready(m, g)
}

// ReadyHandoff makes M i's G hand off to g as semrelease does: ready g
// (into runnext, with its wakep); Goyield is then the G's next action.
func (d *Driver) ReadyHandoff(i int, g *G) error {
	m, err := d.running(i, Grunning)
	if err != nil {
		return err
	}
	if d.yielding[m] {
		return fmt.Errorf("driver: m%d's G is to goyield next", i)
	}
	if g != nil {
		d.s.netpollUnwait(g)
	}
	if err := d.s.readyAs(m, g, spec.ActReadyHandoff); err != nil {
		return err
	}
	d.yielding[m] = true
	return nil
}

// yieldingM reports whether M i's G is to goyield next.
func (d *Driver) yieldingM(i int) bool {
	for m := range d.yielding {
		if int(m.id) == i {
			return true
		}
	}
	return false
}

// Goyield makes M i's G, after its ReadyHandoff, goyield.
func (d *Driver) Goyield(i int) error {
	m, err := d.running(i, Grunning)
	if err != nil {
		return err
	}
	if !d.yielding[m] {
		return fmt.Errorf("driver: m%d's G has handed off nothing to goyield after", i)
	}
	delete(d.yielding, m)
	d.s.goyieldm(m)
	return nil
}

// UseNetpoll makes the Driver play a program that uses the network poller
// (spec.Bounds.PollBlock): every G that Park parks waits on the poller
// (netpollAnyWaiters counts it, NetpollReady may ready it), and the
// blocking poller is in use from the start. With timers the program has
// timers from the start too (spec.Bounds.Timers): an M that gave its P up
// spinning looks at every P's timers in a step of its own.
func (d *Driver) UseNetpoll(timers bool) {
	d.netParks = true
	d.s.useNetpoll()
	if timers {
		d.s.useTimers()
	}
}

// TimerSleep makes M i's G sleep for ticks of the Driver's clock
// (TimerTick): it parks with a timer on its P's heap.
func (d *Driver) TimerSleep(i, ticks int) error {
	if ticks < 1 {
		return fmt.Errorf("driver: a sleep of %d ticks", ticks)
	}
	err := d.onRunning(i, func(m *M) {
		m.curg.Load().x.sleepWhen = d.s.nanotime() + int64(ticks)
		d.s.parkm(m, nil)
	})
	d.pollerShell()
	return err
}

// TimerTick plays the clock: one tick passes (TimerTick). An M asleep in
// the poller whose timeout it reaches wakes up.
func (d *Driver) TimerTick() {
	d.s.poller.clock.Add(1)
	d.s.emitAction(spec.ActTimerTick, nil, -1, nil)
	d.pollerShell()
}

// NetpollReady plays the network readying g, a G parked on the poller,
// while an M sleeps in the poller: the event breaks the sleep, and the M
// returns from netpoll with g (NetpollReady).
func (d *Driver) NetpollReady(g *G) error {
	pm := d.poller()
	if pm == nil || pm.pc != spec.MNetpoll {
		return fmt.Errorf("driver: no M asleep in the poller")
	}
	if g == nil {
		return fmt.Errorf("driver: NetpollReady of no G")
	}
	if err := d.s.NetpollReady(g); err != nil {
		return err
	}
	d.pollerShell()
	if pm.pc != spec.MNetpollRet {
		return fmt.Errorf("driver: the event did not wake m%d", pm.id)
	}
	d.s.schedStep(pm)
	d.pollerShell()
	return nil
}

// poller is the M asleep in the poller, or back from it and not yet past
// its stores (pcs MNetpoll, MNetpollRet), or nil.
func (d *Driver) poller() *M {
	for _, m := range d.s.allm {
		if m.pc == spec.MNetpoll || m.pc == spec.MNetpollRet {
			return m
		}
	}
	return nil
}

// pollerShell plays the shell's sleep in the poller (netpollWait) after
// each step: a pending netpollBreak or a due timeout ends it (pc
// MNetpollRet). A break while nobody sleeps there is dropped: the
// concurrent scheduler keeps it for the next sleeper, which then wakes at
// once for nothing, a spurious wake-up the spec leaves out.
func (d *Driver) pollerShell() {
	s := d.s
	m := d.poller()
	if m == nil || m.pc != spec.MNetpoll {
		select {
		case <-s.poller.brk:
		default:
		}
		return
	}
	woke := false
	select {
	case <-s.poller.brk:
		woke = true
	default:
		pu := s.pollUntil.Load()
		woke = pu != 0 && pu <= s.nanotime()
	}
	if woke {
		m.pollWait = false
		m.pc = spec.MNetpollRet
	}
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
// one sysmon tick but less than 10 ms (the untimed rule), up to its
// handoffp: it reports whether the P was taken, which sysmon then holds
// until RetakeHandoff.
func (d *Driver) Retake(p int) (bool, error) {
	allp := d.s.ps().allp
	if p < 0 || p >= len(allp) {
		return false, fmt.Errorf("driver: no p%d", p)
	}
	if d.retaken != nil {
		return false, fmt.Errorf("driver: sysmon holds p%d, not yet handed off", d.retaken.id)
	}
	s := d.s
	took := s.retakeTakeP(allp[p], func(empty bool) bool {
		return retakeSyscallOK(empty, s.nmspinning.Load(), s.npidle.Load(), false)
	})
	if took {
		d.retaken = allp[p]
	}
	return took, nil
}

// RetakeHandoff plays the rest of sysmon's retake of P p: its handoffp.
func (d *Driver) RetakeHandoff(p int) error {
	if d.retaken == nil || int(d.retaken.id) != p {
		return fmt.Errorf("driver: sysmon holds no p%d to hand off", p)
	}
	pp := d.retaken
	d.retaken = nil
	d.s.retakeHandoff(pp)
	return nil
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
	for _, g := range gs {
		d.s.netpollUnwait(g)
	}
	d.s.netpollAdd(gs...)
	d.s.schedStep(m)
	if d.s.poll.nready.Load() != 0 {
		return fmt.Errorf("driver: m%d did not poll", i)
	}
	return nil
}

// Apply takes the spec action a on the Driver: what a G, a syscall's end,
// sysmon, netpoll or the clock does becomes the call of that name
// (TimerSleep, NetpollReady, TimerTick among them), and any other action
// is a scheduler step of M a.M, whose choice is the impl's (StartLockedM
// and StopLockedM, and the poller's and timers' steps: CheckTimers,
// StealTimers, CheckTimersNoP, NetpollBlock, NetpollBreak, NetpollWake,
// NetpollPidleget, NetpollNoP). After it, the Driver plays the shell's
// sleep in the poller (pollerShell). slots
// maps the spec's G numbers to the impl's Gs. It returns the G a NewProc
// created, for the caller to enter in slots.
func (d *Driver) Apply(a spec.Action, slots *[spec.MaxGs + 1]*G) (*G, error) {
	g, err := d.apply(a, slots)
	d.pollerShell()
	return g, err
}

func (d *Driver) apply(a spec.Action, slots *[spec.MaxGs + 1]*G) (*G, error) {
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
	case spec.ActReadyHandoff:
		return nil, d.ReadyHandoff(m, slots[a.G])
	case spec.ActGoyield:
		return nil, d.Goyield(m)
	case spec.ActEnterSyscall:
		return nil, d.EnterSyscall(m)
	case spec.ActEnterSyscallBlock:
		return nil, d.EnterSyscallBlock(m)
	case spec.ActLockOSThread:
		return nil, d.LockOSThread(m)
	case spec.ActUnlockOSThread:
		return nil, d.UnlockOSThread(m)
	case spec.ActExitSyscallFast, spec.ActExitSyscallOldP, spec.ActExitSyscallIdleP, spec.ActExitSyscallNoP:
		return nil, d.ExitSyscall(m)
	case spec.ActPreempt:
		return nil, d.Preempt(int(a.P))
	case spec.ActRetake:
		took, err := d.Retake(int(a.P))
		if err == nil && !took {
			err = fmt.Errorf("the impl's retake does not take p%d", a.P)
		}
		return nil, err
	case spec.ActRetakeHandoff:
		return nil, d.RetakeHandoff(int(a.P))
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
	case spec.ActProcResizeGrow:
		return nil, d.ProcResizeGrow(int(a.P))
	case spec.ActStartTheWorldWakep:
		return nil, d.StartTheWorldWakep()
	case spec.ActTimerSleep:
		return nil, d.TimerSleep(m, int(a.P))
	case spec.ActTimerTick:
		d.TimerTick()
		return nil, nil
	case spec.ActNetpollReady:
		return nil, d.NetpollReady(slots[a.G])
	}
	return nil, d.Step(m)
}

// StopTheWorld plays the stopper's first step, stopTheWorldWithSema's
// sched.lock section: gcwaiting set, the idle Ps and the Ps whose G is in
// a syscall stopped. The other Ps stop when their Ms step (gcstopm at
// findRunnable's top, in stealWork or in the drop section); a running G
// must first be preempted (Preempt), or leave its P otherwise. It fails if
// a stop is already under way.
//
// Following go1.4 (spec.Go14), a stop may also start once the world is
// stopped and before its restart: the first stopper released worldsema as
// soon as it had decided to restart, and this one takes it
// (golang/go#10618). Its lock section then finds every P stopped already
// and counts them all in stopwait, which no P will bring down.
func (d *Driver) StopTheWorld() error {
	if d.s.world.gcwaiting.Load() {
		if d.s.cfg.Go != spec.Go14 || d.s.stopLeft() != 0 {
			return fmt.Errorf("driver: the world is already stopping")
		}
		d.s.stopTheWorldSection() // worldsema passes from the first stopper to this one
		return nil
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
	if left := s.stopLeft(); left != 0 {
		return fmt.Errorf("driver: %d Ps not stopped yet", left)
	}
	if g := s.world.grown.Load(); g != nil && procs != len(*g) {
		return fmt.Errorf("driver: ProcResizeGrow grew allp to %d Ps, the restart to %d", len(*g), procs)
	}
	s.startTheWorldSection(int32(procs))
	return nil
}

// ProcResizeGrow plays go1.10dev's first half of a procresize that grows
// gomaxprocs to procs, one more (spec.ActProcResizeGrow): allp is one slot
// longer, and that slot stays nil until StartTheWorld(procs) makes the P.
// An M rechecking the live allp meanwhile dereferences it
// (golang/go#23098). It fails in any other release, or unless every P has
// stopped.
func (d *Driver) ProcResizeGrow(procs int) error {
	s := d.s
	if s.cfg.Go != spec.Go110dev {
		return fmt.Errorf("driver: ProcResizeGrow is go1.10dev's, not %v's", s.cfg.Go)
	}
	ps := s.ps()
	switch {
	case !s.world.gcwaiting.Load() || s.stopLeft() != 0:
		return fmt.Errorf("driver: ProcResizeGrow with the world not stopped")
	case procs != int(ps.n)+1 || s.world.grown.Load() != nil:
		return fmt.Errorf("driver: ProcResizeGrow to %d Ps from %d", procs, ps.n)
	}
	grown := append(append([]*P(nil), ps.allp...), nil)
	s.world.grown.Store(&grown)
	if s.trace != nil {
		s.trace(Event{Kind: EvAction, Action: spec.ActProcResizeGrow, M: -1, P: -1, N: int32(procs)})
	}
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
func (d *Driver) Inject(g *G) error {
	if g != nil {
		d.s.netpollUnwait(g)
	}
	return d.s.Ready(g)
}

// Snapshot is the scheduler's state in the spec's terms.
type Snapshot struct {
	Gs           []*G // every G ever created, in creation order
	Ps           []PSnapshot
	Ms           []MSnapshot
	Runq         []*G // global queue, head first
	NPIdle       int32
	Pidle        []int // sched.pidle's Ps, the top (the next pidleget's) last
	NMSpinning   int32
	NeedSpinning uint32
	GCWaiting    bool  // sched.gcwaiting
	StopWait     int32 // sched.stopwait
	// The blocking poller and timers: sched.lastpoll and sched.pollUntil
	// (0: none), the clock they are read against (nanotime), and every
	// live timer.
	LastPoll, PollUntil, Now int64
	Timers                   []TimerSnapshot
	// RetakeP is the number plus one of the P sysmon's retake has taken
	// and not yet handed off (0: none, as spec.State.RetakeP): unwired,
	// _Pidle in its status, on no idle list.
	RetakeP int
}

// TimerSnapshot is a sleeping G's timer on P P's heap, due at When.
type TimerSnapshot struct {
	G    *G
	P    int
	When int64
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
	Victim   int  // pc MStealNext: the number plus one of the P whose ring runqgrab read empty (as spec.MState.Victim)
	OldP     int  // m.oldp's number plus one while the M's G is in a syscall without its P (0 otherwise; as spec.MState.OldP)
	SnapPs   int  // in the no-P recheck (pc MDropSpin to MRecheckP): how many Ps its allp snapshot has
	Tainted  bool // cloned from the thread a locked G exited on (go1.11; spec.MState.Tainted)
	// findRunnable's locals of the poller and timers: wasSpinning, the
	// earliest timer seen (pollUntil, 0: none), checkTimers done at this
	// top (m.checked), and the inheritTime of the G a spinning M holds
	// (m.inherit). They mean something only at some pcs; the comparison
	// with the spec reads them where the spec does.
	WasSpinning bool
	PollUntil   int64
	Checked     bool
	Inherit     bool
}

// Snapshot reads the whole state. It is exact only when nothing runs
// concurrently, as under the Driver.
func (s *Sched) Snapshot() Snapshot {
	sn := Snapshot{RetakeP: int(s.retakeP.Load())}
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
			LockedG: m.lockedg, NextP: int(pidOf(m.nextp)) + 1, Tainted: m.tainted,
			WasSpinning: m.wasSpinning, PollUntil: m.pollUntil, Checked: m.checked, Inherit: m.inherit}
		if g := ms.CurG; m.pc == spec.MRun && ms.P < 0 && g != nil && g.Status()&^gscan == Gsyscall && m.oldp != nil {
			ms.OldP = int(m.oldp.id) + 1
		}
		if m.lockCheck != nil {
			ms.Inj = []*G{m.lockCheck} // as the spec keeps it, in Inj
		}
		switch {
		case s.cfg.Go == spec.Go110dev: // the live allp, as the walk read it
			ms.SnapPs = len(m.walk)
		case m.pc.Rechecking() && m.snap != nil:
			ms.SnapPs = len(m.snap.allp)
		}
		switch m.pc {
		case spec.MSteal:
			ms.Scan = m.scan.seen
		case spec.MStealNext:
			ms.Scan, ms.Victim = m.scan.seen, int(pidOf(m.victim))+1
		case spec.MRecheckRunqs:
			ms.Scan = 1<<m.rpos - 1
		}
		sn.Ms = append(sn.Ms, ms)
	}
	sn.Runq = s.glob.runq.Slice()
	for _, pp := range s.pidle {
		sn.Pidle = append(sn.Pidle, int(pp.id))
	}
	sn.StopWait = s.world.stopwait
	s.glob.Unlock()
	sn.GCWaiting = s.world.gcwaiting.Load()
	sn.NPIdle = s.npidle.Load()
	sn.NMSpinning = s.nmspinning.Load()
	sn.NeedSpinning = s.needspinning.Load()
	sn.LastPoll, sn.PollUntil, sn.Now = s.lastpoll.Load(), s.pollUntil.Load(), s.nanotime()
	for _, pp := range s.ps().allp {
		pp.timers.mu.Lock()
		for _, t := range pp.timers.heap {
			if t.g.x.sleepSeq.Load() == t.seq {
				sn.Timers = append(sn.Timers, TimerSnapshot{G: t.g, P: int(pp.id), When: t.when})
			}
		}
		pp.timers.mu.Unlock()
	}
	return sn
}
