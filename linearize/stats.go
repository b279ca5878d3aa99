package linearize

import (
	"sort"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Concurrent counts the operations of h whose interval overlaps an
// operation of another client: a history with none is sequential and says
// nothing about concurrency, so runs report this figure alongside the
// verdict.
func Concurrent(h []porcupine.Operation) int {
	ops := append([]porcupine.Operation(nil), h...)
	sort.Slice(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	overlap := make([]bool, len(ops))
	for i := range ops {
		for j := i + 1; j < len(ops) && ops[j].Call <= ops[i].Return; j++ {
			if ops[j].ClientId != ops[i].ClientId {
				overlap[i], overlap[j] = true, true
			}
		}
	}
	n := 0
	for _, o := range overlap {
		if o {
			n++
		}
	}
	return n
}

// Overflowed reports whether a G reached the global queue in h: the only way
// there is runqputslow's spill of a full ring, and a round ends by taking
// the global queue until it is empty, so a spill always shows as a GlobGet
// that obtained a G.
func Overflowed(h []porcupine.Operation) bool {
	for _, op := range h {
		if in, ok := op.Input.(Input); ok && in.Kind == KindGlobGet {
			if out, ok := op.Output.(Output); ok && out.G != spec.NoG {
				return true
			}
		}
	}
	return false
}
