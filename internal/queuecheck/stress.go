package queuecheck

import (
	"context"
	"fmt"

	"github.com/gmpcheck/gmpcheck/internal/rtq/harness"
	"github.com/gmpcheck/gmpcheck/spec"
)

// StressConfig sizes one conservation stress run.
type StressConfig struct {
	Capacity int    // the owner's ring; small capacities overflow to the global queue
	Thieves  int    // concurrent thieves, each with its own queue
	OwnerOps int    // owner operations (put, put next, get, global take)
	Seed     uint64 // the owner's and thieves' choices
}

// StressResult counts where the Gs went: taken by the owner's gets, by
// thieves, from the global queue (during the run or after it), or left in
// the owner's queue at the end.
type StressResult = harness.StressResult

// Stress runs one owner (put, put next, get, and occasional takes from the
// global queue) against cfg.Thieves thieves stealing from it without pause,
// then takes whatever is left. Every G put must be taken exactly once: by
// the owner, by a thief, from the global queue, or at the end. A duplicate
// shows a broken CAS; a loss shows a broken overflow or publication. It
// returns an error naming the first G taken twice or never, or a steal that
// never returns (a livelock on a broken queue), or the context's error if
// ctx ended first (then nothing was decided).
//
// The run is harness.Stress, the same check gmpcheck runtime runs on a Go
// release's own run-queue code, here over impl's queues (harness.Impl).
func Stress(ctx context.Context, cfg StressConfig) (StressResult, error) {
	if cfg.Thieves < 1 {
		return StressResult{}, fmt.Errorf("queuecheck: stress needs at least one thief, got %d", cfg.Thieves)
	}
	if err := spec.ValidQueueCap(cfg.Capacity); err != nil {
		return StressResult{}, fmt.Errorf("queuecheck: %w", err)
	}
	return harness.Stress(ctx, harness.Impl(cfg.Capacity), cfg.Thieves, cfg.OwnerOps, cfg.Seed)
}
