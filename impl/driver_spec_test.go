package impl

import (
	"math/rand/v2"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"pgregory.net/rapid"
)

type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) Intn(n int, label string) int { return rapid.IntRange(0, n-1).Draw(c.t, label) }

func newRandChooser(a, b uint64) Chooser { return RandChooser(rand.New(rand.NewPCG(a, b))) }

// TestDriverMatchesSpec is the rapid state-machine test: the real
// scheduler's decision code, stepped by the Driver, stays equal to the
// executable spec after every action.
func TestDriverMatchesSpec(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		if err := CheckAgainstSpec(rapidChooser{t}, 80); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDriverMatchesSpecLong runs many more (unshrinkable) random traces
// than rapid's default 100, and requires every action of the schedule loop
// to have been compared at least once: the impl takes findRunnable's finer
// steps (the spinning-limit decision, each steal victim, the release, the
// nmspinning drop, each recheck, needspinning) one at a time, as the spec
// does.
func TestDriverMatchesSpecLong(t *testing.T) {
	n := 20000
	if testing.Short() || raceEnabled {
		n = 3000 // the race detector adds nothing here: no goroutines
	}
	c := newRandChooser(7, 11)
	count := make([]int, len(spec.ActionKinds()))
	seen := func(a spec.Action) { count[a.Kind]++ }
	missing := func() bool {
		for _, k := range spec.ActionKinds() {
			if count[k] == 0 && k.InGo126() && !k.Poll() {
				return true
			}
		}
		return false
	}
	// The rarest actions (injectglist's split between the global queue
	// and idle Ps) need a few particular draws in a row: if n traces have
	// not compared one, go on, up to 4n.
	traces := 0
	for ; traces < n || (missing() && traces < 4*n); traces++ {
		if err := checkAgainstSpec(c, spec.BugNone, false, 200, seen); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range spec.ActionKinds() {
		if count[k] == 0 && k.InGo126() && !k.Poll() { // the poll kinds: TestDriverMatchesSpecPollLong
			t.Errorf("no %v compared in %d traces", k, traces)
		}
	}
	t.Logf("actions compared in %d traces: %v", traces, count)
}

// TestDriverSeesNeedSpinning is the self-test for sched.needspinning: the
// impl run as Go 1.19 (no needspinning) against the Go 1.26 spec, and the
// other way round, must diverge.
func TestDriverSeesNeedSpinning(t *testing.T) {
	c := newRandChooser(3, 5)
	for i := range 3000 {
		if err := checkAgainstSpec(c, spec.BugNone, true, 200, nil); err != nil {
			t.Logf("caught after %d traces: %.400s", i+1, err)
			return
		}
	}
	t.Fatal("an impl without needspinning was not told apart from the spec with it in 3000 traces")
}
