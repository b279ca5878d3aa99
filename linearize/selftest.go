package linearize

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/spec"
)

// A Case is a hand-written history with the verdict the model must give.
type Case struct {
	Name     string
	Capacity int
	Legal    bool
	History  []porcupine.Operation
}

// HandWritten returns histories that each break one rule of the run queue's
// contract (a G obtained twice, a G lost, a steal of more than half or from
// the tail, runqempty true on a non-empty queue, runqget skipping runnext,
// ...), each next to a legal twin that differs only there, and the legal
// and illegal windows of runqput's second effects.
func HandWritten() []Case {
	type tc struct {
		name  string
		cap   int
		h     *hist
		legal bool
	}
	h := func() *hist { return &hist{} }
	cases := []tc{
		// A G obtained twice.
		{"G twice: get then steal", 4, h().seq(0, puts(1, 2)...).seq(0, get(1, false)).seq(1, steal(false, 1)), false},
		{"twin: get then steal the next", 4, h().seq(0, puts(1, 2)...).seq(0, get(1, false)).seq(1, steal(false, 2)), true},
		{"G twice: concurrent get and steal", 4, h().seq(0, puts(1, 2)...).at(0, get(1, false), 100, 120).at(1, steal(false, 1), 105, 115), false},
		{"twin: concurrent get and steal, different Gs", 4, h().seq(0, puts(1, 2)...).at(0, get(1, false), 100, 120).at(1, steal(false, 2), 105, 115), true},
		{"G twice: two thieves", 8, h().seq(0, puts(1, 2, 3, 4)...).at(1, steal(false, 1, 2), 100, 120).at(2, steal(false, 1), 101, 119), false},
		{"twin: two thieves", 8, h().seq(0, puts(1, 2, 3, 4)...).at(1, steal(false, 1, 2), 100, 120).at(2, steal(false, 3), 101, 119), true},
		{"G twice: drain after steal", 4, h().seq(0, puts(1, 2)...).seq(1, steal(false, 1)).seq(0, drain(1, 2)), false},
		{"G twice: global take", 4, h().seq(0, puts(1, 2, 3, 4, 5)...).seq(1, globGet(1)).seq(2, globGet(1)), false},

		// A G lost.
		{"G lost: get says empty", 4, h().seq(0, puts(1, 2)...).seq(0, get(1, false), get(0, false)), false},
		{"twin: get the second", 4, h().seq(0, puts(1, 2)...).seq(0, get(1, false), get(2, false), get(0, false)), true},
		{"G lost: drain", 4, h().seq(0, put(1), drain()), false},
		{"G lost: put not on the ring", 4, h().seq(0, put(1), put(2), drain(2)), false},
		{"G lost: overflow drops the G put", 4,
			h().seq(0, puts(1, 2, 3, 4, 5)...).seq(0, drain(3, 4), globGet(1), globGet(2), globGet(0)), false},
		{"twin: overflow keeps the G put", 4,
			h().seq(0, puts(1, 2, 3, 4, 5)...).seq(0, drain(3, 4), globGet(1), globGet(2), globGet(5), globGet(0)), true},
		{"G lost: overflow spills the wrong half", 4,
			h().seq(0, puts(1, 2, 3, 4, 5)...).seq(0, drain(1, 2), globGet(3), globGet(4), globGet(5)), false},

		// Steal size and position.
		{"steal more than half", 4, h().seq(0, puts(1, 2, 3, 4)...).seq(1, steal(false, 1, 2, 3)), false},
		{"twin: steal exactly half", 4, h().seq(0, puts(1, 2, 3, 4)...).seq(1, steal(false, 1, 2)), true},
		{"twin: steal less than half (a stale tail)", 4, h().seq(0, puts(1, 2, 3, 4)...).seq(1, steal(false, 1)), true},
		{"steal more than half of an odd ring", 8, h().seq(0, puts(1, 2, 3)...).seq(1, steal(false, 1, 2, 3)), false},
		{"twin: steal half rounded up", 8, h().seq(0, puts(1, 2, 3)...).seq(1, steal(false, 1, 2)), true},
		{"steal from the tail", 4, h().seq(0, puts(1, 2, 3, 4)...).seq(1, steal(false, 3, 4)), false},
		{"steal the last G", 4, h().seq(0, puts(1, 2, 3, 4)...).seq(1, steal(false, 4)), false},
		{"steal out of order", 4, h().seq(0, puts(1, 2, 3, 4)...).seq(1, steal(false, 2, 1)), false},
		{"steal nothing from a non-empty ring", 4, h().seq(0, put(1)).seq(1, steal(true)), false},
		{"twin: steal nothing from runnext alone", 4, h().seq(0, putNext(1)).seq(1, steal(true)), true},
		{"steal runnext without asking", 4, h().seq(0, putNext(1)).seq(1, steal(false, 1)), false},
		{"twin: steal runnext when asked", 4, h().seq(0, putNext(1)).seq(1, steal(true, 1), empty(true)), true},
		{"steal of a G never put", 4, h().seq(0, put(1)).seq(1, steal(false, 7)), false},

		// A runnext steal needs the ring empty at some moment after the
		// steal was called (see Queues.FilledBy).
		{"steal runnext instead of the ring", 4, h().seq(0, put(1), putNext(2)).seq(1, steal(true, 2)), false},
		{"steal runnext of a ring filled before the steal", 4,
			h().seq(0, put(1)).at(1, steal(true, 2), 100, 200).at(0, putNext(2), 110, 120).seq(0, drain(1)), false},
		{"twin: steal runnext while the owner refills the ring", 4,
			h().at(1, steal(true, 2), 100, 200).at(0, put(1), 110, 120).at(0, putNext(2), 130, 140).seq(0, drain(1)), true},
		{"twin: steal runnext while the displaced runnext lands", 4,
			h().seq(0, putNext(1)).at(1, steal(true, 2), 100, 200).at(0, putNext(2), 110, 120).seq(0, drain(1)), true},
		{"steal runnext of a ring refilled after a drain before the steal", 4,
			h().seq(0, put(1), drain(1), put(3), putNext(2)).at(1, steal(true, 2), 100, 200).seq(0, drain(3)), false},
		{"twin: steal runnext while a drain empties the ring", 4,
			h().seq(0, put(1)).at(1, steal(true, 2), 100, 200).at(0, drain(1), 110, 120).at(0, put(3), 130, 140).
				at(0, putNext(2), 150, 160).seq(0, drain(3)), true},

		// runqempty.
		{"empty true with a G in the ring", 4, h().seq(0, put(1)).seq(1, empty(true)), false},
		{"empty true with a G in runnext", 4, h().seq(0, putNext(1)).seq(1, empty(true)), false},
		{"twin: empty false", 4, h().seq(0, putNext(1)).seq(1, empty(false)), true},
		{"twin: spurious false on an empty queue", 4, h().seq(1, empty(false)), true},
		{"empty true while a G moves from runnext to the ring", 4,
			h().seq(0, putNext(1)).at(1, empty(true), 100, 200).at(0, putNext(2), 110, 120).at(0, get(2, true), 130, 140), false},

		// runqget and runnext.
		{"get skips runnext", 4, h().seq(0, put(1), putNext(2), get(1, false)), false},
		{"twin: get takes runnext first", 4, h().seq(0, put(1), putNext(2), get(2, true), get(1, false)), true},
		{"get of runnext without inheriting the slice", 4, h().seq(0, putNext(2), get(2, false)), false},
		{"get of the ring inheriting the slice", 4, h().seq(0, put(2), get(2, true)), false},
		{"putnext does not kick the old runnext to the tail", 4, h().seq(0, put(1), putNext(2), putNext(3), drain(3, 2, 1)), false},
		{"twin: putnext kicks the old runnext to the tail", 4, h().seq(0, put(1), putNext(2), putNext(3), drain(3, 1, 2)), true},
		{"drain with runnext last", 4, h().seq(0, put(1), putNext(2), drain(1, 2)), false},

		// runqput(next)'s displaced runnext G in flight (see Queues).
		{"empty while the displaced runnext is in flight", 4,
			h().seq(0, putNext(1)).at(0, putNext(2), 100, 200).at(1, steal(true, 2), 110, 120).at(1, empty(true), 130, 140), true},
		{"empty after the displaced runnext must have landed", 4,
			h().seq(0, putNext(1)).at(0, putNext(2), 100, 200).at(1, steal(true, 2), 110, 120).at(1, empty(true), 210, 220), false},
		{"steal of the displaced runnext once landed", 4,
			h().seq(0, putNext(1)).at(0, putNext(2), 100, 200).at(1, steal(true), 110, 120).at(1, steal(false, 1), 130, 140), true},
		{"displaced runnext lands at the tail", 4,
			h().seq(0, put(3), putNext(1)).at(0, putNext(2), 100, 200).at(1, steal(false, 1), 130, 140), false},
		{"displaced runnext spills a full ring", 4,
			h().seq(0, puts(3, 4, 5, 6)...).seq(0, putNext(1)).at(0, putNext(2), 100, 200).
				at(1, steal(false, 5), 110, 120).at(2, globGet(3), 130, 140).seq(0, globGet(4), globGet(1), drain(2, 6)), true},

		// runqputslow's spill in transit (see Queues).
		{"spill seen in transit", 4,
			h().seq(0, puts(1, 2, 3, 4)...).at(0, put(5), 100, 200).at(1, steal(false, 3), 110, 120).at(1, globGet(0), 130, 140), true},
		{"spill must have landed once the put returned", 4,
			h().seq(0, puts(1, 2, 3, 4)...).at(0, put(5), 100, 200).at(1, steal(false, 3), 110, 120).at(1, globGet(0), 210, 220), false},
		{"twin: spill landed once the put returned", 4,
			h().seq(0, puts(1, 2, 3, 4)...).at(0, put(5), 100, 200).at(1, steal(false, 3), 110, 120).at(1, globGet(1), 210, 220), true},
		{"spill taken from the global queue in transit", 4,
			h().seq(0, puts(1, 2, 3, 4)...).at(0, put(5), 100, 200).at(1, globGet(1), 110, 120).at(2, globGet(2), 130, 140), true},
		{"spill taken out of order", 4,
			h().seq(0, puts(1, 2, 3, 4)...).at(0, put(5), 100, 200).at(1, globGet(2), 110, 120), false},
	}
	out := make([]Case, len(cases))
	for i, c := range cases {
		out[i] = Case{c.name, c.cap, c.legal, c.h.ops}
	}
	return out
}

// SelfTest checks every HandWritten history against the model and reports
// the first wrong verdict: the check's own seeded-bug test, which needs no
// instrumented build.
func SelfTest() error {
	for _, c := range HandWritten() {
		chk, err := NewChecker(c.Capacity)
		if err != nil {
			return err
		}
		res, err := chk.Check(c.History, 0)
		if err != nil {
			return fmt.Errorf("self-test %q: %w", c.Name, err)
		}
		want := porcupine.Illegal
		if c.Legal {
			want = porcupine.Ok
		}
		if res != want {
			return fmt.Errorf("self-test %q: the model says %s, want %s", c.Name, verdictName(res), verdictName(want))
		}
	}
	return nil
}

// A hist builds hand-written histories: seq appends an operation that starts
// after everything before it has returned; at gives explicit timestamps for
// overlapping operations.
type hist struct {
	ops []porcupine.Operation
	now int64
}

type call struct {
	in  Input
	out Output
}

func put(g spec.GID) call     { return call{in: Input{Kind: KindPut, G: g}} }
func putNext(g spec.GID) call { return call{in: Input{Kind: KindPutNext, G: g}} }
func get(g spec.GID, inherit bool) call {
	return call{Input{Kind: KindGet}, Output{G: g, InheritTime: inherit}}
}
func steal(runnext bool, gs ...spec.GID) call {
	return call{Input{Kind: KindSteal, StealRunNext: runnext}, Output{Gs: gs}}
}
func drain(gs ...spec.GID) call { return call{Input{Kind: KindDrain}, Output{Gs: gs}} }
func empty(e bool) call         { return call{Input{Kind: KindEmpty}, Output{Empty: e}} }
func globGet(g spec.GID) call   { return call{Input{Kind: KindGlobGet}, Output{G: g}} }
func (h *hist) seq(client int, cs ...call) *hist {
	for _, c := range cs {
		h.now += 10
		h.at(client, c, h.now, h.now+5)
	}
	return h
}
func (h *hist) at(client int, c call, callT, retT int64) *hist {
	h.ops = append(h.ops, MakeOp(client, c.in, c.out, callT, retT))
	h.now = max(h.now, retT)
	return h
}
func puts(gs ...spec.GID) []call {
	var cs []call
	for _, g := range gs {
		cs = append(cs, put(g))
	}
	return cs
}
