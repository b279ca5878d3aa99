package spec

import (
	"context"
	"testing"
	"time"
)

// Explorer throughput on the verify bound (0.3M distinct states) and two
// larger models of about 3M and 4M (liveness off: it is the BFS rate that
// the target is about), side by side in one run: 1 and 2 workers, exact
// and fingerprint visited sets, with and without M symmetry, with M and G
// symmetry, and with P symmetry added to each. Reported
// metrics: distinct states (orbits under symmetry), states/s of the BFS
// (wall), states per CPU-second (user+sys of the process during the run:
// on a shared machine the wall rate measures the load, the CPU rate the
// explorer), bytes per state of the explorer's own structures, heap MiB
// after the search.
//
//	go test ./spec -run '^$' -bench Explore -benchtime 1x
var benchBounds = []struct {
	name string
	b    Bounds
}{
	{"verify-P2M3G2S1-netpoll", VerifyBounds()},
	{"P3M3G2S1-netpoll", Bounds{Ps: 3, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true}},
	{"P2M4G2S1-netpoll", Bounds{Ps: 2, Ms: 4, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true}},
}

var benchOptions = []struct {
	name string
	opt  Options
}{
	{"workers=1", Options{Workers: 1}},
	{"workers=2", Options{Workers: 2}},
	{"workers=2/fingerprint", Options{Workers: 2, Fingerprint: true}},
	{"workers=1/symmetry", Options{Workers: 1, Symmetry: true}},
	{"workers=2/symmetry", Options{Workers: 2, Symmetry: true}},
	{"workers=2/symmetry/fingerprint", Options{Workers: 2, Symmetry: true, Fingerprint: true}},
	{"workers=2/gsymmetry", Options{Workers: 2, GSymmetry: true}},
	{"workers=2/psymmetry", Options{Workers: 2, PSymmetry: true}},
	{"workers=2/gsymmetry/psymmetry", Options{Workers: 2, GSymmetry: true, PSymmetry: true}},
}

func BenchmarkExplore(b *testing.B) {
	for _, c := range benchBounds {
		for _, o := range benchOptions {
			b.Run(c.name+"/"+o.name, func(b *testing.B) { benchExplore(b, c.b, o.opt) })
		}
	}
}

// everyMechanismBench is every mechanism at once (issue 18's model at
// Ps=2 Ms=2 Gs=3), 6.5 M orbits under M and G symmetry: the search the
// every-mechanism target is made of, at a size that finishes in seconds.
// Only symmetric options: unreduced, it is many times larger.
//
//	go test ./spec -run '^$' -bench ExploreEveryMechanism -benchtime 1x
var everyMechanismBench = Bounds{Ps: 2, Ms: 2, Gs: 3, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true,
	InjectList: true, SyscallBlock: true, LockOSThread: true, Goyield: true, STW: true, ProcResize: true,
	PollBlock: true, Timers: 1}

func BenchmarkExploreEveryMechanism(b *testing.B) {
	for _, o := range []struct {
		name string
		opt  Options
	}{
		{"workers=1/gsymmetry", Options{Workers: 1, GSymmetry: true, ThreadLimit: true}},
		{"workers=2/gsymmetry", Options{Workers: 2, GSymmetry: true, ThreadLimit: true}},
		{"workers=2/gsymmetry/fingerprint", Options{Workers: 2, GSymmetry: true, ThreadLimit: true, Fingerprint: true}},
	} {
		b.Run("P2M2G3S1-every/"+o.name, func(b *testing.B) { benchExplore(b, everyMechanismBench, o.opt) })
	}
}

// benchExplore explores bounds to the end b.N times and reports the last run's
// figures.
func benchExplore(b *testing.B, bounds Bounds, opt Options) {
	var r Result
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		var err error
		c0 := cpuTime()
		r, err = Explore(context.Background(), bounds, opt)
		cpu = cpuTime() - c0
		if err != nil {
			b.Fatal(err)
		}
		if r.Verdict() != "pass" {
			b.Fatalf("%v", r)
		}
	}
	b.ReportMetric(float64(r.Distinct), "states")
	b.ReportMetric(r.StatesPerSec(), "states/s")
	if cpu > 0 {
		b.ReportMetric(float64(r.Distinct)/cpu.Seconds(), "states/cpu-s")
	}
	b.ReportMetric(r.BytesPerState(), "B/state")
	b.ReportMetric(float64(r.HeapBytes)/(1<<20), "heapMiB")
}

// BenchmarkLivenessPass is the liveness pass alone, every property (All),
// on everyMechanismBench's graph under M and G symmetry, explored once
// outside the timer: one property after another, each stepping its states
// as it walks (as before the pass computed its edges once), against the
// edges computed once on the workers and two properties at once.
//
//	go test ./spec -run '^$' -bench LivenessPass -benchtime 1x -count 6
func BenchmarkLivenessPass(b *testing.B) {
	md, err := NewModel(everyMechanismBench)
	if err != nil {
		b.Fatal(err)
	}
	g, res := bfs(context.Background(), md, Options{Workers: 2, Symmetry: true, GSymmetry: true, ThreadLimit: true, Liveness: true})
	if !res.Complete {
		b.Fatalf("%v", res)
	}
	for _, oneByOne := range []bool{true, false} {
		name := "edges-once"
		if oneByOne {
			name = "one-by-one"
		}
		b.Run(name, func(b *testing.B) {
			var groups []ViolationGroup
			for i := 0; i < b.N; i++ {
				groups = checkLiveness(context.Background(), g, 2, Options{All: true, oneByOne: oneByOne})
			}
			if len(groups) == 0 {
				b.Fatal("no violation: the graph fails work conservation (Go 1.26's allp lost wakeup)")
			}
			b.ReportMetric(float64(g.len()), "orbits")
		})
	}
}

// BenchmarkExploreLiveness is the search with its liveness pass, as
// gmpcheck verify and spec/'s tests run it: the verify bound, exact and
// under M symmetry, one worker and two. The pass's part of it is what the
// successor log (succlog.go) and the walk's shared edge stack cut.
//
//	go test ./spec -run '^$' -bench ExploreLiveness -benchtime 1x -count 6
func BenchmarkExploreLiveness(b *testing.B) {
	for _, o := range []struct {
		name string
		opt  Options
	}{
		{"workers=1", Options{Workers: 1, ThreadLimit: true, Liveness: true}},
		{"workers=2", Options{Workers: 2, ThreadLimit: true, Liveness: true}},
		{"workers=2/symmetry", Options{Workers: 2, Symmetry: true, ThreadLimit: true, Liveness: true}},
	} {
		b.Run("verify-P2M3G2S1-netpoll/"+o.name, func(b *testing.B) { benchExplore(b, VerifyBounds(), o.opt) })
	}
}
