package impl

import (
	"context"
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

var stressLifecycles = flag.Int("impl.stress", 0, "G lifecycles for TestStress over all Procs (default 10^6, with or without -race; 2*10^4 with -short)")

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
// goleak: each run of the carrier mix gets a quarter of the 10^6
// lifecycles; the local mix (no Gosched: work spreads by stealing, not
// through the global queue) as many at each Procs but 1; the hand-off shell
// (the same scheduler code) a tenth. The seed is logged.
func TestStress(t *testing.T) {
	defer goleak.VerifyNone(t)
	total := 1_000_000
	switch {
	case *stressLifecycles > 0:
		total = *stressLifecycles
	case testing.Short():
		total = 20_000
	}
	seed := rand.Uint64() | 1
	t.Logf("seed %d", seed)
	if _, err := Stress(context.Background(), StressConfig{Lifecycles: total, Procs: []int{1, 2, 4, 8}, Seed: seed, Log: logWriter{t}}); err != nil {
		t.Fatal(err)
	}
}
