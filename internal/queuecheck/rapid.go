package queuecheck

import "pgregory.net/rapid"

// RapidSource draws the model's choices from rapid, so that a failing case
// shrinks to a short sequence of named operations.
type RapidSource struct{ T *rapid.T }

// IntRange implements Source.
func (s RapidSource) IntRange(lo, hi int, label string) int {
	return rapid.IntRange(lo, hi).Draw(s.T, label)
}
