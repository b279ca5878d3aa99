package impl

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Config configures a Sched. The zero value of every field means the
// runtime's default.
type Config struct {
	// Procs is GOMAXPROCS: the number of Ps. Default runtime.GOMAXPROCS(0).
	Procs int
	// QueueCapacity is the capacity of each P's local ring, a power of two
	// in [2, 256]. Default 256, the runtime's.
	QueueCapacity int
	// PinThreads wires each M goroutine to its own OS thread
	// (runtime.LockOSThread), so that an M is an OS thread as in the
	// runtime (costs a thread switch per hand-off). It is not the
	// scheduler's own LockOSThread (G.LockOSThread), which wires a G to
	// its M whatever the M runs on.
	PinThreads bool
	// HandoffShell runs each M as one goroutine that hands control to a
	// goroutine per G and back (two goroutine switches per G run), instead
	// of the default carrier shell, where a G that never blocks runs as a
	// plain call on its M's goroutine. PinThreads implies it. It exists
	// to compare the scheduling policies with GM on equal terms.
	HandoffShell bool
	// MaxMs bounds the number of Ms (the runtime's maxmcount, 10000).
	MaxMs int
	// SchedTickPeriod is the period of findRunnable's global-queue fairness
	// check, schedtick%61 in the runtime. Default 61; the deterministic
	// driver sets it to the spec's (small) SchedTick.
	SchedTickPeriod int
	// ForcePreempt is sysmon's time slice (forcePreemptNS, 10 ms).
	ForcePreempt time.Duration
	// NoSysmon disables the sysmon goroutine: no time-slice preemption and
	// no retake of Ps blocked in syscalls.
	NoSysmon bool
	// Trace, if set, receives every scheduler event, synchronously, from the
	// goroutine that caused it. It must be safe for concurrent use. When nil
	// the events are not built at all.
	Trace func(Event)
	// SchedTrace, if positive, makes sysmon write a schedtrace line (the
	// runtime's GODEBUG=schedtrace format) to SchedTraceOut at this interval.
	SchedTrace    time.Duration
	SchedTraceOut io.Writer
	// Seed seeds the per-M random steal order. Zero picks a fixed seed.
	Seed uint64
	// Go selects the runtime release whose scheduler to follow: spec.Go126
	// (the zero value), spec.Go122 (no wakep at the end of injectglist
	// with a P), spec.Go121 (nor in goschedImpl, and no global recheck
	// without a P), spec.Go119 (no needspinning either) or spec.Go115
	// (with timers: wakeNetPoller wakes nobody when nobody polls, and no
	// checkTimersNoP; golang/go#38860); see docs/versions.md. Or one of
	// HistoryReleases, each one change of Go's history, which the bug
	// catalog replays its counterexamples on (docs/bugs.md).
	Go spec.GoVersion
	// bug is a seeded scheduler bug (SetBug), for the checks' self-tests.
	// It exists only under -tags gmpcheck_hooks: the default build's
	// scheduler tests it behind the constant hooksEnabled, so the real
	// scheduler carries no trace of it.
	bug spec.Bug
	// implBug is a seeded bug of a mechanism spec/ does not model
	// (SetImplBug), under -tags gmpcheck_hooks only, like bug.
	implBug ImplBug

	deterministic bool // set by NewDriver: no goroutines, no sleeping
}

// Errors returned by the scheduler's API.
var (
	// ErrDeadlock is returned by Wait when every live G is parked and no M
	// is left to ready them: the runtime's checkdead.
	//lint:ignore ST1005 the runtime's checkdead message, verbatim
	ErrDeadlock = errors.New("all goroutines are asleep - deadlock!")
	// ErrShutdown is returned by Go and Ready after Shutdown.
	ErrShutdown = errors.New("gmpcheck: scheduler is shut down")
)

// Sched is the G/M/P scheduler: GOMAXPROCS Ps with local run queues, Ms as
// worker goroutines, Gs as goroutines that run only while their M hands them
// control.
//
// The scheduling decisions (what to run next, whom to steal from, whether to
// spin, whether to retake) are made by the functions of schedule.go,
// steal.go, proc.go and syscall.go on this state; blocking and waking
// goroutines is confined to shell.go. The deterministic Driver calls the
// decision functions one step at a time without any goroutine.
type Sched struct {
	cfg     Config
	glob    *GlobalRunq             // sched.runq; glob.Lock is sched.lock
	procs   atomic.Pointer[procSet] // allp, gomaxprocs, idlepMask, the steal order (procs.go)
	period  uint32                  // schedtick period (61)
	half    int32                   // len(p.runq)/2: globrunqgetbatch's n
	bug     spec.Bug
	det     bool
	handoff bool // hand-off shell (PinThreads or HandoffShell)
	trace   func(Event)

	// pidle is sched.pidle, the idle Ps as a LIFO list: the top, the
	// next pidleget's, last. sched.lock. npidle is its length, kept apart
	// because findRunnable and wakep read it without the lock.
	pidle      []*P
	npidle     atomic.Int32
	nmspinning atomic.Int32
	// needspinning is sched.needspinning: set under sched.lock by
	// pidlegetSpinning, cleared by becomeSpinning and handoffp. Never set
	// in the go1.19 variant.
	needspinning atomic.Uint32

	// Under sched.lock.
	allm   []*M
	nmidle int32
	// nmidlelocked counts the locked Ms parked in stoplockedm, nmdead the
	// slots of Ms that ended with their locked G (mexit); checkdead counts
	// both as idle, and the next new M takes a dead slot (newm).
	nmidlelocked int32
	nmdead       int32
	// exiting is the M whose mexit is handing its P off: a newm there
	// takes its slot.
	exiting  *M
	mcount   atomic.Int32 // len(allm), readable without the lock
	sysmonOn atomic.Bool  // sysmon is in deep sleep waiting for sysmonWake

	poll netpoller // the network poller's stand-in (netpoll.go)

	world worldState // stop-the-world (stw.go)
	// lastpoll is sched.lastpoll: 0 while an M sleeps in the poller
	// (netpollblock.go), else when the last sleep ended. pollUntil is
	// sched.pollUntil: when that M wakes up (0: not asleep).
	lastpoll  atomic.Int64
	pollUntil atomic.Int64
	poller    pollerState

	gfree struct { // sched.gFree
		sync.Mutex
		q GQueue
	}
	allgs struct {
		sync.Mutex
		gs []*G
	}
	goidgen atomic.Uint64

	nlive atomic.Int64 // Gs created and not yet exited

	waitMu     sync.Mutex
	waitCond   sync.Cond
	deadErr    error        // set by checkdead, cleared when an M starts again
	dead       atomic.Bool  // deadErr != nil, readable under sched.lock alone
	sysmonHeld atomic.Int32 // Ps sysmon has taken and not yet handed off
	retakeP    atomic.Int32 // the id+1 of the P sysmon's retake holds before its handoffp (0: none), for Snapshot

	stopping    atomic.Bool
	shutOnce    sync.Once
	wg          sync.WaitGroup // every goroutine the scheduler started
	mwg         sync.WaitGroup // the M goroutines (hand-off shell)
	carriers    chan *M        // idle carrier goroutines take an M here
	carrierStop chan struct{}
	cmu         sync.Mutex // carried, under it
	ccond       sync.Cond
	carried     int // Ms that some goroutine is carrying (carrier shell)
	sysmonWake  chan struct{}
	sysmonStop  chan struct{}
	start       time.Time
	counters    Counters
}

// Counters are cumulative scheduler statistics, read with Stats.
type Counters struct {
	Spawned, Exited, Steals, Preempts, Retakes, Handoffs atomic.Int64
	// Netpolled counts the Gs findRunnable's netpoll returned; Injected
	// those of them injectglist queued with the M's P.
	Netpolled, Injected atomic.Int64
}

// Stats is a snapshot of Counters.
type Stats struct {
	Spawned, Exited, Steals, Preempts, Retakes, Handoffs int64
	Netpolled, Injected                                  int64
	Ms                                                   int
}

// New builds a scheduler with its Ps and (unless disabled) its sysmon. No M
// exists until the first G is created.
func New(cfg Config) (*Sched, error) {
	if cfg.Procs == 0 {
		cfg.Procs = runtime.GOMAXPROCS(0)
	}
	if !validProcs(cfg.Procs) {
		return nil, fmt.Errorf("impl: Procs %d: want 1..%d", cfg.Procs, maxProcs)
	}
	if cfg.QueueCapacity == 0 {
		cfg.QueueCapacity = DefaultQueueCapacity
	}
	if err := spec.ValidQueueCap(cfg.QueueCapacity); err != nil {
		return nil, fmt.Errorf("impl: %w", err)
	}
	if cfg.MaxMs == 0 {
		cfg.MaxMs = 10000
	}
	if cfg.MaxMs < cfg.Procs {
		return nil, fmt.Errorf("impl: MaxMs %d < Procs %d", cfg.MaxMs, cfg.Procs)
	}
	if cfg.SchedTickPeriod == 0 {
		cfg.SchedTickPeriod = spec.RuntimeSchedTick
	}
	if cfg.SchedTickPeriod < 1 {
		return nil, fmt.Errorf("impl: SchedTickPeriod %d: want >= 1", cfg.SchedTickPeriod)
	}
	if cfg.ForcePreempt == 0 {
		cfg.ForcePreempt = forcePreemptNS
	}
	switch cfg.Go {
	case spec.Go126, spec.Go119, spec.Go121, spec.Go122, spec.Go115, spec.Go15dev, spec.Go117dev, spec.Go111, spec.Go14, spec.Go110dev:
	default:
		return nil, fmt.Errorf("impl: unknown Go version %v", cfg.Go)
	}
	if cfg.SchedTrace > 0 && cfg.SchedTraceOut == nil {
		return nil, fmt.Errorf("impl: SchedTrace set without SchedTraceOut")
	}
	s := &Sched{
		cfg:         cfg,
		glob:        NewGlobalRunq(),
		period:      uint32(cfg.SchedTickPeriod),
		half:        int32(cfg.QueueCapacity / 2),
		bug:         cfg.bug,
		det:         cfg.deterministic,
		handoff:     cfg.PinThreads || cfg.HandoffShell,
		trace:       normalizedTrace(cfg.Trace),
		sysmonWake:  make(chan struct{}, 1),
		sysmonStop:  make(chan struct{}),
		carriers:    make(chan *M),
		carrierStop: make(chan struct{}),
		start:       time.Now(),
	}
	s.world.stopnote = make(chan struct{}, 1)
	s.poller.brk = make(chan struct{}, 1)
	s.poller.stop = make(chan struct{})
	s.lastpoll.Store(1)
	s.waitCond.L = &s.waitMu
	s.ccond.L = &s.cmu
	allp := make([]*P, cfg.Procs)
	for i := range allp {
		q, err := NewRunq(cfg.QueueCapacity, s.glob)
		if err != nil {
			return nil, err
		}
		pp := &P{id: int32(i), runq: q}
		if !s.det {
			q.SetStealBackoff(s.stealBackoff(pp))
		}
		allp[i] = pp
	}
	s.procs.Store(newProcSet(allp))
	// Every P starts idle. p0 is on top, so that the outside Go of the
	// first G takes it, and the highest P under it: the state schedinit's
	// procresize leaves, p0 acquired and the others put from p1 up
	// (spec's Init).
	for _, pp := range allp[1:] {
		s.pidleputUnchecked(pp)
	}
	s.pidleputUnchecked(allp[0])
	if !s.det && !cfg.NoSysmon {
		s.wg.Add(1)
		go s.sysmon()
	}
	return s, nil
}

// Procs is GOMAXPROCS.
func (s *Sched) Procs() int { return int(s.ps().n) }

// Go is newproc from outside the scheduler (no current P): the new G joins
// the global queue and an idle P, if any, gets an M to run it, as
// injectglist does for Gs readied without a P.
func (s *Sched) Go(fn func(Task)) error {
	if fn == nil {
		return errors.New("gmpcheck: Go of nil func")
	}
	if s.stopping.Load() {
		return ErrShutdown
	}
	g := s.newproc1(nil, fn)
	s.injectglist(g)
	return nil
}

// Ready makes a parked G runnable from outside the scheduler (no P): the
// global queue plus an M for an idle P (injectglist). It fails unless g is
// waiting.
func (s *Sched) Ready(t Task) error {
	g, ok := t.(*G)
	if !ok || g == nil || g.x.s != s {
		return fmt.Errorf("gmpcheck: Ready of a goroutine not created by this scheduler")
	}
	if s.stopping.Load() {
		return ErrShutdown
	}
	if !g.casStatus(Gwaiting, Grunnable) {
		return readyErr(g)
	}
	s.emitStatus(g, Gwaiting, Grunnable)
	s.injectglist(g)
	return nil
}

func readyErr(g *G) error {
	return fmt.Errorf("bad g->status in ready: %v is %v, not waiting", g, g.Status())
}

// Wait blocks until every G has exited (nil), or until checkdead finds every
// live G parked with no M left to ready them (ErrDeadlock, or a "scheduler
// stuck" error if runnable Gs were left with every M idle, which is a
// scheduler bug). A Ready from outside can still revive a deadlocked
// scheduler; Wait may then be called again.
func (s *Sched) Wait() error {
	s.waitMu.Lock()
	defer s.waitMu.Unlock()
	for {
		if s.nlive.Load() == 0 {
			return nil
		}
		if s.deadErr != nil {
			return s.deadErr
		}
		if s.stopping.Load() {
			return ErrShutdown
		}
		s.waitCond.Wait()
	}
}

func (s *Sched) broadcastWait() {
	s.waitMu.Lock()
	s.waitCond.Broadcast()
	s.waitMu.Unlock()
}

// Live is the number of Gs created and not yet exited.
func (s *Sched) Live() int64 { return s.nlive.Load() }

// Stats returns the cumulative counters.
func (s *Sched) Stats() Stats {
	return Stats{
		Spawned: s.counters.Spawned.Load(), Exited: s.counters.Exited.Load(),
		Steals: s.counters.Steals.Load(), Preempts: s.counters.Preempts.Load(),
		Retakes: s.counters.Retakes.Load(), Handoffs: s.counters.Handoffs.Load(),
		Netpolled: s.counters.Netpolled.Load(), Injected: s.counters.Injected.Load(),
		Ms: int(s.mcount.Load()),
	}
}

// Shutdown stops the scheduler and every goroutine it started. Running Gs
// are not interrupted: Shutdown waits until each reaches a scheduling point
// (or finishes its syscall). Gs still parked or runnable are then ended with
// runtime.Goexit, so their deferred calls run. Go and Ready fail afterwards.
// Shutdown is idempotent.
func (s *Sched) Shutdown() {
	s.shutOnce.Do(func() {
		s.stopping.Store(true)
		close(s.poller.stop)
		s.broadcastWait()
		if !s.det && !s.cfg.NoSysmon {
			close(s.sysmonStop)
		}
		s.glob.Lock()
		for _, m := range s.allm {
			if m.idle {
				m.idle = false
				m.kill = true
				s.nmidle--
				s.wakeM(m)
			}
			if m.lockedWait {
				m.lockedWait = false
				m.kill = true
				s.nmidlelocked--
				s.wakeM(m)
			}
		}
		s.glob.Unlock()
		// Ms exit at their next scheduling step; once they are gone no G
		// can be resumed, so the remaining G goroutines can be ended.
		s.mwg.Wait()
		close(s.carrierStop)
		s.cmu.Lock()
		for s.carried > 0 {
			s.ccond.Wait()
		}
		s.cmu.Unlock()
		s.allgs.Lock()
		gs := s.allgs.gs
		s.allgs.gs = nil
		s.allgs.Unlock()
		for _, g := range gs {
			if g.x.started || g.x.hasStack {
				g.x.kill = true
				g.x.wake <- struct{}{}
			}
		}
		s.wg.Wait()
	})
}
