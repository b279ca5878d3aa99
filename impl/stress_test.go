package impl

import (
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

var stressLifecycles = flag.Int("impl.stress", 0, "G lifecycles for TestStress over all Procs (default 2.5*10^5; 10^6 with GMPCHECK_LONG=1; 2*10^4 with -short)")

// quiesce fails t unless s is quiescent (Sched.checkQuiescent).
func quiesce(t testing.TB, s *Sched) {
	t.Helper()
	if err := s.checkQuiescent(); err != nil {
		t.Fatal(err)
	}
}

// logWriter sends each line written to it to t.Log.
type logWriter struct{ t testing.TB }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// TestStress runs Stress at Procs 1, 2, 4, 8 under the race detector and
// goleak: each run of the carrier mix gets a quarter of the lifecycles;
// the local mix (no Gosched: work spreads by stealing, not through the
// global queue) as many at each Procs but 1; the hand-off shell (the same
// scheduler code) a tenth. The seed is logged.
//
// The default tier runs 2.5*10^5 lifecycles, the long tier
// (GMPCHECK_LONG=1, which .ci/run sets for this test under -race, and
// gmpcheck verify -long's stress stage) 10^6: at 10^6 the test took 86
// CPU-s of the README's test command. The race detector reports two
// accesses unordered by happens-before whenever both occur in a run, not
// only when they collide, so a quarter of the lifecycles, each path of the
// mix taken thousands of times at every Procs, leaves it the same accesses
// to see; what the long run adds is more interleavings for the
// conservation checks.
func TestStress(t *testing.T) {
	defer goleak.VerifyNone(t)
	total := 250_000
	switch {
	case *stressLifecycles > 0:
		total = *stressLifecycles
	case testing.Short():
		total = 20_000
	case os.Getenv("GMPCHECK_LONG") == "1":
		total = 1_000_000
	}
	seed := rand.Uint64() | 1
	t.Logf("seed %d", seed)
	if _, err := Stress(context.Background(), StressConfig{Lifecycles: total, Procs: []int{1, 2, 4, 8}, Seed: seed, Log: logWriter{t}}); err != nil {
		t.Fatal(err)
	}
}
