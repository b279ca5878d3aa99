package harness

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Budget sizes the checks of one release.
type Budget struct {
	DiffSeqs, DiffSteps int             // differential: sequences per capacity, operations per sequence
	RapidChecks         int             // the differential driven by rapid: cases per capacity
	StressOps           int             // conservation stress: owner operations per configuration
	LinRounds           int             // porcupine: rounds per capacity (4 and 8), 2 thieves
	LinOps              int             // operations per client per round
	Checks              map[string]bool // diff, stress, porcupine, interleave; nil: all
	Caps                map[int]bool    // nil: every capacity
	Scenarios           map[string]bool // interleave scenarios to run; nil: all
	Windows             bool            // interleave: also every real-time order of the calls' windows
	Seed                uint64
	Timeout             time.Duration // the whole run; past it, what is left is inconclusive
}

// Result is one check's verdict on one capacity, printed as a JSON line.
type Result struct {
	Check   string `json:"check"`
	Cap     int    `json:"cap"`
	Verdict string `json:"verdict"` // pass, fail, inconclusive
	Count   string `json:"count"`
	Detail  string `json:"detail,omitempty"`
	Millis  int64  `json:"ms"`
}

// Verdicts.
const (
	Pass         = "pass"
	Fail         = "fail"
	Inconclusive = "inconclusive"
)

// Main is the generated program's main: it parses the budget from args,
// runs every check on every Queues and writes one JSON Result per line to
// out. It returns 0; the verdicts are in the results.
func Main(args []string, out io.Writer, qs []Queues) int {
	fs := flag.NewFlagSet("rtq", flag.ContinueOnError)
	var b Budget
	fs.IntVar(&b.DiffSeqs, "seqs", 200, "")
	fs.IntVar(&b.DiffSteps, "steps", 100, "")
	fs.IntVar(&b.RapidChecks, "rapidchecks", 100, "")
	fs.IntVar(&b.StressOps, "ops", 200_000, "")
	fs.IntVar(&b.LinRounds, "rounds", 200, "")
	fs.IntVar(&b.LinOps, "linops", 12, "")
	checks := fs.String("checks", "", "comma-separated checks to run (default all)")
	caps := fs.String("caps", "", "comma-separated capacities to check (default all)")
	scenarios := fs.String("scenarios", "", "comma-separated interleave scenarios (default all)")
	fs.Uint64Var(&b.Seed, "seed", 1, "")
	fs.BoolVar(&b.Windows, "windows", false, "")
	fs.DurationVar(&b.Timeout, "timeout", 0, "0: no limit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *checks != "" {
		b.Checks = map[string]bool{}
		for _, c := range strings.Split(*checks, ",") {
			b.Checks[c] = true
		}
	}
	if *scenarios != "" {
		b.Scenarios = map[string]bool{}
		for _, c := range strings.Split(*scenarios, ",") {
			b.Scenarios[c] = true
		}
	}
	if *caps != "" {
		b.Caps = map[int]bool{}
		for _, c := range strings.Split(*caps, ",") {
			n, err := strconv.Atoi(c)
			if err != nil {
				return 2
			}
			b.Caps[n] = true
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	if b.Timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), b.Timeout)
	}
	defer cancel()
	enc := json.NewEncoder(out)
	for _, r := range Run(ctx, qs, b) {
		_ = enc.Encode(r)
	}
	return 0
}

func verdictOf(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return Pass
	case errors.Is(err, ErrInconclusive), errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return Inconclusive
	case ctx.Err() != nil && errors.Is(err, errStalled):
		return Inconclusive
	}
	return Fail
}

// Run runs every check at budget b on each Queues.
func Run(ctx context.Context, qs []Queues, b Budget) []Result {
	var out []Result
	add := func(check string, c int, start time.Time, count string, err error) {
		r := Result{Check: check, Cap: c, Verdict: verdictOf(ctx, err), Count: count, Millis: time.Since(start).Milliseconds()}
		if err != nil {
			r.Detail = err.Error()
		}
		out = append(out, r)
	}
	on := func(check string, q Queues) bool {
		return (b.Checks == nil || b.Checks[check]) && (b.Caps == nil || b.Caps[q.Cap()])
	}
	for _, q := range qs {
		if !on("diff", q) {
			continue
		}
		start := time.Now()
		var res DiffResult
		var err error
		if ctx.Err() != nil {
			err = ctx.Err()
		} else {
			res, err = RunDiff(ctx, q, b.DiffSeqs, b.DiffSteps, b.Seed)
		}
		add("diff", q.Cap(), start, fmt.Sprintf("%d ops", res.Steps), err)
	}
	for _, q := range qs {
		if !on("rapid", q) || b.RapidChecks == 0 {
			continue
		}
		start := time.Now()
		var n int
		err := ctx.Err()
		if err == nil {
			n, err = RunRapid(q, b.RapidChecks, b.DiffSteps, b.Seed)
		}
		add("rapid", q.Cap(), start, fmt.Sprintf("%d cases", n), err)
	}
	for _, q := range qs {
		if q.Cap() != 4 && q.Cap() != 256 || !on("stress", q) {
			continue
		}
		start := time.Now()
		var puts, stolen int64
		var err error
		for th := 1; th <= 3 && err == nil; th++ {
			var r StressResult
			r, err = Stress(ctx, q, th, b.StressOps, b.Seed)
			puts += r.Puts
			stolen += r.ThiefTakes
			if err != nil {
				err = fmt.Errorf("%d thieves: %w", th, err)
			}
		}
		add("stress", q.Cap(), start, fmt.Sprintf("%d Gs put, %d taken by thieves", puts, stolen), err)
	}
	for _, q := range qs {
		if q.Cap() > 8 || !on("porcupine", q) {
			continue
		}
		start := time.Now()
		r, err := Lin(ctx, q, b.LinRounds, 2, b.LinOps, b.Seed, 10*time.Second)
		add("porcupine", q.Cap(), start, fmt.Sprintf("%d rounds, %d ops", r.Rounds, r.Ops), err)
	}
	for _, q := range qs {
		if q.Cap() != 4 || !on("interleave", q) {
			continue
		}
		start := time.Now()
		count, err := Explore(ctx, q, b.Scenarios, b.Windows)
		add("interleave", q.Cap(), start, count, err)
	}
	return out
}
