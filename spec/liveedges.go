package spec

import (
	"context"
	"fmt"
	"math"
)

// The liveness pass walks the graph once per property (and, on the pair
// graph, once per tracked G), and then again over the members of each
// component; the graph stores no edges, so each walk re-stepped every
// bad state and looked its successors up, which was five sixths of the
// pass. liveEdges computes those edges once per pass, on the search's
// workers: for every state bad for some property checked, its successors
// that are bad for some property too, with what the properties need of
// each edge (the action, the P whose time slice it starts, and under G
// symmetry the renumbering of Gs the successor's representative took).
// succ then filters them for the property at hand. The successors'
// numbers come from the search's log where it kept them (succlog.go);
// past it they are looked up.

// cachedEdge is an edge between two states bad for some property.
type cachedEdge struct {
	to uint32
	// label is, under G symmetry, the representative's number of each
	// G of the source's frame: 4 bits per G, G g at bits 4(g-1).
	label  uint32
	kind   ActionKind
	m, p   int8
	freshP int8
}

// cachedEdgeBytes is what one cached edge costs (livenessBytes).
const cachedEdgeBytes = 12

// liveEdges holds every worker's edges, each for a contiguous range of
// states: state v's edges are parts[v/per][start:end[v]], where start is
// end[v-1] within the range and 0 at its first state.
type liveEdges struct {
	per   int
	parts [][]cachedEdge
	end   []uint32
}

func (le *liveEdges) of(v uint32) []cachedEdge {
	w := int(v) / le.per
	start := uint32(0)
	if int(v) > w*le.per {
		start = le.end[v-1]
	}
	return le.parts[w][start:le.end[v]]
}

// labelOf is the representative's number of G x (the tracked G in the
// source's frame).
func (e *cachedEdge) labelOf(x GID) GID { return GID(e.label>>(4*(uint32(x)-1))) & 0xf }

// buildEdges computes the edges among the states whose bad bits meet
// mask. It returns nil if ctx ended first, or if a worker's edges
// overflow its 32-bit ends (the pass then steps states as it walks).
func (lg *liveGraph) buildEdges(ctx context.Context, workers int, mask uint32) *liveEdges {
	g := lg.g
	n := len(lg.bad)
	w, per := stateRanges(n, workers)
	le := &liveEdges{per: per, parts: make([][]cachedEdge, w), end: make([]uint32, n)}
	ok := make([]bool, w)
	inRanges(n, w, per, func(k, lo, hi int) {
		var out []cachedEdge
		var acts []Action
		var buf []byte
		var ids []uint32
		var s State
		cur := g.succ.from(lo)
		for v := lo; v < hi; v++ {
			if v&0x3ff == 0 && ctx.Err() != nil {
				return
			}
			bad := lg.bad[v]&mask != 0
			var recorded bool
			ids, recorded = cur.next(ids[:0], bad)
			if bad {
				g.stateInto(&s, uint32(v))
				acts = g.md.appendEnabled(acts[:0], &s)
				if recorded && len(ids) != len(acts) {
					panic(fmt.Sprintf("spec: state %d has %d enabled actions and %d recorded successors", v, len(acts), len(ids)))
				}
				for j, a := range acts {
					// The search's number for the successor, if it kept
					// it: an edge that leaves the bad states is not
					// stepped at all.
					id := noSucc
					if recorded {
						if id = ids[j]; id == noSucc || lg.bad[id]&mask == 0 {
							continue
						}
					}
					ns := s
					info, err := g.md.step(&ns, a)
					if err != nil {
						continue
					}
					var label uint32
					if g.gsym {
						rep, _, l := g.canon(&ns)
						for x := 1; x <= int(s.nG); x++ {
							label |= uint32(l[x]) << (4 * (x - 1))
						}
						ns = rep // canonKey would canonicalize it again
					}
					if !recorded {
						if g.gsym {
							buf = ns.AppendKey(buf[:0])
						} else {
							buf = g.canonKey(buf[:0], &ns)
						}
						var found bool
						if id, found = g.seen.lookup(buf); !found || lg.bad[id]&mask == 0 {
							continue
						}
					}
					out = append(out, cachedEdge{to: id, label: label, kind: a.Kind, m: a.M, p: a.P, freshP: info.freshP})
				}
			}
			if len(out) > math.MaxUint32 {
				return
			}
			le.end[v] = uint32(len(out))
		}
		le.parts[k] = out
		ok[k] = true
	})
	for _, o := range ok {
		if !o {
			return nil
		}
	}
	return le
}

// propMask is the bad bits of the properties checked.
func propMask(props []livenessProp, nG int) uint32 {
	var m uint32
	for _, pr := range props {
		switch {
		case pr.pair && pr.kind == KindTimerStuck:
			for x := 1; x <= nG; x++ {
				m |= 1 << (timerBit + x)
			}
		case pr.pair:
			for x := 1; x <= nG; x++ {
				m |= 1 << x
			}
		default:
			m |= propBit(pr)
		}
	}
	return m
}
