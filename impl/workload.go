package impl

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Workloads lists the workloads RunWorkload knows (gmpcheck run -workload).
var Workloads = []string{"spawn", "pingpong", "yield", "mixed"}

// WorkloadResult counts what a workload did.
type WorkloadResult struct {
	Ops     int64 // operations (spawns, hand-offs, yields...) completed
	Spawned int64 // goroutines started
}

// RunWorkload runs the named workload on s for about d, then stops it and
// waits for every goroutine to finish. procs sizes the workload.
//
//	spawn     4*procs Gs each spawn trivial Gs, yielding every 64
//	pingpong  procs pairs hand a token back and forth with Park/Ready
//	yield     2*procs Gs loop on Gosched and Checkpoint
//	mixed     random spawn/park/ready/gosched/syscall/exit (the stress test's)
func RunWorkload(s Scheduler, name string, procs int, d time.Duration) (WorkloadResult, error) {
	w := &workload{s: s, procs: procs}
	var roots []func(Task)
	switch name {
	case "spawn":
		for range 4 * procs {
			roots = append(roots, w.spawner)
		}
	case "pingpong":
		for range procs {
			p := &wlPair{w: w}
			roots = append(roots, p.player(0), p.player(1))
		}
	case "yield":
		for range 2 * procs {
			roots = append(roots, w.yielder)
		}
	case "mixed":
		for i := range 4 * procs {
			roots = append(roots, func(tk Task) { w.mixed(tk, uint64(i)) })
		}
	default:
		return WorkloadResult{}, fmt.Errorf("unknown workload %q (want one of %v)", name, Workloads)
	}
	for _, r := range roots {
		w.spawned.Add(1)
		if err := s.Go(r); err != nil {
			return WorkloadResult{}, err
		}
	}
	time.Sleep(d)
	w.stop.Store(true)
	for {
		err := s.Wait()
		if err == nil {
			break
		}
		if !errors.Is(err, ErrDeadlock) {
			return w.result(), err
		}
		// Parked Gs left at the stop: ready them from outside.
		n, rerr := w.readyAll(s)
		if rerr != nil {
			return w.result(), rerr
		}
		if n == 0 {
			return w.result(), err
		}
	}
	return w.result(), nil
}

type workload struct {
	s       Scheduler
	procs   int
	stop    atomic.Bool
	ops     atomic.Int64
	spawned atomic.Int64
	live    atomic.Int64

	waitList
}

func (w *workload) result() WorkloadResult {
	return WorkloadResult{Ops: w.ops.Load(), Spawned: w.spawned.Load()}
}

func (w *workload) spawner(tk Task) {
	for i := 0; !w.stop.Load(); i++ {
		w.spawned.Add(1)
		if err := tk.Go(func(Task) {}); err != nil {
			return
		}
		w.ops.Add(1)
		if i%64 == 63 {
			tk.Gosched()
		}
	}
}

func (w *workload) yielder(tk Task) {
	for !w.stop.Load() {
		tk.Gosched()
		tk.Checkpoint()
		w.ops.Add(1)
	}
}

// pingPair is two Gs taking turns through Park/Ready: each readies the
// other (into its P's runnext) and parks, so the pair shares one time
// slice. The workload, the behaviour tests and the benchmarks build their
// players from waitTurn and passTurn.
type pingPair struct {
	mu     sync.Mutex
	turn   int
	waiter [2]Task
}

// waitTurn parks player i's G tk until it is i's turn or done reports
// true. It returns with mu held, for passTurn to release.
func (p *pingPair) waitTurn(tk Task, i int, done func() bool) {
	p.mu.Lock()
	for p.turn != i && !done() {
		p.waiter[i] = tk
		tk.ParkUnlock("pingpong", &p.mu)
		p.mu.Lock()
	}
}

// passTurn, called with mu held, gives the turn to the partner, releases mu
// and readies the partner if it is parked.
func (p *pingPair) passTurn(tk Task, i int) {
	p.turn = 1 - i
	other := p.waiter[1-i]
	p.waiter[1-i] = nil
	p.mu.Unlock()
	if other != nil {
		if err := tk.Ready(other); err != nil {
			panic(err)
		}
	}
}

// wlPair is the pingpong workload's pair.
type wlPair struct {
	pingPair
	w *workload
}

func (p *wlPair) player(i int) func(Task) {
	return func(tk Task) {
		for {
			p.waitTurn(tk, i, p.w.stop.Load)
			p.passTurn(tk, i)
			p.w.ops.Add(1)
			if p.w.stop.Load() {
				// Hand the turn over once more before leaving: the
				// partner may have parked after our last turn (it
				// cannot see stop while parked), and nobody else would
				// wake it.
				p.mu.Lock()
				p.passTurn(tk, i)
				return
			}
			tk.Checkpoint()
		}
	}
}

// waitList holds the Gs a workload parked, for other Gs to ready one by
// one, or for the caller to ready all from outside once Wait reports a
// deadlock. The mixed workload and the stress test share it.
type waitList struct {
	mu      sync.Mutex
	waiters []Task
}

// park parks tk on the list; reason names the wait in traces.
func (l *waitList) park(tk Task, reason string) {
	l.mu.Lock()
	l.waiters = append(l.waiters, tk)
	tk.ParkUnlock(reason, &l.mu)
}

// readyOne readies the most recently parked waiter, if there is one.
func (l *waitList) readyOne(tk Task) {
	l.mu.Lock()
	var g Task
	if n := len(l.waiters); n > 0 {
		g = l.waiters[n-1]
		l.waiters = l.waiters[:n-1]
	}
	l.mu.Unlock()
	if g != nil {
		if err := tk.Ready(g); err != nil {
			panic(err)
		}
	}
}

// readyAll readies every waiter from outside the scheduler and returns how
// many there were: after a deadlock, no G is left to do it.
func (l *waitList) readyAll(s Scheduler) (int, error) {
	l.mu.Lock()
	ws := l.waiters
	l.waiters = nil
	l.mu.Unlock()
	for _, g := range ws {
		if err := s.Ready(g); err != nil {
			return 0, err
		}
	}
	return len(ws), nil
}

// mixedOp is what mixedStep leaves to its caller.
type mixedOp int

const (
	opDone  mixedOp = iota // mixedStep performed the operation
	opSpawn                // the caller may spawn a G
	opExit                 // the caller may end the G
)

// mixedStep draws one operation of the mixed workload from r and performs
// it, unless it is a spawn or an exit: those depend on the caller's
// population rules, so it returns them instead. step counts the G's steps
// so far; only its first six may park, so that parked Gs stay few.
//
// With local, Gosched's share goes to spawns instead. Gosched keeps the
// global queue stocked, and findRunnable takes from it before it steals, so
// the plain mix rarely steals; without it the work piles up in the
// spawners' rings (each spawn lands in runnext and kicks the previous one to
// the ring) and idle Ps must steal it.
func (l *waitList) mixedStep(tk Task, r *rand.Rand, step int, reason string, local bool) mixedOp {
	op := r.IntN(16)
	if local && op >= 10 && op < 12 {
		op = 0
	}
	switch {
	case op < 5:
		return opSpawn
	case op < 7: // park, to be readied by someone
		if step < 6 {
			l.park(tk, reason)
		}
	case op < 10:
		l.readyOne(tk)
	case op < 12:
		tk.Gosched()
	case op < 13:
		tk.Syscall(func() {
			if r.IntN(64) == 0 {
				time.Sleep(time.Microsecond)
			}
		})
	case op < 14:
		tk.Checkpoint()
	default:
		return opExit
	}
	return opDone
}

func (w *workload) mixed(tk Task, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(w.spawned.Load())))
	w.live.Add(1)
	defer w.live.Add(-1)
	for step := 0; ; step++ {
		if w.stop.Load() {
			w.readyOne(tk)
			return
		}
		w.ops.Add(1)
		switch w.mixedStep(tk, r, step, "mixed", false) {
		case opSpawn:
			if w.live.Load() < int64(64*w.procs) {
				w.spawned.Add(1)
				s := r.Uint64()
				tk.Go(func(tk Task) { w.mixed(tk, s) })
			}
		case opExit:
			if step > 2 && w.live.Load() > int64(w.procs) {
				w.readyOne(tk)
				return
			}
		}
	}
}
