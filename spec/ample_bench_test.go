package spec

import (
	"bytes"
	"context"
	"slices"
	"testing"
)

// BenchmarkAmpleEstimate measures how far an ample-set partial-order
// reduction could shrink the graph of this model, to decide whether one is
// worth building (issue 18: the every-mechanism model at Ps=3 outgrows 2
// cores). It explores the graph without symmetry three times: whole (its
// count must be Explore's), then twice expanding in each state only the
// enabled actions of one M whose every action there commutes with every
// action another actor (another M, sysmon, netpoll, the clock, the
// stopper) can take there: both orders defined and ending in the same
// state. That local diamond is necessary for an ample set (condition C1
// also asks it of the actions the others can take later, before the M
// moves), so the estimate is optimistic: it checks no future and, in its
// "no-proviso" run, no cycle proviso either, so that run is unsound and
// only says what an ample-set reduction could at best remove. The
// "bfs-proviso" run adds the proviso a breadth-first search can check
// (expand fully when an ample successor was already found), the one this
// explorer's parallel search could use.
//
//	go test ./spec -run '^$' -bench AmpleEstimate -benchtime 1x
func BenchmarkAmpleEstimate(b *testing.B) {
	for _, c := range estimateBounds {
		for _, mode := range []ampleMode{ampleOff, ampleNoProviso, ampleBFSProviso} {
			b.Run(c.name+"/"+mode.String(), func(b *testing.B) {
				md, err := NewModel(c.b)
				if err != nil {
					b.Fatal(err)
				}
				var n, reduced int
				for i := 0; i < b.N; i++ {
					n, reduced = ampleSearch(&md, mode)
				}
				if mode == ampleOff {
					r, err := Explore(context.Background(), c.b, Options{Workers: 1})
					if err != nil || r.Distinct != n {
						b.Fatalf("the whole search found %d states, Explore %d (%v)", n, r.Distinct, err)
					}
				}
				b.ReportMetric(float64(n), "states")
				b.ReportMetric(float64(reduced), "reduced-states")
			})
		}
	}
}

// estimateBounds are the models the reduction estimates explore whole,
// without symmetry: the verify bound (Ps=2) and a Ps=3 model of about the
// same size (SchedTick 1 and no syscalls keep it there).
var estimateBounds = []estimateModel{
	{"verify-P2M3G2S1-netpoll", VerifyBounds()},
	{"P3M3G2S1-tick1", Bounds{Ps: 3, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1}},
}

type estimateModel struct {
	name string
	b    Bounds
}

type ampleMode int

const (
	ampleOff        ampleMode = iota // every enabled action
	ampleNoProviso                   // the local-diamond ample set wherever there is one
	ampleBFSProviso                  // and only when all its successors are new
)

func (m ampleMode) String() string {
	return [...]string{"full", "no-proviso", "bfs-proviso"}[m]
}

// ampleActor names who takes a: the M, or one of the external actors.
func ampleActor(a Action) int {
	switch {
	case a.Kind == ActInjectGList || a.Kind == ActNetpollReady:
		return MaxMs // netpoll
	case a.Kind == ActTimerTick:
		return MaxMs + 1 // the clock
	case a.Kind.stopper():
		return MaxMs + 2
	case a.Kind.external():
		return MaxMs + 3 // sysmon
	}
	return int(a.M)
}

// ampleSearch explores md breadth-first in the given mode and returns the
// number of states found and how many of them were expanded with a reduced
// set of actions.
func ampleSearch(md *Model, mode ampleMode) (states, reduced int) {
	init := md.Init()
	seen := map[string]struct{}{init.Key(): {}}
	queue := []State{init}
	var buf []byte
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		states++
		en := md.appendEnabled(nil, &s)
		next := make([]State, len(en))
		ok := make([]bool, len(en))
		for i, a := range en {
			next[i] = s
			_, err := md.step(&next[i], a)
			ok[i] = err == nil
		}
		use := -1 // the actor whose actions are expanded, or -1 for all
		if mode != ampleOff {
			use = ampleLocalDiamond(md, en, next, ok)
			if use >= 0 && mode == ampleBFSProviso {
				for i, a := range en {
					if ampleActor(a) == use && ok[i] && ampleSeen(seen, next[i].AppendKey(buf[:0])) {
						use = -1
						break
					}
				}
			}
			if use >= 0 {
				reduced++
			}
		}
		for i, a := range en {
			if !ok[i] || use >= 0 && ampleActor(a) != use {
				continue
			}
			buf = next[i].AppendKey(buf[:0])
			if !ampleSeen(seen, buf) {
				seen[string(buf)] = struct{}{}
				queue = append(queue, next[i])
			}
		}
	}
	return states, reduced
}

// ampleLocalDiamond returns the M with the fewest enabled actions (the
// lowest such M), fewer than all, whose every action commutes in this
// state with every action of the other actors (next[i] is en[i]'s
// successor, ok[i] whether it has one), or -1 if there is none.
func ampleLocalDiamond(md *Model, en []Action, next []State, ok []bool) int {
	d := diamond{md: md, en: en, next: next, ok: ok, after: make([][]Action, len(en))}
	best, bestN := -1, len(en)
	var counts [MaxMs + 4]int
	for _, a := range en {
		counts[ampleActor(a)]++
	}
	for m, k := range counts[:MaxMs] {
		if k == 0 || k >= bestN || !d.commutes(m) {
			continue
		}
		best, bestN = m, k
	}
	return best
}

// diamond checks commutation in one state; after[i] caches the actions
// enabled in next[i].
type diamond struct {
	md       *Model
	en       []Action
	next     []State
	ok       []bool
	after    [][]Action
	kab, kba []byte
}

// commutes reports whether every action of actor m commutes with every
// action of the others.
func (d *diamond) commutes(m int) bool {
	for i, a := range d.en {
		if ampleActor(a) != m {
			continue
		}
		for j, o := range d.en {
			if ampleActor(o) == m {
				continue
			}
			if !d.ok[i] || !d.ok[j] || !slices.Contains(d.enabledAfter(i), o) || !slices.Contains(d.enabledAfter(j), a) {
				return false
			}
			ab, ba := d.next[i], d.next[j]
			_, e1 := d.md.step(&ab, o)
			_, e2 := d.md.step(&ba, a)
			if e1 != nil || e2 != nil {
				return false
			}
			d.kab, d.kba = ab.AppendKey(d.kab[:0]), ba.AppendKey(d.kba[:0])
			if !bytes.Equal(d.kab, d.kba) {
				return false
			}
		}
	}
	return true
}

func (d *diamond) enabledAfter(i int) []Action {
	if d.after[i] == nil {
		d.after[i] = d.md.appendEnabled([]Action{}, &d.next[i])
	}
	return d.after[i]
}

func ampleSeen(seen map[string]struct{}, key []byte) bool {
	_, ok := seen[string(key)]
	return ok
}
