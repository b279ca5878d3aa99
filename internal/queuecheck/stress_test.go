package queuecheck

import (
	"context"
	"testing"
	"time"
)

func TestFinishWithin(t *testing.T) {
	if !finishWithin(time.Minute, func() {}) {
		t.Fatal("a function that returns at once was reported stuck")
	}
	block := make(chan struct{})
	defer close(block) // let the abandoned goroutine end with the test
	if finishWithin(10*time.Millisecond, func() { <-block }) {
		t.Fatal("a function that never returns was reported finished")
	}
}

// TestStressCorrectQueue: on the correct queue the stress conserves every
// G and the thieves really take some (a short run; the full one is impl's
// TestRunqStressConservation).
func TestStressCorrectQueue(t *testing.T) {
	res, err := Stress(context.Background(), StressConfig{Capacity: 4, Thieves: 2, OwnerOps: 20_000, Seed: 1})
	if err != nil {
		t.Fatalf("%v (%+v)", err, res)
	}
	if res.Puts == 0 || res.ThiefTakes == 0 {
		t.Fatalf("nothing exercised: %+v", res)
	}
}
