package spec

import (
	"testing"

	"pgregory.net/rapid"
)

// checkFairCycle fails unless c is a cycle of fg from start back to start,
// edge by edge, that meets every family fg meets.
func checkFairCycle(t interface {
	Helper()
	Fatalf(string, ...any)
}, fg *fairGraph, start int, c []fairHop) {
	t.Helper()
	if len(c) == 0 {
		t.Fatalf("empty cycle")
	}
	cur, met := start, fg.exb[start]
	for i, h := range c {
		if h.from != cur {
			t.Fatalf("hop %d leaves %d, the cycle is at %d", i, h.from, cur)
		}
		e := fg.edges[h.from][h.e]
		met |= e.bits | fg.exb[e.to]
		cur = e.to
	}
	if cur != start {
		t.Fatalf("the cycle ends at %d, not at %d", cur, start)
	}
	var full uint64 // computed here, not by fg.full
	for v := range fg.exb {
		full |= fg.exb[v]
		for _, e := range fg.edges[v] {
			full |= e.bits
		}
	}
	if met != full {
		t.Fatalf("the cycle meets %#x of %#x", met, full)
	}
}

// A family the component excuses only off the path of its discharging
// edges: the cycle must detour through that state. (The lifted cycle
// under symmetry took the discharging edges alone, and printed a cycle on
// which an M spinning throughout never stepped.)
func TestFairCycleVisitsTheExcusingState(t *testing.T) {
	const a, b = 1, 2
	fg := &fairGraph{
		exb: []uint64{0, 0, b},
		edges: [][]fairEdge{
			{{to: 1, bits: a}, {to: 2}},
			{{to: 0}},
			{{to: 0}},
		},
	}
	for name, cycle := range map[string]func(int) []fairHop{"shortest": fg.cycle, "greedy": fg.greedyCycle} {
		c := cycle(0)
		checkFairCycle(t, fg, 0, c)
		if name == "shortest" && len(c) != 4 {
			t.Errorf("shortest: %d hops, want 4 (0→1→0→2→0)", len(c))
		}
	}
	// A single state with a self-loop is its own cycle.
	self := &fairGraph{exb: []uint64{a}, edges: [][]fairEdge{{{to: 0, bits: b}}}}
	checkFairCycle(t, self, 0, self.cycle(0))
	checkFairCycle(t, self, 0, self.greedyCycle(0))
}

// On random strongly connected graphs (a ring plus random edges, random
// families on states and edges) both searches return a fair cycle, and
// the breadth-first one is never longer than the greedy one.
func TestFairCycleProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(t, "n")
		fams := rapid.IntRange(1, 10).Draw(t, "families")
		bits := func(label string) uint64 {
			var b uint64
			for f := 0; f < fams; f++ {
				if rapid.IntRange(0, 4).Draw(t, label) == 0 {
					b |= 1 << f
				}
			}
			return b
		}
		fg := &fairGraph{exb: make([]uint64, n), edges: make([][]fairEdge, n)}
		for v := 0; v < n; v++ {
			fg.exb[v] = bits("exb")
			fg.edges[v] = append(fg.edges[v], fairEdge{to: (v + 1) % n, bits: bits("ring")})
		}
		for k := rapid.IntRange(0, 2*n).Draw(t, "extra"); k > 0; k-- {
			v := rapid.IntRange(0, n-1).Draw(t, "from")
			fg.edges[v] = append(fg.edges[v], fairEdge{to: rapid.IntRange(0, n-1).Draw(t, "to"), bits: bits("extra")})
		}
		start := rapid.IntRange(0, n-1).Draw(t, "start")
		short, ok := fg.shortestCycle(start)
		if !ok {
			t.Fatalf("the search gave up on %d states", n)
		}
		greedy := fg.greedyCycle(start)
		checkFairCycle(t, fg, start, short)
		checkFairCycle(t, fg, start, greedy)
		if len(short) > len(greedy) {
			t.Fatalf("the shortest cycle has %d hops, the greedy one %d", len(short), len(greedy))
		}
	})
}
