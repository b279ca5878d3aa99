//go:build !gmpcheck_hooks

package interleave

import (
	"context"
	"errors"
	"testing"
)

// Without the build tag there are no yield points: the explorer must say
// so, not run the queue code unsupervised and report a pass.
func TestNoHooksIsAnError(t *testing.T) {
	sc := Scenarios()[0]
	if _, err := Run(&sc, Follow(nil), RunOptions{}); !errors.Is(err, ErrNoHooks) {
		t.Errorf("Run: %v, want ErrNoHooks", err)
	}
	r, err := Explore(context.Background(), &sc, DefaultOptions())
	if !errors.Is(err, ErrNoHooks) || r.Complete || r.Executions != 0 {
		t.Errorf("Explore: %v, %v; want ErrNoHooks and nothing explored", r, err)
	}
}
