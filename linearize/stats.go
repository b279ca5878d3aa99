package linearize

import (
	"sort"

	"github.com/anishathalye/porcupine"
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
