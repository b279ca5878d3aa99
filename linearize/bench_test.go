package linearize

import (
	"fmt"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
)

// BenchmarkCheck measures checking alone, on one goroutine: it records 500
// rounds first (in the instrumented build with Config.Perturb, so that most
// operations overlap another client's), then checks them all per iteration.
// ops/s is operations checked per second on one core; concurrent% the share
// of operations that overlapped another client's.
func BenchmarkCheck(b *testing.B) {
	for _, c := range []struct{ capacity, thieves int }{{8, 2}, {4, 1}, {4, 3}, {256, 2}} {
		b.Run(fmt.Sprintf("cap%d/thieves%d", c.capacity, c.thieves), func(b *testing.B) {
			cfg := Config{Capacity: c.capacity, Thieves: c.thieves, Ops: 40, Perturb: impl.HooksEnabled()}
			var hs [][]porcupine.Operation
			ops, conc := 0, 0
			for i := range 500 {
				h, err := RecordRound(cfg, RoundSeed(1, i))
				if err != nil {
					b.Fatal(err)
				}
				hs = append(hs, h)
				ops += len(h)
				conc += Concurrent(h)
			}
			chk, err := NewChecker(c.capacity)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				for _, h := range hs {
					if res, err := chk.Check(h, 0); err != nil || res != porcupine.Ok {
						b.Fatalf("%v %v", res, err)
					}
				}
			}
			b.ReportMetric(float64(ops*b.N)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(100*float64(conc)/float64(ops), "concurrent%")
		})
	}
}
