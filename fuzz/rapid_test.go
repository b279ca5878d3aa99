package fuzz

import (
	"errors"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/queuecheck"
	"pgregory.net/rapid"
)

// runQueueModel is the differential model driven by rapid's generators:
// as a fuzz target, coverage guidance steers rapid's choices, and a failure
// shrinks to a short sequence of named operations.
func runQueueModel(t *rapid.T) {
	capacity := rapid.SampledFrom([]int{2, 4, 8}).Draw(t, "capacity")
	m, err := queuecheck.NewModel(capacity)
	if err != nil {
		t.Fatal(err)
	}
	src := queuecheck.RapidSource{T: t}
	for range rapid.IntRange(1, 60).Draw(t, "ops") {
		name, err := m.Step(src)
		if errors.Is(err, queuecheck.ErrSkip) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// FuzzRapidRunQueue is runQueueModel as a fuzz target.
func FuzzRapidRunQueue(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(runQueueModel))
}

// TestRapidRunQueue runs the same property with rapid's own generator, so
// the default `go test` exercises it beyond the seed corpus.
func TestRapidRunQueue(t *testing.T) {
	rapid.Check(t, runQueueModel)
}
