package impl_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/queuecheck"
)

// TestRunqStressConservation runs one owner against 1..3 thieves, 10^6
// owner operations per configuration (the thieves' steals come on top), on a
// ring of 4 that overflows to the global queue often and on the runtime's
// 256: every G put must be taken exactly once.
func TestRunqStressConservation(t *testing.T) {
	for _, c := range []int{4, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			t.Run(fmt.Sprintf("cap%d/thieves%d", c, thieves), func(t *testing.T) {
				res, err := queuecheck.Stress(context.Background(), queuecheck.StressConfig{
					Capacity: c, Thieves: thieves, OwnerOps: 1_000_000, Seed: 42,
				})
				if err != nil {
					t.Fatalf("%v (%+v)", err, res)
				}
				if res.ThiefTakes == 0 {
					t.Fatalf("no thief ever took a G: nothing concurrent was exercised (%+v)", res)
				}
				if c == 4 && res.GlobalTakes == 0 {
					t.Fatalf("the ring of 4 never overflowed to the global queue (%+v)", res)
				}
				t.Logf("%+v", res)
			})
		}
	}
}
