package spec

import (
	"context"
	"testing"
)

// Explorer throughput on the verify bound (0.3M distinct states) and two
// larger models of about 3M and 4M (liveness off: it is the BFS rate that
// the target is about). Reported
// metrics: distinct states, states/s of the BFS, heap MiB after the search.
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

func BenchmarkExplore(b *testing.B) {
	for _, c := range benchBounds {
		b.Run(c.name, func(b *testing.B) {
			var r Result
			for i := 0; i < b.N; i++ {
				var err error
				r, err = Explore(context.Background(), c.b, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if r.Verdict() != "pass" {
					b.Fatalf("%v", r)
				}
			}
			b.ReportMetric(float64(r.Distinct), "states")
			b.ReportMetric(r.StatesPerSec(), "states/s")
			b.ReportMetric(float64(r.HeapBytes)/(1<<20), "heapMiB")
		})
	}
}
