package linearize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
)

// RunConfig is a whole linearizability run: Rounds rounds of Config, each on
// a fresh queue and checked as its own history.
type RunConfig struct {
	Config
	Rounds int
	Seed   uint64 // round i uses a seed derived from Seed and i
	// Workers is how many rounds are checked in parallel (0: GOMAXPROCS).
	// Recording runs in its own goroutines alongside.
	Workers int
	// HTML is where the visualization of a violating round is written
	// ("": a file in the system's temporary directory named after the
	// configuration, the seed, the round and the seeded bug switched on).
	HTML string
	// Progress, if set, receives a line every few seconds.
	Progress io.Writer
}

// Report is the outcome of Run.
type Report struct {
	// Result is porcupine.Ok when every round was checked and linearizable,
	// Illegal when one was not, Unknown when the context ended first
	// (inconclusive, never a pass).
	Result porcupine.CheckResult
	Rounds int // rounds checked to a verdict
	Ops    int // operations in those rounds
	// Concurrent is how many of those operations overlapped an operation
	// of another client (see Concurrent): the share of the history that
	// actually tested concurrency, which depends on how often the clients'
	// goroutines ran in parallel or were interleaved by Config.Perturb.
	Concurrent int
	// Overflowed is how many of those rounds spilled Gs to the global queue
	// (see Overflowed): the share that checked runqputslow.
	Overflowed int
	// CheckTime is the time spent inside porcupine, summed over workers;
	// RecordTime the time spent recording; Wall the whole run.
	CheckTime, RecordTime, Wall time.Duration

	// Broken lists the rounds that could not be recorded because the queue
	// hung or panicked (see RoundError); the run goes on past them. Any
	// broken round is a failure, whatever Result says.
	Broken []BrokenRound

	// For an Illegal result: the round, its seed, its history and the HTML
	// visualization written (HTMLErr if writing it failed).
	FailedRound int
	FailedSeed  uint64
	History     []porcupine.Operation
	HTML        string
	HTMLErr     error
}

// A BrokenRound is a round whose recording failed with a RoundError.
type BrokenRound struct {
	Index int
	Seed  uint64
	Err   *RoundError
}

// Failed reports whether the run found the queue at fault: a round that is
// not linearizable, or one that hung or panicked.
func (r Report) Failed() bool { return r.Result == porcupine.Illegal || len(r.Broken) > 0 }

// OpsPerSecond is the checking throughput: operations checked per second of
// porcupine time on one core.
func (r Report) OpsPerSecond() float64 {
	if r.CheckTime <= 0 {
		return 0
	}
	return float64(r.Ops) / r.CheckTime.Seconds()
}

func (r Report) String() string {
	s := fmt.Sprintf("%s: %d rounds (%d overflowed), %d ops (%d concurrent) checked in %s of checking (%.0f ops/s per core), %s recording, %s wall",
		verdictName(r.Result), r.Rounds, r.Overflowed, r.Ops, r.Concurrent, r.CheckTime.Round(time.Millisecond), r.OpsPerSecond(),
		r.RecordTime.Round(time.Millisecond), r.Wall.Round(time.Millisecond))
	if r.Result == porcupine.Illegal {
		s += fmt.Sprintf("; round %d (seed %d) is not linearizable", r.FailedRound, r.FailedSeed)
	}
	if len(r.Broken) > 0 {
		b := r.Broken[0]
		s += fmt.Sprintf("; %d rounds broke, first round %d (seed %d): %v", len(r.Broken), b.Index, b.Seed, b.Err)
	}
	return s
}

func verdictName(r porcupine.CheckResult) string {
	switch r {
	case porcupine.Ok:
		return "linearizable"
	case porcupine.Illegal:
		return "NOT linearizable"
	}
	return "inconclusive"
}

// SeededBugRounds is the budget of perturbed rounds (capacity 4, 2 thieves,
// 40 operations) in which the tests and the verify stage require each seeded
// queue bug to give an Illegal history: several times the most that
// empty-no-recheck, the slowest to show, has needed (2690 in 60 runs).
const SeededBugRounds = 15000

// RoundSeed is the seed of round i of a run with the given seed.
func RoundSeed(seed uint64, i int) uint64 { return seed ^ (uint64(i)+1)*0x9E3779B97F4A7C15 }

type recorded struct {
	index int
	seed  uint64
	hist  []porcupine.Operation
}

// batchRounds is how many rounds Run records before checking them. Recording
// and checking alternate rather than overlap so that the checkers do not take
// the processors the recorded clients need to run in parallel.
const batchRounds = 64

// maxBroken stops a run after this many rounds that hung or panicked: the
// verdict is a failure by then, and each hung round costs a timeout.
const maxBroken = 3

// Run records and checks rc.Rounds rounds. It stops at the first round that
// is not linearizable and writes that round's visualization. When ctx ends
// first (a deadline makes each round's check time out with it), the result
// is Unknown. Rounds in which the queue hung or panicked are listed in
// Report.Broken and skipped; check Report.Failed.
func Run(ctx context.Context, rc RunConfig) (Report, error) {
	if err := rc.Config.Validate(); err != nil {
		return Report{}, err
	}
	if rc.Rounds < 1 {
		return Report{}, fmt.Errorf("linearize: %d rounds: want at least 1", rc.Rounds)
	}
	chk, err := NewChecker(rc.Capacity)
	if err != nil {
		return Report{}, err
	}
	workers := rc.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	lastProgress := start
	var rep Report
	var failed *recorded
	batch := make([]recorded, 0, batchRounds)
	results := make([]porcupine.CheckResult, batchRounds)
	errs := make([]error, batchRounds)
	durs := make([]time.Duration, batchRounds)

	for next := 0; next < rc.Rounds && failed == nil && len(rep.Broken) < maxBroken && ctx.Err() == nil; {
		batch = batch[:0]
		t0 := time.Now()
		for ; next < rc.Rounds && len(batch) < batchRounds && ctx.Err() == nil; next++ {
			seed := RoundSeed(rc.Seed, next)
			h, err := RecordRound(rc.Config, seed)
			var re *RoundError
			if errors.As(err, &re) {
				rep.Broken = append(rep.Broken, BrokenRound{next, seed, re})
				if len(rep.Broken) >= maxBroken {
					break
				}
				continue
			}
			if err != nil {
				return rep, err
			}
			batch = append(batch, recorded{next, seed, h})
		}
		rep.RecordTime += time.Since(t0)

		// Check the batch: worker w takes rounds w, w+workers, ...
		var wg sync.WaitGroup
		for w := range min(workers, len(batch)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(batch); i += workers {
					var timeout time.Duration
					if dl, ok := ctx.Deadline(); ok {
						if timeout = time.Until(dl); timeout <= 0 {
							results[i], errs[i], durs[i] = porcupine.Unknown, nil, 0
							continue
						}
					}
					t := time.Now()
					results[i], errs[i] = chk.Check(batch[i].hist, timeout)
					durs[i] = time.Since(t)
				}
			}()
		}
		wg.Wait()
		for i := range batch {
			rep.CheckTime += durs[i]
			if errs[i] != nil {
				return rep, fmt.Errorf("round %d: %w", batch[i].index, errs[i])
			}
			switch results[i] {
			case porcupine.Ok:
				rep.Rounds++
				rep.Ops += len(batch[i].hist)
				rep.Concurrent += Concurrent(batch[i].hist)
				if Overflowed(batch[i].hist) {
					rep.Overflowed++
				}
			case porcupine.Illegal:
				if failed == nil {
					failed = &batch[i]
				}
			}
		}
		if rc.Progress != nil && time.Since(lastProgress) > 5*time.Second {
			lastProgress = time.Now()
			fmt.Fprintf(rc.Progress, "%d/%d rounds, %d ops linearizable so far\n", rep.Rounds, rc.Rounds, rep.Ops)
		}
	}
	rep.Wall = time.Since(start)
	switch {
	case failed != nil:
		rep.Result = porcupine.Illegal
		rep.FailedRound, rep.FailedSeed, rep.History = failed.index, failed.seed, failed.hist
		path := rc.HTML
		if path == "" {
			path = defaultHTMLPath(rc, failed.index)
		}
		// The verbose re-check of one short round is quick; it gets its
		// own budget so that a run cut short still explains its violation.
		if _, err := chk.Visualize(failed.hist, time.Minute, path); err != nil {
			rep.HTMLErr = err
		} else {
			rep.HTML = path
		}
	case rep.Rounds == rc.Rounds && len(rep.Broken) == 0:
		rep.Result = porcupine.Ok
	default:
		rep.Result = porcupine.Unknown
	}
	return rep, nil
}

// defaultHTMLPath names the visualization of round i of rc so that runs of
// different configurations or seeded bugs do not overwrite each other's.
func defaultHTMLPath(rc RunConfig, i int) string {
	name := fmt.Sprintf("gmpcheck-lin-cap%d-thieves%d-seed%d-round%d", rc.Capacity, rc.Thieves, rc.Seed, i)
	if bug := impl.ActiveBug(); bug != impl.NoBug {
		name += "-" + string(bug)
	}
	return filepath.Join(os.TempDir(), name+".html")
}
