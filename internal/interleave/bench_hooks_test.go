//go:build gmpcheck_hooks

package interleave

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
)

// BenchmarkReductions explores loom's four queue tests, and the built-in
// scenarios of the same shapes, with DPOR and with StateCache, side by
// side, reporting per search: executions, executions abandoned by sleep
// sets, (state, sleep set) nodes and Mazurkiewicz traces (StateCache),
// whether it completed, wall and CPU seconds. loom-basic runs only with
// GMPCHECK_LONG=1 (DPOR does not finish it: each search stops after
// GMPCHECK_BENCH_LIMIT, 10m by default, and reports complete=0).
//
//	GMPCHECK_LONG=1 go test -tags gmpcheck_hooks -run '^$' -bench Reductions -benchtime 1x -timeout 60m ./internal/interleave
func BenchmarkReductions(b *testing.B) {
	setBug(b, impl.NoBug)
	limit := 10 * time.Minute
	if s := os.Getenv("GMPCHECK_BENCH_LIMIT"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatal(err)
		}
		limit = d
	}
	names := []string{"loom-basic", "loom-steal-overflow", "loom-multi-stealer", "loom-chained-steal",
		"steal-put-get", "overflow-steal", "two-thieves-drain", "chained-steal-batch"}
	for _, name := range names {
		sc, err := LookupLoom(name)
		if err != nil {
			if sc, err = Lookup(name); err != nil {
				b.Fatal(err)
			}
		}
		for _, red := range []Reduction{DPOR, StateCache} {
			b.Run(name+"/"+red.String(), func(b *testing.B) {
				if name == "loom-basic" && os.Getenv("GMPCHECK_LONG") == "" {
					b.Skip("minutes: GMPCHECK_LONG=1 runs it")
				}
				var r Result
				var cpu time.Duration
				for range b.N {
					ctx, cancel := context.WithTimeout(context.Background(), limit)
					opt := DefaultOptions()
					opt.Reduction = red
					before := cpuTime()
					r, err = Explore(ctx, &sc, opt)
					cpu = cpuTime() - before
					cancel()
					if err != nil {
						b.Fatal(err)
					}
					if r.Violation != nil {
						b.Fatal(r.Violation.Report())
					}
				}
				b.Log(r)
				complete := 0.0
				if r.Complete {
					complete = 1
				}
				execs := r.Executions + r.SleepBlocked
				if red == StateCache {
					execs = r.Runs
					b.ReportMetric(float64(r.States), "states")
					b.ReportMetric(float64(r.Traces), "traces")
				}
				b.ReportMetric(float64(execs), "executions")
				b.ReportMetric(float64(r.SleepBlocked), "sleep-blocked")
				b.ReportMetric(complete, "complete")
				b.ReportMetric(r.Elapsed.Seconds(), "wall-s")
				b.ReportMetric(cpu.Seconds(), "cpu-s")
			})
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
