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
		w.mu.Lock()
		ws := w.waiters
		w.waiters = nil
		w.mu.Unlock()
		if len(ws) == 0 {
			return w.result(), err
		}
		for _, g := range ws {
			if err := s.Ready(g); err != nil {
				return w.result(), err
			}
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

	mu      sync.Mutex
	waiters []Task
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

// wlPair is a ping-pong pair: each player readies the other and parks.
type wlPair struct {
	w      *workload
	mu     sync.Mutex
	turn   int
	waiter [2]Task
}

func (p *wlPair) player(i int) func(Task) {
	return func(tk Task) {
		for {
			p.mu.Lock()
			for p.turn != i && !p.w.stop.Load() {
				p.waiter[i] = tk
				tk.ParkUnlock("pingpong", &p.mu)
				p.mu.Lock()
			}
			p.turn = 1 - i
			other := p.waiter[1-i]
			p.waiter[1-i] = nil
			p.mu.Unlock()
			if other != nil {
				if err := tk.Ready(other); err != nil {
					panic(err)
				}
			}
			p.w.ops.Add(1)
			if p.w.stop.Load() {
				p.leave(tk, i)
				return
			}
			tk.Checkpoint()
		}
	}
}

// leave hands the turn over one last time before player i exits: the
// partner may have parked after our last turn (it cannot see stop while
// parked), and nobody else would wake it.
func (p *wlPair) leave(tk Task, i int) {
	p.mu.Lock()
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

func (w *workload) readyOne(tk Task) {
	w.mu.Lock()
	var g Task
	if n := len(w.waiters); n > 0 {
		g = w.waiters[n-1]
		w.waiters = w.waiters[:n-1]
	}
	w.mu.Unlock()
	if g != nil {
		if err := tk.Ready(g); err != nil {
			panic(err)
		}
	}
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
		switch op := r.IntN(16); {
		case op < 5:
			if w.live.Load() < int64(64*w.procs) {
				w.spawned.Add(1)
				s := r.Uint64()
				tk.Go(func(tk Task) { w.mixed(tk, s) })
			}
		case op < 7:
			if step < 6 {
				w.mu.Lock()
				w.waiters = append(w.waiters, tk)
				tk.ParkUnlock("mixed", &w.mu)
			}
		case op < 10:
			w.readyOne(tk)
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
			if step > 2 && w.live.Load() > int64(w.procs) {
				w.readyOne(tk)
				return
			}
		}
	}
}
