package spec

import (
	"context"
	"testing"
)

// Explorer throughput on models of about 0.5M, 2M and 5M distinct states
// (liveness off: it is the BFS rate that the target is about). Reported
// metrics: distinct states, states/s of the BFS, heap MiB after the search.
//
//	go test ./spec -run '^$' -bench Explore -benchtime 1x
var benchBounds = []struct {
	name string
	b    Bounds
}{
	{"P2G3S2-netpoll-M4", Bounds{Ps: 2, Ms: 4, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true}},
	{"P2G3S2-netpoll", Bounds{Ps: 2, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true}},
	{"P2G4S3-M4", Bounds{Ps: 2, Ms: 4, Gs: 4, Cap: 2, Spawn: 3, SchedTick: 2, Syscalls: true}},
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
