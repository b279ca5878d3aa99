package interleave

import (
	"slices"

	"github.com/gmpcheck/gmpcheck/impl"
)

// Dependence of steps, for DPOR.
//
// A step's access is a read or a write of one word: a ring's head, tail or
// runnext, the ring's slots (taken together: the yield point does not say
// which slot, and treating them as one word only adds orders to explore),
// or the global queue (its lock). Two steps of different actors are
// dependent when they access the same word and one writes (a CAS counts as
// a write even when it fails). The accesses a step makes without a yield
// point (the owner's reads of its own tail and slots, which only it writes)
// commute with every other actor's steps.
//
// With Options.WindowOrders, a step that is the first or the last access of
// a call is also a write of one more word, "the history". The
// linearizability check orders calls by those steps (a call's window), and
// two classes-equivalent schedules can order two windows differently when
// the steps bounding them commute; making them dependent explores every
// order of windows the code can produce, so that linearizability is checked
// under every real-time order, at a price of 10-100 times more schedules.
// Without it, each class is checked under the real-time order of the one
// schedule run for it, which always contains the order of dependent steps.

type word uint8

const (
	wordHead word = iota
	wordTail
	wordSlots
	wordRunnext
	wordLock
	// wordJoin is a Join step: it depends on every step of the actor it
	// waits for (access.obj), whose end it observes.
	wordJoin
	// wordAny is an access this package does not know (an Op added to impl
	// without a case in accessOf): dependent with every step, so the
	// reduction stays sound, if less effective, until it gets its case.
	wordAny
)

type access struct {
	actor int
	obj   int
	word  word
	write bool
	hist  bool
}

// OpJoin is the Op of a Join step: the actor, having waited for actor Obj
// to finish, goes on. It is not one of impl's accesses.
const OpJoin impl.Op = 100

// accessOfStep is step s's access (hist left false).
func accessOfStep(s Step) access {
	w, write := accessOf(s.Op)
	return access{actor: s.Actor, obj: s.Obj, word: w, write: write}
}

func accessOf(op impl.Op) (word, bool) {
	switch op {
	case impl.OpLoadHead:
		return wordHead, false
	case impl.OpCasHead, impl.OpStoreHead:
		return wordHead, true
	case impl.OpLoadTail:
		return wordTail, false
	case impl.OpStoreTail:
		return wordTail, true
	case impl.OpLoadSlot:
		return wordSlots, false
	case impl.OpStoreSlot:
		return wordSlots, true
	case impl.OpLoadRunnext:
		return wordRunnext, false
	case impl.OpCasRunnext:
		return wordRunnext, true
	case impl.OpLockSched:
		return wordLock, true
	case OpJoin:
		return wordJoin, false
	}
	return wordAny, true
}

func dependent(a, b access) bool {
	if a.word == wordAny || b.word == wordAny {
		return true
	}
	if a.word == wordJoin || b.word == wordJoin {
		return (a.word == wordJoin && a.obj == b.actor) || (b.word == wordJoin && b.obj == a.actor)
	}
	return (a.obj == b.obj && a.word == b.word && (a.write || b.write)) || (a.hist && b.hist)
}

func accesses(ex *Execution, windows bool) []access {
	type key struct{ actor, call int }
	bounds := map[key][2]int{}
	for _, c := range ex.Calls {
		bounds[key{c.Actor, c.Index}] = [2]int{c.First, c.Last}
	}
	acc := make([]access, len(ex.Steps))
	for i, s := range ex.Steps {
		b, ok := bounds[key{s.Actor, s.Call}]
		acc[i] = accessOfStep(s)
		acc[i].hist = windows && ok && s.Call >= 0 && (i == b[0] || i == b[1])
	}
	return acc
}

// addRaces is the race analysis of DPOR on one complete execution, whose
// decision points are stack[0..len(Steps)). For every step j of actor p and
// every earlier dependent step i of another actor that does not happen
// before p's previous step, the order of i and j could be reversed: p must
// be tried at i's decision point. As in Flanagan and Godefroid's algorithm,
// of the racing steps before p's previous step only the latest counts.
// Happens-before is tracked with vector clocks over program order and
// dependence.
//
// An execution abandoned by sleep sets ends with its actors' pending steps,
// which are analysed as if each were taken next (they are the next steps
// of those actors in every continuation).
func addRaces(stack []node, ex *Execution, windows bool) {
	real := len(ex.Steps)
	steps := ex.Steps
	if len(ex.Pending) > 0 {
		steps = slices.Clone(steps)
		for _, p := range ex.Pending {
			if p.Actor >= 0 {
				steps = append(steps, p)
			}
		}
	}
	n, actors := len(steps), len(ex.Scenario.Actors)
	acc := accesses(ex, windows)
	for j := real; j < len(steps); j++ {
		a := accessOfStep(steps[j])
		a.hist = windows && a.word != wordJoin
		acc = append(acc, a)
	}
	vc := make([][]int, n)
	seq := make([]int, n)
	prevOf := make([]int, n)
	lastOf := make([]int, actors)
	for a := range lastOf {
		lastOf[a] = -1
	}
	for j := range n {
		a := steps[j].Actor
		v := make([]int, actors)
		prevOf[j] = lastOf[a]
		if p := lastOf[a]; p >= 0 {
			copy(v, vc[p])
			seq[j] = seq[p] + 1
		} else {
			seq[j] = 1
		}
		for i := range min(j, real) {
			if steps[i].Actor != a && dependent(acc[i], acc[j]) {
				for k, x := range vc[i] {
					v[k] = max(v[k], x)
				}
			}
		}
		v[a] = seq[j]
		vc[j] = v
		lastOf[a] = j
	}
	backtrack := func(i, p int) {
		if stack[i].enabled&(1<<p) != 0 {
			stack[i].backtrack |= 1 << p
		} else {
			stack[i].backtrack |= stack[i].enabled
		}
	}
	for j := range n {
		p, prev := steps[j].Actor, prevOf[j]
		for i := min(j, real) - 1; i >= 0; i-- {
			if steps[i].Actor == p || !dependent(acc[i], acc[j]) || acc[j].word == wordJoin {
				continue // a join cannot move before the end it waits for
			}
			if prev >= 0 && vc[prev][steps[i].Actor] >= seq[i] {
				continue // i happens before p's previous step: no race
			}
			backtrack(i, p)
			if i < prev {
				break // only the latest race before p's previous step
			}
		}
	}
}
