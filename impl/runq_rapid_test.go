package impl_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/queuecheck"
	"pgregory.net/rapid"
)

// TestRunqMatchesSpec is the rapid state machine of the run queues: the real
// local and global queues, driven one operation at a time, must agree with
// spec/ on every return value and on their whole contents after every
// action, at the capacities 2, 4, 8 and the runtime's 256.
func TestRunqMatchesSpec(t *testing.T) {
	for _, c := range []int{2, 4, 8, 256} {
		t.Run(fmt.Sprintf("cap%d", c), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				m, err := queuecheck.NewModel(c)
				if err != nil {
					t.Fatal(err)
				}
				actions := map[string]func(*rapid.T){
					"": func(t *rapid.T) {
						if err := m.Check(); err != nil {
							t.Fatal(err)
						}
					},
				}
				for _, a := range queuecheck.Actions {
					actions[a.Name] = func(t *rapid.T) {
						err := a.Run(m, queuecheck.RapidSource{T: t})
						if errors.Is(err, queuecheck.ErrSkip) {
							t.Skip(err)
						}
						if err != nil {
							t.Fatal(err)
						}
					}
				}
				t.Repeat(actions)
			})
		})
	}
}
