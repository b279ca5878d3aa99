package queuecheck

import "math/rand/v2"

// A Source supplies the model's choices. IntRange returns a value in
// [lo, hi]; label names the choice for sources that log it (rapid).
type Source interface {
	IntRange(lo, hi int, label string) int
}

// RandSource draws choices from a seeded PRNG.
type RandSource struct{ R *rand.Rand }

// NewRandSource returns a Source seeded with seed.
func NewRandSource(seed uint64) RandSource {
	return RandSource{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// IntRange implements Source.
func (s RandSource) IntRange(lo, hi int, _ string) int { return lo + s.R.IntN(hi-lo+1) }

// ByteSource draws choices from a byte string, as a fuzz target gets them;
// once the bytes run out every choice is lo. Exhausted reports that.
type ByteSource struct {
	b []byte
}

// NewByteSource returns a Source reading b.
func NewByteSource(b []byte) *ByteSource { return &ByteSource{b: b} }

// IntRange implements Source.
func (s *ByteSource) IntRange(lo, hi int, _ string) int {
	if len(s.b) == 0 || hi <= lo {
		return lo
	}
	span := hi - lo + 1
	v := int(s.b[0])
	s.b = s.b[1:]
	if span > 256 {
		if len(s.b) > 0 {
			v = v<<8 | int(s.b[0])
			s.b = s.b[1:]
		}
	}
	return lo + v%span
}

// Exhausted reports whether every byte has been used.
func (s *ByteSource) Exhausted() bool { return len(s.b) == 0 }

func draw(src Source, label string) bool { return src.IntRange(0, 1, label) == 1 }
