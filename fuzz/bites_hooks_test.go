//go:build gmpcheck_hooks

package fuzz

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
)

// The fuzz targets' self-tests: with each seeded bug switched on, the check
// a target runs must reject some input, found here by the same kind of
// random bytes the fuzzer starts from (a fixed PRNG, so the test is
// repeatable). `go test -fuzz` finds them too; docs/performance.md lists how
// fast.

func withBug(t *testing.T, b impl.Bug) {
	t.Helper()
	if err := impl.SetSeededBug(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = impl.SetSeededBug(impl.NoBug) })
}

// TestInterleavingTargetBites: FuzzRunQueueInterleaving's check finds every
// seeded queue bug within a few thousand random inputs.
func TestInterleavingTargetBites(t *testing.T) {
	const tries = 20000
	for _, bug := range impl.Bugs {
		t.Run(string(bug), func(t *testing.T) {
			withBug(t, bug)
			r := rand.New(rand.NewPCG(1, uint64(len(bug))))
			for i := range tries {
				data := randomBytes(r, 1+r.IntN(48))
				if err := runInterleaving(data); err != nil {
					t.Logf("found after %d inputs: %.200s", i+1, err)
					return
				}
			}
			t.Fatalf("seeded bug %s survived %d random inputs", bug, tries)
		})
	}
}

// TestOpsTargetBites: the sequential target finds the seeded bugs that show
// without concurrency; the others (a missing CAS, a publication order, a
// missing re-read) need an interleaving, which is the other targets' job.
func TestOpsTargetBites(t *testing.T) {
	const tries = 20000
	for _, bug := range []impl.Bug{impl.BugStealHalfDown, impl.BugPutSlowDropsG} {
		t.Run(string(bug), func(t *testing.T) {
			withBug(t, bug)
			r := rand.New(rand.NewPCG(2, uint64(len(bug))))
			for i := range tries {
				if err := runQueueOps(randomBytes(r, 1+r.IntN(64))); err != nil {
					t.Logf("found after %d inputs: %.200s", i+1, err)
					return
				}
			}
			t.Fatalf("seeded bug %s survived %d random inputs", bug, tries)
		})
	}
}

// TestSchedulerTargetBites: a lost G (runqputslow dropping the G it puts)
// breaks FuzzScheduler's invariant that a runnable G is on a run queue; the
// committed seed spawn-overflow shows it.
func TestSchedulerTargetBites(t *testing.T) {
	data := seedInput(t, "testdata/fuzz/FuzzScheduler/seed-spawn-overflow")
	withBug(t, impl.NoBug)
	if err := runScheduler(data); err != nil {
		t.Fatalf("the seed fails on the correct scheduler: %v", err)
	}
	withBug(t, impl.BugPutSlowDropsG)
	if err := runScheduler(data); err == nil {
		t.Fatal("seeded bug putslow-drops-g: the scheduler workload passed")
	} else {
		t.Logf("found: %.200s", err)
	}
}

func seedInput(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := parseCorpusFile(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}
