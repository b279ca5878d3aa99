package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/linearize"
	"github.com/gmpcheck/gmpcheck/spec"
)

// StressResult counts where the Gs went.
type StressResult struct {
	Puts, OwnerTakes, ThiefTakes, GlobalTakes, LeftOver int64
}

// globTake takes one G from the global queue in either shape.
func globTake(rt Queues, p int) uint64 {
	if rt.GlobGetLocal() {
		return rt.GlobGetInto(p, 1, 1)
	}
	return rt.GlobGet()
}

// errStalled reports a livelock: a queue operation that did not return.
var errStalled = fmt.Errorf("a queue operation did not return within 10s after the run stopped (a livelock on inconsistent head and tail)")

// Stress runs one owner (P0: put, put next, get, global take) against
// thieves (P1..) stealing from it without pause, then takes what is left.
// Every G put must be taken exactly once. ctx ending first is returned as
// its error: nothing was decided.
func Stress(ctx context.Context, rt Queues, thieves, ownerOps int, seed uint64) (res StressResult, err error) {
	rt.Reset(1 + thieves)
	taken := make([]atomic.Int32, ownerOps+2)
	var (
		stop       atomic.Bool
		wg         sync.WaitGroup
		thiefTakes atomic.Int64
		failure    atomic.Pointer[error]
	)
	fail := func(err error) {
		failure.CompareAndSwap(nil, &err)
		stop.Store(true)
	}
	take := func(g uint64) bool {
		if g == 0 {
			return false
		}
		if g >= uint64(len(taken)) {
			fail(fmt.Errorf("g%d taken, never put", g))
			return false
		}
		if n := taken[g].Add(1); n != 1 {
			fail(fmt.Errorf("g%d taken %d times", g, n))
		}
		return true
	}
	guard := func() {
		if v := recover(); v != nil {
			fail(fmt.Errorf("panic: %v", v))
		}
	}
	for i := range thieves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer guard()
			r := rand.New(rand.NewPCG(seed, uint64(i)+1))
			for !stop.Load() {
				if !take(rt.Steal(1+i, 0, r.IntN(4) == 0)) {
					continue
				}
				thiefTakes.Add(1)
				for g, _ := rt.Get(1 + i); g != 0; g, _ = rt.Get(1 + i) {
					take(g)
					thiefTakes.Add(1)
				}
			}
		}()
	}
	var id uint64
	func() {
		defer guard()
		r := rand.New(rand.NewPCG(seed, 0))
		for op := 0; op < ownerOps && !stop.Load(); op++ {
			if op%4096 == 0 && ctx.Err() != nil {
				stop.Store(true)
				return
			}
			switch x := r.IntN(16); {
			case x < 9:
				id++
				rt.Put(0, id, x < 3)
			case x < 15:
				if g, _ := rt.Get(0); take(g) {
					res.OwnerTakes++
				}
			default:
				if take(globTake(rt, 0)) {
					res.GlobalTakes++
				}
			}
		}
	}()
	stop.Store(true)
	res.Puts = int64(id)
	if !within(10*time.Second, wg.Wait) {
		return res, errStalled
	}
	res.ThiefTakes = thiefTakes.Load()
	if f := failure.Load(); f != nil {
		return res, *f
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	var left []uint64
	drained := int64(0) // of left, the Gs taken from the global queue
	if !within(10*time.Second, func() {
		defer guard()
		for g, _ := rt.Get(0); g != 0; g, _ = rt.Get(0) {
			left = append(left, g)
		}
		for g := globTake(rt, 0); g != 0; g = globTake(rt, 0) {
			left = append(left, g)
			drained++
			for g, _ := rt.Get(0); g != 0; g, _ = rt.Get(0) {
				left = append(left, g)
			}
		}
	}) {
		return res, errStalled
	}
	for _, g := range left {
		take(g)
	}
	res.GlobalTakes += drained
	res.LeftOver = int64(len(left)) - drained
	if f := failure.Load(); f != nil {
		return res, *f
	}
	for i := uint64(1); i <= id; i++ {
		if n := taken[i].Load(); n != 1 {
			return res, fmt.Errorf("g%d taken %d times (of %d put)", i, n, id)
		}
	}
	// Every G was taken once, so the counts of where they went add up;
	// if they do not, the counting is wrong, and so is what it reports.
	if sum := res.OwnerTakes + res.ThiefTakes + res.GlobalTakes + res.LeftOver; sum != res.Puts {
		return res, fmt.Errorf("stress counts %+v add up to %d, not the %d put", res, sum, res.Puts)
	}
	return res, nil
}

func within(d time.Duration, f func()) bool {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// LinResult sums a linearizability run.
type LinResult struct {
	Rounds, Ops int
}

// Lin records rounds concurrent histories of an owner and thieves on P0
// (thieves steal into their own empty Ps and give the batch back by
// runqget) and checks each with linearize's porcupine model. The yield
// hook yields the processor at random atomic steps so that the calls
// overlap. A round porcupine cannot decide within timeout is inconclusive,
// reported as an error wrapping ErrInconclusive.
func Lin(ctx context.Context, rt Queues, rounds, thieves, opsPerClient int, seed uint64, timeout time.Duration) (LinResult, error) {
	var res LinResult
	checker, err := linearize.NewChecker(rt.Cap())
	if err != nil {
		return res, err
	}
	for round := range rounds {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		hist, err := linRound(rt, thieves, opsPerClient, seed^uint64(round)*0x9E3779B97F4A7C15)
		if err != nil {
			return res, fmt.Errorf("round %d: %w", round, err)
		}
		verdict, err := checker.Check(hist, timeout)
		if err != nil {
			return res, err
		}
		switch verdict {
		case porcupine.Illegal:
			return res, fmt.Errorf("round %d (seed %d): history of %d operations is not linearizable", round, seed, len(hist))
		case porcupine.Unknown:
			return res, fmt.Errorf("round %d: %w", round, ErrInconclusive)
		}
		res.Rounds++
		res.Ops += len(hist)
	}
	return res, nil
}

// ErrInconclusive marks a check that ran out of time before deciding.
var ErrInconclusive = fmt.Errorf("inconclusive: ran out of time")

func linRound(rt Queues, thieves, ops int, seed uint64) (hist []porcupine.Operation, err error) {
	rt.Reset(1 + thieves)
	var tick atomic.Int64
	var perturb atomic.Uint64
	perturb.Store(seed | 1)
	rt.SetYield(func(_ impl.Op, _ int) {
		// xorshift on a shared word: cheap, racy in order only.
		x := perturb.Load()
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		perturb.Store(x)
		if x%3 == 0 {
			runtime.Gosched()
		}
	})
	defer rt.SetYield(nil)
	logs := make([][]porcupine.Operation, 1+thieves)
	rec := func(client int, in linearize.Input, out linearize.Output, call int64) {
		logs[client] = append(logs[client], linearize.MakeOp(client, in, out, call, tick.Add(1)))
	}
	var wg sync.WaitGroup
	var failure atomic.Pointer[error]
	guard := func() {
		if v := recover(); v != nil {
			e := fmt.Errorf("panic: %v", v)
			failure.CompareAndSwap(nil, &e)
		}
	}
	wg.Add(1 + thieves)
	go func() {
		defer wg.Done()
		defer guard()
		r := rand.New(rand.NewPCG(seed, 0))
		var id uint64
		for range ops {
			call := tick.Add(1)
			switch x := r.IntN(10); {
			case x < 4:
				id++
				rt.Put(0, id, false)
				rec(0, linearize.Input{Kind: linearize.KindPut, G: spec.GID(id)}, linearize.Output{}, call)
			case x < 6:
				id++
				rt.Put(0, id, true)
				rec(0, linearize.Input{Kind: linearize.KindPutNext, G: spec.GID(id)}, linearize.Output{}, call)
			case x < 8:
				g, inherit := rt.Get(0)
				rec(0, linearize.Input{Kind: linearize.KindGet}, linearize.Output{G: spec.GID(g), InheritTime: inherit}, call)
			case x < 9 && rt.HasDrain():
				gs := rt.Drain(0)
				rec(0, linearize.Input{Kind: linearize.KindDrain}, linearize.Output{Gs: gids(gs)}, call)
			default:
				e := rt.Empty(0)
				rec(0, linearize.Input{Kind: linearize.KindEmpty}, linearize.Output{Empty: e}, call)
			}
		}
	}()
	for i := range thieves {
		go func() {
			defer wg.Done()
			defer guard()
			c := 1 + i
			r := rand.New(rand.NewPCG(seed, uint64(c)))
			for range ops {
				call := tick.Add(1)
				switch x := r.IntN(10); {
				case x < 7:
					srn := r.IntN(2) == 0
					g := rt.Steal(c, 0, srn)
					ret := tick.Add(1)
					var batch []uint64
					if g != 0 {
						for x, _ := rt.Get(c); x != 0; x, _ = rt.Get(c) {
							batch = append(batch, x)
						}
						batch = append(batch, g)
					}
					logs[c] = append(logs[c], linearize.MakeOp(c, linearize.Input{Kind: linearize.KindSteal, StealRunNext: srn}, linearize.Output{Gs: gids(batch)}, call, ret))
				case x < 9:
					e := rt.Empty(0)
					rec(c, linearize.Input{Kind: linearize.KindEmpty}, linearize.Output{Empty: e}, call)
				default:
					g := globTake(rt, c)
					rec(c, linearize.Input{Kind: linearize.KindGlobGet}, linearize.Output{G: spec.GID(g)}, call)
				}
			}
		}()
	}
	if !within(10*time.Second, wg.Wait) {
		return nil, errStalled
	}
	if f := failure.Load(); f != nil {
		return nil, *f
	}
	for _, l := range logs {
		hist = append(hist, l...)
	}
	return hist, nil
}

func gids(gs []uint64) []spec.GID {
	if len(gs) == 0 {
		return nil
	}
	out := make([]spec.GID, len(gs))
	for i, g := range gs {
		out[i] = spec.GID(g)
	}
	return out
}
