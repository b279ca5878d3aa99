package impl

import (
	"context"
	"errors"
	"io"
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

// TestUntilStolen shows that a local run that never stole is made again,
// and that one whose every attempt misses the steal fails.
func TestUntilStolen(t *testing.T) {
	for _, tc := range []struct {
		misses    int // attempts that never steal before one that does
		wantCalls int
		wantErr   bool
	}{
		{misses: 0, wantCalls: 1},
		{misses: neverStoleAttempts - 1, wantCalls: neverStoleAttempts},
		{misses: neverStoleAttempts, wantCalls: neverStoleAttempts, wantErr: true},
		{misses: 1 << 20, wantCalls: neverStoleAttempts, wantErr: true},
	} {
		calls := 0
		_, err := untilStolen(io.Discard, func() (StressRun, error) {
			calls++
			if calls <= tc.misses {
				return StressRun{Variant: "local"}, errNeverStole
			}
			return StressRun{Variant: "local"}, nil
		})
		if calls != tc.wantCalls || errors.Is(err, errNeverStole) != tc.wantErr {
			t.Errorf("%d misses: %d calls, err %v; want %d calls, error %v", tc.misses, calls, err, tc.wantCalls, tc.wantErr)
		}
	}
	// Another failure is not retried.
	calls := 0
	boom := errors.New("lifecycle 3 finished 2 times")
	if _, err := untilStolen(io.Discard, func() (StressRun, error) { calls++; return StressRun{}, boom }); calls != 1 || err != boom {
		t.Errorf("other failure: %d calls, err %v; want 1 call and it", calls, err)
	}
}
