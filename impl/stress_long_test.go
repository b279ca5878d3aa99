package impl

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestStressEntryPoint runs Stress (the long tier's entry point) small, and
// shows that a cancelled context makes it say it was cut short.
func TestStressEntryPoint(t *testing.T) {
	runs, err := Stress(context.Background(), StressConfig{Lifecycles: 4000, Procs: []int{1, 2}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 5 { // carrier 1, 2; local 2; handoff 1, 2
		t.Fatalf("%d runs, want 5", len(runs))
	}
	for _, r := range runs {
		if !r.Complete {
			t.Errorf("%v: not complete", r)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Stress(ctx, StressConfig{Lifecycles: 4000, Procs: []int{2}}); !errors.Is(err, ErrStressCut) {
		t.Fatalf("cancelled: err = %v, want ErrStressCut", err)
	}
	// Cut during a run: the Gs alive finish, the checks at quiescence hold.
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Stress(ctx, StressConfig{Lifecycles: 1_000_000, Procs: []int{2}}); !errors.Is(err, ErrStressCut) {
		t.Fatalf("cut short: err = %v, want ErrStressCut", err)
	}
}
