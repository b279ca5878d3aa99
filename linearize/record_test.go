package linearize

import (
	"context"
	"fmt"
	"testing"

	"github.com/anishathalye/porcupine"
)

// TestRealHistoriesLinearizable records rounds of the real queue for every
// capacity and thief count the issue names and checks each.
func TestRealHistoriesLinearizable(t *testing.T) {
	rounds := 150
	if testing.Short() {
		rounds = 30
	}
	for _, capacity := range []int{4, 8, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			t.Run(fmt.Sprintf("cap%d/thieves%d", capacity, thieves), func(t *testing.T) {
				rep, err := Run(context.Background(), RunConfig{
					Config: Config{Capacity: capacity, Thieves: thieves, Ops: 40},
					Rounds: rounds,
					Seed:   uint64(capacity*10 + thieves),
					HTML:   t.TempDir() + "/violation.html",
				})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Result != porcupine.Ok {
					t.Fatalf("%v\nvisualization: %s\nhistory:\n%s", rep, rep.HTML, formatHistory(rep.History))
				}
				if rep.Rounds != rounds || rep.Ops < rounds*40 {
					t.Fatalf("checked %d rounds / %d ops, want %d rounds of at least 40 ops", rep.Rounds, rep.Ops, rounds)
				}
				t.Log(rep)
			})
		}
	}
}
