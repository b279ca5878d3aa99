//go:build gmpcheck_hooks

package fuzz

import (
	"math/rand/v2"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// TestSchedulerSpecTargetBites: with each of the spec's seeded bugs built
// into the real scheduler, FuzzSchedulerSpec's check rejects some input
// among a fixed set of random ones.
func TestSchedulerSpecTargetBites(t *testing.T) {
	const tries = 3000
	for _, bug := range spec.Bugs() {
		t.Run(bug.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(bug)))
			for i := range tries {
				if err := impl.CheckSeededAgainstSpec(&byteChooser{b: randomBytes(r, 400)}, bug, maxSpecSteps); err != nil {
					t.Logf("found after %d inputs: %.200s", i+1, err)
					return
				}
			}
			t.Fatalf("seeded bug %v survived %d random inputs", bug, tries)
		})
	}
}

// randomBytes is n bytes from r: the kind of input the fuzzer starts from,
// repeatable for the bite tests.
func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}
