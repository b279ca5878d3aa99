package spec

import "slices"

// The cycle of a printed lasso. A violating component is fair as a whole:
// every fairness family is disabled in one of its states or taken by one of
// its edges. The printed cycle must be fair on its face too, so that a
// reader (or TLC) can check it step by step: every family the component
// meets, the cycle meets. fairGraph holds a component, concrete or of
// representatives, as an explicit graph of family bits (famBits), and
// cycle finds such a cycle in it.

// fairGraph is a strongly connected component: exb[v] are the families
// disabled in node v, edges[v] the edges from v that stay inside.
type fairGraph struct {
	exb   []uint64
	edges [][]fairEdge
}

// fairEdge is an edge inside the component and the families it takes.
type fairEdge struct {
	to   int
	bits uint64
}

// fairHop is one step of a cycle: edge e of node from.
type fairHop struct{ from, e int }

// shortestFairNodes and shortestFairPairs bound the breadth-first search
// over (node, families met) pairs: the component's size and the pairs
// seen. Past them cycle builds its cycle greedily.
const (
	shortestFairNodes = 20_000
	shortestFairPairs = 2_000_000
)

// full is every family the component meets.
func (fg *fairGraph) full() uint64 {
	var f uint64
	for v := range fg.exb {
		f |= fg.exb[v]
		for _, e := range fg.edges[v] {
			f |= e.bits
		}
	}
	return f
}

// cycle is a cycle from start back to start that meets every family the
// component meets (full): the shortest one when the search over (node,
// families met) pairs stays under its limits, else one built greedily,
// each time by a shortest path to the nearest state or edge that meets a
// family not met yet. It is never empty: a component that is a single
// state with no inner edge is a stutter, which the caller prints as such.
func (fg *fairGraph) cycle(start int) []fairHop {
	if c, ok := fg.shortestCycle(start); ok {
		return c
	}
	return fg.greedyCycle(start)
}

// shortestCycle searches the product of the component with the set of
// families met so far, breadth first, for a return to start with every
// family met.
func (fg *fairGraph) shortestCycle(start int) ([]fairHop, bool) {
	if len(fg.exb) > shortestFairNodes {
		return nil, false
	}
	full := fg.full()
	type node struct {
		v    int
		mask uint64
	}
	type prev struct {
		from node
		hop  fairHop
	}
	s := node{start, fg.exb[start]}
	seen := map[node]prev{}
	q := []node{s}
	for len(q) > 0 && len(seen) < shortestFairPairs {
		n := q[0]
		q = q[1:]
		for ei, e := range fg.edges[n.v] {
			w := node{e.to, n.mask | e.bits | fg.exb[e.to]}
			done := w.v == start && w.mask == full
			if _, ok := seen[w]; (ok || w == s) && !done {
				continue
			}
			seen[w] = prev{n, fairHop{n.v, ei}}
			if done {
				var rev []fairHop
				for x := w; ; {
					p := seen[x]
					rev = append(rev, p.hop)
					x = p.from
					if x == s {
						break
					}
				}
				slices.Reverse(rev)
				return rev, true
			}
			q = append(q, w)
		}
	}
	return nil, false
}

// greedyCycle walks from start to the nearest state or edge meeting a
// family not met yet, again and again, then back to start.
func (fg *fairGraph) greedyCycle(start int) []fairHop {
	full := fg.full()
	met := fg.exb[start]
	var hops []fairHop
	cur := start
	take := func(p []fairHop) {
		for _, h := range p {
			e := fg.edges[h.from][h.e]
			met |= e.bits | fg.exb[e.to]
			cur = e.to
		}
		hops = append(hops, p...)
	}
	for met != full {
		want := full &^ met
		take(fg.path(cur, func(e fairEdge) bool { return e.bits&want != 0 || fg.exb[e.to]&want != 0 }))
	}
	if len(hops) == 0 {
		take([]fairHop{{start, 0}})
	}
	take(fg.path(cur, func(e fairEdge) bool { return e.to == start }))
	return hops
}

// path is a shortest path from a whose last edge is one goal accepts (a
// path of one edge at least).
func (fg *fairGraph) path(a int, goal func(e fairEdge) bool) []fairHop {
	prev := map[int]fairHop{a: {-1, -1}}
	q := []int{a}
	for len(q) > 0 {
		v := q[0]
		q = q[1:]
		for ei, e := range fg.edges[v] {
			if goal(e) {
				p := []fairHop{{v, ei}}
				for x := v; x != a; x = prev[x].from {
					p = append(p, prev[x])
				}
				slices.Reverse(p)
				return p
			}
			if _, ok := prev[e.to]; ok {
				continue
			}
			prev[e.to] = fairHop{v, ei}
			q = append(q, e.to)
		}
	}
	panic("spec: no path inside a strongly connected component")
}

// required is every family a fair cycle must meet for the current
// property: each M's, the stopper's, the clock's, and per P sysmon's
// retake, the stop-the-world's preemption and (if the property assumes
// time slices) the slice's.
func (lc *livenessChecker) required() uint64 {
	var f famSet
	for m := 0; m < int(lc.g.proto.nM); m++ {
		f.m[m] = true
	}
	for p := 0; p < int(lc.g.proto.nP); p++ {
		f.retake[p], f.stwPreempt[p], f.slice[p] = true, true, true
	}
	f.stopper, f.tick = true, true
	return lc.famBits(&f)
}

// excusedBits is famBits of the families disabled in s.
func (lc *livenessChecker) excusedBits(s *State) uint64 {
	var f famSet
	lc.excused(s, &f)
	return lc.famBits(&f)
}

// edgeBits is famBits of the families e takes.
func (lc *livenessChecker) edgeBits(e liveEdge) uint64 {
	var f famSet
	e.discharge(&f)
	return lc.famBits(&f)
}
