package fuzz

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/queuecheck"
)

// maxOps bounds one input's operations, so a long input stays fast.
const maxOps = 200

// FuzzRunQueueOps reads a capacity (first byte: 2, 4 or 8) and then a
// sequence of operations from the bytes: puts (with and without next),
// put bursts that overflow to the global queue, batch puts, gets, steals
// between the two Ps, drains, runqempty, and global puts and gets. Each runs
// on the real queues and on spec/'s values; results and whole contents must
// agree after every operation.
func FuzzRunQueueOps(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := runQueueOps(data); err != nil {
			t.Fatal(err)
		}
	})
}

func runQueueOps(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	capacity := []int{2, 4, 8}[int(data[0])%3]
	m, err := queuecheck.NewModel(capacity)
	if err != nil {
		return err
	}
	src := queuecheck.NewByteSource(data[1:])
	var trail []string
	for i := 0; i < maxOps && !src.Exhausted(); i++ {
		name, err := m.Step(src)
		trail = append(trail, name)
		if errors.Is(err, queuecheck.ErrSkip) {
			continue
		}
		if err != nil {
			return fmt.Errorf("capacity %d, operation %d (%s): %v\noperations: %v", capacity, i, name, err, trail)
		}
	}
	return nil
}
