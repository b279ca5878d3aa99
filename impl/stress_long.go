package impl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"
)

// The stress as a function, run by TestStress (under -race and goleak) and
// by the long tier of 'gmpcheck verify -long' (without them): the workload
// (waitList.mixedStep's random mix of spawn, park, ready, Gosched, syscall
// and exit), its variants and its checks at quiescence (every lifecycle
// finished exactly once, every G dead and on a free list, every P idle and
// empty, nmspinning and the global queue at zero, spawned == exited).

// StressConfig sizes a Stress run.
type StressConfig struct {
	// Lifecycles is the number of G lifecycles of the carrier variant over
	// all Procs (default 10^6, TestStress's with GMPCHECK_LONG=1). The local variant runs
	// as many again at each Procs but 1, the hand-off variant a tenth.
	Lifecycles int
	// Procs lists the GOMAXPROCS values (default 1, 2, 4, 8).
	Procs []int
	// Seed seeds the roots' random mixes (0: from the clock).
	Seed uint64
	// Log, if set, receives one line per run.
	Log io.Writer
}

// StressRun is one variant at one Procs.
type StressRun struct {
	Variant    string // carrier, local or handoff
	Procs      int
	Lifecycles int64
	Elapsed    time.Duration
	Stats      Stats
	Rescued    int64 // parked Gs readied from outside after a deadlock
	Complete   bool  // every lifecycle ran (false: cut short by ctx)
}

func (r StressRun) String() string {
	s := fmt.Sprintf("%s/procs=%d: %d lifecycles in %v: steals=%d preempts=%d retakes=%d handoffs=%d Ms=%d outside-readies=%d",
		r.Variant, r.Procs, r.Lifecycles, r.Elapsed.Round(time.Millisecond), r.Stats.Steals, r.Stats.Preempts, r.Stats.Retakes,
		r.Stats.Handoffs, r.Stats.Ms, r.Rescued)
	if !r.Complete {
		s += " (cut short)"
	}
	return s
}

// ErrStressCut is returned (wrapped) when ctx ended a Stress run before
// every lifecycle ran: the run is inconclusive, not a pass.
var ErrStressCut = errors.New("stress cut short")

// Stress runs TestStress's workload and checks. It returns the runs done
// and the first failure (a lifecycle finished twice or never, a scheduler
// error, a conservation failure at quiescence, a local mix that never
// stole), or an error wrapping ErrStressCut when ctx ended it first. When
// ctx ends, no new G is spawned and the Gs alive finish; the run is then
// checked at quiescence as far as it went.
func Stress(ctx context.Context, cfg StressConfig) ([]StressRun, error) {
	if cfg.Lifecycles == 0 {
		cfg.Lifecycles = 1_000_000
	}
	if cfg.Lifecycles < 0 {
		return nil, fmt.Errorf("gmpcheck: Stress: %d lifecycles", cfg.Lifecycles)
	}
	if len(cfg.Procs) == 0 {
		cfg.Procs = []int{1, 2, 4, 8}
	}
	for _, p := range cfg.Procs {
		if p < 1 {
			return nil, fmt.Errorf("gmpcheck: Stress: Procs %d", p)
		}
	}
	if cfg.Seed == 0 {
		cfg.Seed = uint64(time.Now().UnixNano())
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	seeds := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5bd1e995))
	var runs []StressRun
	for _, variant := range []string{"carrier", "local", "handoff"} {
		for _, procs := range cfg.Procs {
			if variant == "local" && procs == 1 {
				continue // nobody to steal from
			}
			if ctx.Err() != nil {
				return runs, fmt.Errorf("%w: %v", ErrStressCut, ctx.Err())
			}
			capacity := 8
			if variant == "local" {
				capacity = DefaultQueueCapacity
			}
			n := cfg.Lifecycles / len(cfg.Procs)
			if variant == "handoff" {
				n /= 10
			}
			r, err := untilStolen(cfg.Log, func() (StressRun, error) {
				return stressOne(ctx, procs, capacity, variant, int64(n), seeds)
			})
			runs = append(runs, r)
			fmt.Fprintln(cfg.Log, r)
			if err != nil {
				return runs, fmt.Errorf("%s/procs=%d: %w", variant, procs, err)
			}
			if !r.Complete {
				return runs, fmt.Errorf("%w after %d of %d lifecycles of %s/procs=%d", ErrStressCut, r.Lifecycles, n, variant, procs)
			}
		}
	}
	return runs, nil
}

// errNeverStole is a local run's failure when no steal happened.
var errNeverStole = fmt.Errorf("the local mix never stole in %d attempts: the steal path went unexercised", neverStoleAttempts)

// neverStoleAttempts bounds the local runs made when none steals. A small
// run on a loaded host misses the steal about one time in fifty (2 of 100
// under -race with GOMAXPROCS=1), so four attempts all missing by chance is
// about one in six million.
const neverStoleAttempts = 4

// untilStolen makes run's attempts while it fails with errNeverStole, at
// most neverStoleAttempts of them. Whether a steal happens depends on the
// host's scheduling: on a loaded machine a small local run may end before
// the idle P's M ever runs. Such a run has not exercised the steal path, so
// it is made again (with the next seed); a steal path that is broken never
// steals and fails every attempt.
func untilStolen(log io.Writer, run func() (StressRun, error)) (StressRun, error) {
	r, err := run()
	for attempt := 1; errors.Is(err, errNeverStole) && attempt < neverStoleAttempts; attempt++ {
		fmt.Fprintf(log, "%v: never stole, attempt %d of %d\n", r, attempt, neverStoleAttempts)
		r, err = run()
	}
	return r, err
}

func stressOne(ctx context.Context, procs, capacity int, variant string, n int64, seeds *rand.Rand) (StressRun, error) {
	run := StressRun{Variant: variant, Procs: procs}
	s, err := New(Config{Procs: procs, QueueCapacity: capacity, HandoffShell: variant == "handoff"})
	if err != nil {
		return run, err
	}
	defer s.Shutdown()
	w := &longStress{s: s, total: n, local: variant == "local"}
	w.done = make([]atomic.Int32, n)
	stop := context.AfterFunc(ctx, func() { w.stop.Store(true) })
	defer stop()
	start := time.Now()
	err = w.run(seeds)
	run.Elapsed = time.Since(start)
	run.Rescued = w.rescued.Load()
	created := w.created.Load()
	if created > n {
		created = n
	}
	run.Lifecycles = created
	run.Complete = created == n && !w.stop.Load()
	if err != nil {
		return run, err
	}
	for i := range created {
		if c := w.done[i].Load(); c != 1 {
			return run, fmt.Errorf("lifecycle %d finished %d times", i, c)
		}
	}
	if err := s.checkQuiescent(); err != nil {
		return run, err
	}
	run.Stats = s.Stats()
	if w.local && run.Complete && run.Stats.Steals == 0 {
		return run, errNeverStole
	}
	return run, nil
}

// longStress is the stress workload (TestStress runs it through Stress):
// every G does a random mix of spawn, park, ready, gosched, syscall and
// exit. With the stop flag set, no G is spawned and each G ends at its next
// spawn or exit.
type longStress struct {
	s       *Sched
	total   int64
	created atomic.Int64
	live    atomic.Int64
	done    []atomic.Int32
	rescued atomic.Int64
	stop    atomic.Bool
	local   bool

	waitList
}

func (w *longStress) spawn(parent Task, seed uint64) bool {
	if w.stop.Load() {
		return false
	}
	if parent != nil && w.live.Load() > int64(64*w.s.Procs()) {
		return w.created.Load() < w.total
	}
	w.live.Add(1)
	idx := w.created.Add(1) - 1
	if idx >= w.total {
		w.live.Add(-1)
		return false
	}
	goFrom(w.s, parent, func(tk Task) { w.body(tk, idx, seed) })
	return true
}

// goFrom starts fn as a new G: from parent's G (newproc on its P) or, for
// a root, from outside the scheduler. A workload cannot go on without its
// G, so an error is a panic.
func goFrom(s *Sched, parent Task, fn func(Task)) {
	var err error
	if parent == nil {
		err = s.Go(fn)
	} else {
		err = parent.Go(fn)
	}
	if err != nil {
		panic(err)
	}
}

func (w *longStress) body(tk Task, idx int64, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(idx)))
	for step := 0; ; step++ {
		switch w.mixedStep(tk, r, step, "stress", w.local) {
		case opSpawn:
			if !w.spawn(tk, r.Uint64()) && (step > 8 || w.stop.Load()) {
				w.finish(tk, idx)
				return
			}
		case opExit:
			if step > 2 || w.stop.Load() {
				w.finish(tk, idx)
				return
			}
		}
	}
}

func (w *longStress) finish(tk Task, idx int64) {
	w.readyOne(tk)
	w.done[idx].Add(1)
	w.live.Add(-1)
}

func (w *longStress) run(seeds *rand.Rand) error {
	for range 4 * w.s.Procs() {
		w.spawn(nil, seeds.Uint64())
	}
	for {
		err := w.s.Wait()
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrDeadlock) {
			return err
		}
		n, rerr := w.readyAll(w.s)
		if rerr != nil {
			return rerr
		}
		if n == 0 {
			return fmt.Errorf("deadlock with no waiters: %w", err)
		}
		w.rescued.Add(int64(n))
	}
}

// checkQuiescent waits until every M is idle, then checks conservation: no
// G left anywhere but the free lists, every P idle with an empty queue,
// counters back to zero.
func (s *Sched) checkQuiescent() error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.glob.Lock()
		idle := s.allMsIdleLocked()
		s.glob.Unlock()
		if idle {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("stress: Ms not idle after 10s: %s", s.SchedTrace())
		}
		runtime.Gosched()
	}
	sn := s.Snapshot()
	if sn.NPIdle != int32(s.Procs()) || sn.NMSpinning != 0 || len(sn.Runq) != 0 {
		return fmt.Errorf("not quiescent: npidle=%d nmspinning=%d runq=%d", sn.NPIdle, sn.NMSpinning, len(sn.Runq))
	}
	free := s.gfree.q.Len()
	for i, p := range sn.Ps {
		if p.Status != 0 || p.RunNext != nil || len(p.Ring) != 0 {
			return fmt.Errorf("p%d not idle and empty: %+v", i, p)
		}
		free += s.ps().allp[i].gFree.Len()
	}
	for _, g := range sn.Gs {
		if g.Status() != Gdead {
			return fmt.Errorf("%v is %v at quiescence", g, g.Status())
		}
	}
	if free != len(sn.Gs) {
		return fmt.Errorf("free lists hold %d Gs, %d exist", free, len(sn.Gs))
	}
	st := s.Stats()
	if st.Spawned != st.Exited || s.Live() != 0 {
		return fmt.Errorf("spawned %d exited %d live %d", st.Spawned, st.Exited, s.Live())
	}
	return nil
}
