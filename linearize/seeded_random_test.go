//go:build gmpcheck_hooks && !race

package linearize

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
)

// This test is left out of -race builds: a seeded bug that hands one G to
// two goroutines makes both link it into their GQueues (schedlink), which
// the race detector rightly reports before porcupine gets to say Illegal.
// The directed scenarios of seeded_hooks_test.go run under -race too.

// TestSeededBugsRandomRounds: random perturbed rounds, with no interleaving
// forced, also find every seeded bug. Measured on two busy cores (60 runs):
// the CAS and publication bugs within a few rounds, putslow-drops-g within a
// few dozen, empty-no-recheck (which needs a put with next and a get to land
// between a reader's two loads) after a median of about 450 rounds and at
// worst 2690. The budget is several times the worst seen; the run stops at
// the first Illegal, so it costs only when a bug goes unfound.
func TestSeededBugsRandomRounds(t *testing.T) {
	for _, bug := range impl.Bugs {
		t.Run(string(bug), func(t *testing.T) {
			setBug(t, bug)
			rep, err := Run(context.Background(), RunConfig{
				Config: Config{Capacity: 4, Thieves: 2, Ops: 40, Perturb: true},
				Rounds: SeededBugRounds,
				Seed:   1,
				HTML:   filepath.Join(t.TempDir(), "violation.html"),
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Result != porcupine.Illegal {
				t.Fatalf("seeded bug %s not found: %v", bug, rep)
			}
			if _, err := os.Stat(rep.HTML); err != nil {
				t.Fatalf("visualization: %v (%v)", err, rep.HTMLErr)
			}
			t.Logf("found in round %d", rep.FailedRound)
		})
	}
}
