package queuecheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
)

// stallTimeout bounds the waits for the thieves after the owner stops and
// for the final drain. A broken queue can leave head and tail inconsistent
// for good (a seeded steal-no-cas stores a stale head), and runqgrab and
// runqdrain retry an inconsistent read forever: a livelock, which must end
// as a failure, not as a hung check. On a correct queue both take
// microseconds, so the bound only matters for a broken one.
var stallTimeout = 10 * time.Second

// finishWithin runs f and reports whether it returned within d. If it did
// not, its goroutine is left running: a livelocked queue operation cannot be
// stopped from outside.
func finishWithin(d time.Duration, f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

// StressConfig sizes one conservation stress run.
type StressConfig struct {
	Capacity int    // the owner's ring; small capacities overflow to the global queue
	Thieves  int    // concurrent thieves, each with its own queue
	OwnerOps int    // owner operations (put, put next, get, global take)
	Seed     uint64 // the owner's and thieves' choices
}

// StressResult counts where the Gs went: taken by the owner's gets, by
// thieves, from the global queue (during the run or after it), or left in
// the owner's queue at the end.
type StressResult struct {
	Puts, OwnerTakes, ThiefTakes, GlobalTakes, LeftOver int64
}

// Stress runs one owner (put, put next, get, and occasional takes from the
// global queue) against cfg.Thieves thieves stealing from it without pause,
// then takes whatever is left. Every G put must be taken exactly once: by
// the owner, by a thief, from the global queue, or in the final drain. A
// duplicate shows a broken CAS; a loss shows a broken overflow or
// publication. It returns an error naming the first G taken twice or never,
// or a steal or drain that never returns (a livelock on a broken queue), or
// the context's error if ctx ended first (then nothing was decided).
func Stress(ctx context.Context, cfg StressConfig) (StressResult, error) {
	var res StressResult
	if cfg.Thieves < 1 {
		return res, fmt.Errorf("queuecheck: stress needs at least one thief, got %d", cfg.Thieves)
	}
	glob := impl.NewGlobalRunq()
	owner, err := impl.NewRunq(cfg.Capacity, glob)
	if err != nil {
		return res, err
	}
	taken := make([]atomic.Int32, cfg.OwnerOps+1)
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
	take := func(g *impl.G) bool {
		if g == nil {
			return false
		}
		if n := taken[g.ID()].Add(1); n != 1 {
			fail(fmt.Errorf("%v taken %d times", g, n))
		}
		return true
	}
	// A panic in the queue (an overflow, a nil G) is a failure to report,
	// not a crash of the process running the check.
	guard := func() {
		if r := recover(); r != nil {
			fail(fmt.Errorf("panic: %v", r))
		}
	}
	for i := range cfg.Thieves {
		thief, err := impl.NewRunq(cfg.Capacity, glob)
		if err != nil {
			return res, err
		}
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			defer guard()
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			for !stop.Load() {
				if !take(thief.Steal(owner, rng.IntN(4) == 0)) {
					continue
				}
				thiefTakes.Add(1)
				for g, _ := thief.Get(); g != nil; g, _ = thief.Get() {
					take(g)
					thiefTakes.Add(1)
				}
			}
		}(cfg.Seed + uint64(i) + 1)
	}

	var id uint64
	func() {
		defer guard()
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.Capacity*10+cfg.Thieves)))
		for op := 0; op < cfg.OwnerOps && !stop.Load(); op++ {
			if op%4096 == 0 && ctx.Err() != nil {
				stop.Store(true)
				return
			}
			switch r := rng.IntN(16); {
			case r < 8:
				id++
				owner.Put(impl.NewG(id), r < 3)
			case r < 15:
				if g, _ := owner.Get(); take(g) {
					res.OwnerTakes++
				}
			default:
				if take(glob.Get()) {
					res.GlobalTakes++
				}
			}
		}
	}()
	stop.Store(true)
	res.Puts = int64(id)
	if !finishWithin(stallTimeout, wg.Wait) {
		return res, fmt.Errorf("a thief's runqsteal did not return within %v after the owner stopped: it retries forever, so head and tail stay inconsistent (a broken queue)", stallTimeout)
	}
	res.ThiefTakes = thiefTakes.Load()
	if f := failure.Load(); f != nil {
		return res, *f
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	// Quiescent now: take everything left, then account for every G.
	var gq impl.GQueue
	if !finishWithin(stallTimeout, func() { gq = owner.Drain() }) {
		return res, fmt.Errorf("runqdrain did not return within %v on a quiescent queue: head and tail are inconsistent (a broken queue)", stallTimeout)
	}
	for g := gq.Pop(); g != nil; g = gq.Pop() {
		take(g)
		res.LeftOver++
	}
	for g := glob.Get(); g != nil; g = glob.Get() {
		take(g)
		res.GlobalTakes++
	}
	if f := failure.Load(); f != nil {
		return res, *f
	}
	for i := uint64(1); i <= id; i++ {
		if n := taken[i].Load(); n != 1 {
			return res, fmt.Errorf("g%d taken %d times (of %d put)", i, n, id)
		}
	}
	return res, nil
}
