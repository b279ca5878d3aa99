package linearize

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// MaxThieves bounds Config.Thieves: porcupine's search grows quickly with the
// number of concurrent clients, and the issue asks for 1..3.
const MaxThieves = 8

// Config describes the rounds a run records: one owner and Thieves thieves
// on a fresh queue of the given Capacity, about Ops operations in all per
// round, then a final drain of the local and global queues by the owner.
type Config struct {
	Capacity int // ring capacity: a power of two in 2..256
	Thieves  int // 1..MaxThieves
	Ops      int // operations per round, shared among the clients (prefill and final drain not counted)
	// Perturb installs a yield function at every atomic access of the
	// queues that sometimes calls runtime.Gosched, so that goroutines
	// interleave inside operations far more often than real timing does.
	// It needs the instrumented build (-tags gmpcheck_hooks).
	Perturb bool
	// RoundTimeout bounds each phase of a round (0: DefaultRoundTimeout).
	// A phase that takes longer is a hung queue, reported as a RoundError.
	RoundTimeout time.Duration
}

// Validate reports what is wrong with c, if anything.
func (c Config) Validate() error {
	if err := spec.ValidQueueCap(c.Capacity); err != nil {
		return fmt.Errorf("linearize: %w", err)
	}
	if c.Thieves < 1 || c.Thieves > MaxThieves {
		return fmt.Errorf("linearize: %d thieves: want 1..%d", c.Thieves, MaxThieves)
	}
	if c.Ops < 1 || c.Ops > 100000 {
		return fmt.Errorf("linearize: %d operations per round: want 1..100000", c.Ops)
	}
	if c.Perturb && !impl.HooksEnabled() {
		return fmt.Errorf("linearize: perturbation needs the yield hooks: build with -tags gmpcheck_hooks")
	}
	return nil
}

// RecordRound runs one round on a fresh queue and returns its history. A
// queue that hangs or panics gives a *RoundError.
// seed fixes every client's choice of operations (not the interleaving,
// which is up to the Go scheduler).
//
// The owner first puts a random number of Gs: in half the rounds 0..capacity
// of them, in one round in eight a full ring, or one G more, which
// overflows during the prefill, so that overflow is reached at every
// capacity; the other rounds start empty. Then all clients start together
// and each performs its share of Ops: the owner a mix of Put, PutNext, Get,
// Drain, Empty and GlobGet, each thief a mix of Steal with and without
// runnext, Empty and GlobGet. Last the owner drains its queue and takes from
// the global queue until it is empty, so that a G lost anywhere shows up as
// a final state the model disagrees with.
func RecordRound(cfg Config, seed uint64) ([]porcupine.Operation, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	glob := impl.NewGlobalRunq()
	victim, err := impl.NewRunq(cfg.Capacity, glob)
	if err != nil {
		return nil, err
	}
	thieves := make([]*impl.Runq, cfg.Thieves)
	for i := range thieves {
		// Thieves spill nowhere: their rings are emptied after each steal.
		if thieves[i], err = impl.NewRunq(cfg.Capacity, impl.NewGlobalRunq()); err != nil {
			return nil, err
		}
	}
	// In the instrumented build every access of the victim's queues passes
	// through yield: it perturbs the interleaving if asked, and it is how a
	// round that hangs (a seeded bug can leave head past tail, and the
	// queue's retry loops then spin forever) is stopped.
	var abort atomic.Bool
	if impl.HooksEnabled() {
		yield := func(impl.Op, any) {
			if abort.Load() {
				panic(abortRound{})
			}
			if cfg.Perturb && rand.N(4) == 0 {
				runtime.Gosched()
			}
		}
		if err := victim.SetYield(yield); err != nil {
			return nil, err
		}
		if err := glob.SetYield(yield); err != nil {
			return nil, err
		}
	}
	r, err := NewRecorder(victim, thieves...)
	if err != nil {
		return nil, err
	}
	timeout := cfg.RoundTimeout
	if timeout <= 0 {
		timeout = DefaultRoundTimeout
	}

	var nextID uint64
	newG := func() *impl.G { nextID++; return impl.NewG(nextID) }
	rng := rand.New(rand.NewPCG(seed, 0))
	prefill := func() {
		switch rng.IntN(8) {
		case 0, 1, 2, 3:
			for range rng.IntN(cfg.Capacity + 1) {
				if rng.IntN(4) == 0 {
					r.PutNext(newG())
				} else {
					r.Put(newG())
				}
			}
		case 4:
			// A full ring, which the owner's next put overflows, or one put
			// more, which overflows here: at a large capacity nothing else
			// reaches overflow, as the thieves' steals halve the ring.
			for range cfg.Capacity + rng.IntN(2) {
				r.Put(newG())
			}
		}
	}
	if err := runPhase(&abort, timeout, "prefill", prefill); err != nil {
		return nil, err
	}

	share := max(1, cfg.Ops/(cfg.Thieves+1))
	// A starting line: an operation takes tens of nanoseconds, so a client
	// that began as soon as it was scheduled would often run its whole share
	// before the next client got a processor. Every client waits until all
	// have arrived (yielding, so that late ones get scheduled), and the last
	// to arrive sets a start time a few microseconds ahead, which the
	// clients on processors spin towards and so cross together.
	var (
		ready   atomic.Int32
		startAt atomic.Int64
	)
	clients := int32(cfg.Thieves + 1)
	barrier := func() {
		if ready.Add(1) == clients {
			startAt.Store(time.Now().Add(startLead).UnixNano())
		}
		for startAt.Load() == 0 {
			runtime.Gosched()
		}
		for at := startAt.Load(); time.Now().UnixNano() < at; {
		}
	}
	fns := []func(){func() {
		barrier()
		for range share {
			switch x := rng.IntN(100); {
			case x < 40:
				r.Put(newG())
			case x < 55:
				r.PutNext(newG())
			case x < 80:
				r.Get()
			case x < 85:
				r.Drain()
			case x < 92:
				r.Empty(0)
			default:
				r.GlobGet(0)
			}
		}
	}}
	for c := 1; c <= cfg.Thieves; c++ {
		rng := rand.New(rand.NewPCG(seed, uint64(c)))
		fns = append(fns, func() {
			barrier()
			for range share {
				switch x := rng.IntN(100); {
				case x < 35:
					r.Steal(c, false)
				case x < 70:
					r.Steal(c, true)
				case x < 85:
					r.Empty(c)
				default:
					r.GlobGet(c)
				}
			}
		})
	}
	if err := runPhase(&abort, timeout, "owner and thieves", fns...); err != nil {
		return nil, err
	}

	final := func() {
		r.Drain()
		for r.GlobGet(0) != nil {
		}
	}
	if err := runPhase(&abort, timeout, "final drain", final); err != nil {
		return nil, err
	}
	return r.History(), nil
}

// DefaultRoundTimeout is Config.RoundTimeout's default. A round takes well
// under a millisecond; only a queue that livelocks comes near this.
const DefaultRoundTimeout = 5 * time.Second

// abortRound is the panic the yield function raises to unwind a client
// stuck in the queue's retry loop.
type abortRound struct{}

// A RoundError is a round that could not be recorded because the queue
// misbehaved outside what a history can show: a client did not finish (a
// livelock) or the queue's code panicked. It is a failure of the queue,
// reported next to, not instead of, linearizability verdicts.
type RoundError struct {
	Phase string // "prefill", "owner and thieves" or "final drain"
	Stuck bool   // a client did not finish within the round's timeout
	Panic any    // else: what the queue's code panicked with
}

func (e *RoundError) Error() string {
	if e.Stuck {
		return fmt.Sprintf("linearize: the queue hung during the %s phase (a client made no progress; livelock)", e.Phase)
	}
	return fmt.Sprintf("linearize: the queue panicked during the %s phase: %v", e.Phase, e.Panic)
}

// runPhase runs fns concurrently and waits for them. A client still running
// after timeout is aborted through the yield hooks (instrumented build; in
// the default build it cannot be interrupted and is left behind, which only
// a queue bug can cause). A panic in a client is caught and reported.
func runPhase(abort *atomic.Bool, timeout time.Duration, phase string, fns ...func()) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		panicked any
	)
	for _, f := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					if _, ok := p.(abortRound); ok {
						return
					}
					mu.Lock()
					if panicked == nil {
						panicked = p
					}
					mu.Unlock()
				}
			}()
			f()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		abort.Store(true)
		// Every loop of the queue re-reads the victim's head or tail, so an
		// instrumented client unwinds at its next access.
		select {
		case <-done:
		case <-time.After(timeout):
		}
		return &RoundError{Phase: phase, Stuck: true}
	}
	if panicked != nil {
		return &RoundError{Phase: phase, Panic: panicked}
	}
	return nil
}

// startLead is how far ahead of the last client's arrival a round starts.
const startLead = 20 * time.Microsecond
