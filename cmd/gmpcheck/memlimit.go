package main

import "runtime/debug"

// limitHeap sets the Go collector's soft memory limit just above an
// explorer memory bound and returns the function that restores the old
// limit. The bound (spec.Options.MaxMemory) counts the explorer's live
// structures; without a limit the collector lets garbage pile up to the
// size of the live heap again (GOGC=100): the index shards' arrays from
// before they doubled, a queue's array before it grew. A fingerprint
// search of issue 18's target under a 20 GiB bound counted 15.2 GiB when
// its 16 index shards doubled together at 402 M orbits, and the process,
// at 24.4 GB, was killed by the kernel instead of stopping inconclusive.
// The margin is the runtime's own memory and a chunk's buffers. A lower
// limit already set (GOMEMLIMIT) is kept.
func limitHeap(bound uint64) (restore func()) {
	limit := int64(min(bound+bound/8+256<<20, 1<<62))
	if bound == 0 || debug.SetMemoryLimit(-1) <= limit {
		return func() {}
	}
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old) }
}
