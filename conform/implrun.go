package conform

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// ImplRun configures one recorded concurrent run of impl.Sched.
type ImplRun struct {
	Procs int      // Ps: 1..spec.MaxPs
	Seed  uint64   // the workload's choices and the steal order
	Bug   spec.Bug // a seeded bug in the impl (the checker keeps the correct spec)
	Gs    int      // goroutines the workload starts in all (default 40)
	// Cap and Tick are the ring capacity and the global-queue fairness
	// period, the same in the impl and the spec (defaults 4 and 7: small, so
	// that spills and the 1-in-Tick check happen often).
	Cap, Tick int
	// Limit bounds the run's wall time (default 60 s).
	Limit time.Duration
}

// Bounds is the spec model a run is checked against.
func (r ImplRun) Bounds() spec.Bounds {
	r.defaults()
	return spec.Bounds{Ps: r.Procs, Cap: r.Cap, SchedTick: r.Tick, Syscalls: true, Go: spec.Go126,
		SyscallBlock: true, LockOSThread: true, Goyield: true}
}

func (r *ImplRun) defaults() {
	if r.Gs == 0 {
		r.Gs = 40
	}
	if r.Cap == 0 {
		r.Cap = 4
	}
	if r.Tick == 0 {
		r.Tick = 7
	}
	if r.Limit == 0 {
		r.Limit = 60 * time.Second
	}
}

// Check records one run and checks it against the spec.
func (r ImplRun) Check(ctx context.Context, maxCandidates int) (ImplResult, error) {
	evs, q, err := r.Record(ctx)
	if err != nil {
		return ImplResult{}, err
	}
	opt := r.Options(q)
	opt.MaxCandidates = maxCandidates
	return CheckImpl(ctx, evs, opt), nil
}

// Options are the checker's options for a run of r: its model, every
// named filter, and whether the run ended quiescent.
func (r ImplRun) Options(quiescent bool) ImplOptions {
	opt := ImplOptions{Bounds: r.Bounds(), Quiescent: quiescent, LongSyscallRetake: true,
		RunnextKick: true, StaleHandoff: true, StealRetry: true, RunqputSpill: true}
	// A correct run's frontier reached 11,655 candidates at Procs 4 and
	// 17,340 at Procs 8 (the renaming of Ms at startm keeps apart
	// candidates that differ in which M is about to move): more Ps race
	// in more orders at once.
	opt.MaxCandidates = 1 << 16
	if r.Procs > 4 {
		opt.MaxCandidates = 1 << 17
	}
	return opt
}

// maxLive bounds the workload's live Gs so that the spec's G slots
// (spec.MaxGs) suffice: a G's slot is free only once its exit took effect,
// which the workload cannot see, so it keeps two slots in reserve.
const maxLive = spec.MaxGs - 2

// Record runs the workload on a real, concurrent impl.Sched (sysmon on,
// every M a racing goroutine) and returns its events, and whether it ended
// quiescent (every M and P idle: nothing left to do, or a scheduler that
// stopped with work left) before the recording stopped.
func (r ImplRun) Record(ctx context.Context) (evs []impl.Event, quiescent bool, err error) {
	r.defaults()
	if r.Procs < 1 || r.Procs > spec.MaxPs {
		return nil, false, fmt.Errorf("conform: Procs %d: the spec has at most %d Ps", r.Procs, spec.MaxPs)
	}
	rec := &Recorder{}
	cfg := impl.Config{
		Procs: r.Procs, QueueCapacity: r.Cap, SchedTickPeriod: r.Tick,
		Seed: r.Seed, Trace: rec.Trace,
		ForcePreempt: 300 * time.Microsecond,
	}
	if err := cfg.SetBug(r.Bug); err != nil { // seeded bugs need -tags gmpcheck_hooks
		return nil, false, err
	}
	s, err := impl.New(cfg)
	if err != nil {
		return nil, false, err
	}
	defer s.Shutdown()
	w := &implWorkload{budget: int64(r.Gs - 1), seed: r.Seed}
	w.running.Store(1)
	w.live.Store(1)
	if err := s.Go(w.body(0)); err != nil {
		return nil, false, err
	}
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		rec.Stop()
		return nil, false, ctx.Err()
	case <-time.After(r.Limit):
		rec.Stop()
		return nil, false, fmt.Errorf("conform: impl run did not finish in %v", r.Limit)
	}
	// Wait until every M parked, so that the recording ends in a state
	// the spec can be asked about. A run the scheduler itself found
	// stuck (a seeded lost wakeup: every M idle, runnable Gs queued) ends
	// idle too, and its events are returned with a *RunError.
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if idle(s.SchedTrace(), r.Procs) {
			quiescent = true
			break
		}
	}
	evs = rec.Stop()
	if err != nil {
		return evs, quiescent, &RunError{err}
	}
	return evs, quiescent, nil
}

// RunError is a run that ended with an error of the scheduler's own (Wait's
// deadlock or "scheduler stuck"); Record returns its events with it.
type RunError struct{ Err error }

func (e *RunError) Error() string { return "conform: impl run: " + e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// idle reads a schedtrace line: every P idle and every M but sysmon idle.
func idle(line string, procs int) bool {
	f := map[string]int{}
	for _, w := range strings.Fields(line) {
		if k, v, ok := strings.Cut(w, "="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				f[k] = n
			}
		}
	}
	return f["idleprocs"] == procs && f["idlethreads"] == f["threads"]-1 && f["spinningthreads"] == 0
}

// implWorkload is a random mix of every G action the impl has: spawn,
// Gosched, Park/Ready (a third of the readies semrelease's hand-off,
// ReadyHandoff, whose goyield follows), short syscalls, busy loops with
// Checkpoints (sysmon preempts them), exit. It never deadlocks: a G parks only while another G
// runs, and every exiting G readies a parked one first.
type implWorkload struct {
	mu      sync.Mutex
	parked  []impl.Task
	running atomic.Int64 // live Gs not parked (under mu for park decisions)
	live    atomic.Int64
	budget  int64 // spawns left (under mu)
	seed    uint64
	ids     atomic.Uint64
	// locked counts the Gs locked to their M: one at a time, since each
	// holds an M of the spec's eight while it waits (at Procs 8 two
	// would leave too few for the rest).
	locked atomic.Int64
}

func (w *implWorkload) body(id uint64) func(impl.Task) {
	return func(t impl.Task) {
		rng := rand.New(rand.NewPCG(w.seed, id))
		ops := 4 + rng.IntN(16)
		tt := t.(impl.ThreadTask)
		locked := false
		for range ops {
			switch k := rng.IntN(100); {
			case k < 22:
				w.mu.Lock()
				ok := w.budget > 0 && w.live.Load() < maxLive
				if ok {
					w.budget--
					w.live.Add(1)
					w.running.Add(1)
				}
				w.mu.Unlock()
				if ok {
					if err := t.Go(w.body(w.ids.Add(1))); err != nil {
						panic(err)
					}
				}
			case k < 35:
				t.Gosched()
			case k < 50:
				w.mu.Lock()
				if w.running.Load() > 1 {
					w.running.Add(-1)
					w.parked = append(w.parked, t)
					t.ParkUnlock("conform", &w.mu)
				} else {
					w.mu.Unlock()
				}
			case k < 64:
				w.readyOne(t, rng.IntN(3) == 0)
			case k < 76:
				d := time.Duration(rng.IntN(80)) * time.Microsecond
				t.Syscall(func() { time.Sleep(d) })
			case k < 82:
				d := time.Duration(rng.IntN(80)) * time.Microsecond
				tt.SyscallBlock(func() { time.Sleep(d) })
			case k < 88:
				// Lock or unlock the G's M; a G may exit locked,
				// which ends its M.
				switch {
				case locked:
					tt.UnlockOSThread()
					w.locked.Add(-1)
					locked = false
				case w.locked.Add(1) == 1:
					tt.LockOSThread()
					locked = true
				default:
					w.locked.Add(-1)
				}
			default:
				end := time.Now().Add(time.Duration(rng.IntN(600)) * time.Microsecond)
				for time.Now().Before(end) {
					t.Checkpoint()
				}
			}
		}
		w.mu.Lock()
		w.readyLocked(t)
		w.running.Add(-1)
		w.live.Add(-1)
		w.mu.Unlock()
		if locked {
			w.locked.Add(-1) // exits locked: its M ends
		}
	}
}

// readyOne readies the G parked last, if any; with handoff, by the direct
// hand-off, after w.mu is released (the hand-off yields the P).
func (w *implWorkload) readyOne(t impl.Task, handoff bool) {
	w.mu.Lock()
	if !handoff {
		defer w.mu.Unlock()
		w.readyLocked(t)
		return
	}
	n := len(w.parked)
	if n == 0 {
		w.mu.Unlock()
		return
	}
	g := w.parked[n-1]
	w.parked = w.parked[:n-1]
	w.running.Add(1)
	w.mu.Unlock()
	if err := t.(*impl.G).ReadyHandoff(g); err != nil {
		panic(err)
	}
}

func (w *implWorkload) readyLocked(t impl.Task) {
	if n := len(w.parked); n > 0 {
		g := w.parked[n-1]
		w.parked = w.parked[:n-1]
		w.running.Add(1)
		if err := t.Ready(g); err != nil {
			panic(err)
		}
	}
}
