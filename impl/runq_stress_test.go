package impl_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/queuecheck"
)

var runqStressOps = flag.Int("impl.runqstress", 0, "owner operations per configuration of TestRunqStressConservation (default 2.5*10^5; 10^6 with GMPCHECK_LONG=1)")

// TestRunqStressConservation runs one owner against 1..3 thieves on a ring
// of 4 that overflows to the global queue often and on the runtime's 256:
// every G put must be taken exactly once. The default tier gives each
// configuration 2.5*10^5 owner operations (the thieves' steals come on
// top), the long tier (GMPCHECK_LONG=1, which .ci/run sets for this test
// under -race, the mutation campaigns' stress technique, and gmpcheck
// verify -long's stress stage without the detector) 10^6: at 10^6 the six
// configurations took 45 s of the README's test command under -race. As
// with TestStress, a quarter of the operations takes every path of the
// queue thousands of times in each configuration, so the detector sees the
// same accesses; the long run adds interleavings for the conservation
// check.
func TestRunqStressConservation(t *testing.T) {
	ops := 250_000
	switch {
	case *runqStressOps > 0:
		ops = *runqStressOps
	case os.Getenv("GMPCHECK_LONG") == "1":
		ops = 1_000_000
	}
	for _, c := range []int{4, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			t.Run(fmt.Sprintf("cap%d/thieves%d", c, thieves), func(t *testing.T) {
				res, err := queuecheck.Stress(context.Background(), queuecheck.StressConfig{
					Capacity: c, Thieves: thieves, OwnerOps: ops, Seed: 42,
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
