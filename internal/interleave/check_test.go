package interleave

import (
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Hand-made executions: the checks are pure functions of an Execution, so
// they are tested here without running any queue code.

var oneOwnerTwoThieves = Scenario{
	Name: "hand", Cap: 4, Queues: 3,
	Init: []QueueInit{{RunNext: 1}},
	Actors: []Actor{
		{Name: "owner", Queue: 0, Script: []Call{{Kind: PutNext, G: 2}}},
		{Name: "thief1", Queue: 1, Script: []Call{{Kind: StealNext, Q: 0}}},
		{Name: "thief2", Queue: 2, Script: []Call{{Kind: StealNext, Q: 0}}},
	},
}

// runnextThief: q0 holds g1 in its ring and g2 in runnext; its owner puts
// g3 while a thief steals with stealRunNext.
var runnextThief = Scenario{
	Name: "hand", Cap: 4, Queues: 2,
	Init: []QueueInit{{Ring: []spec.GID{1}, RunNext: 2}},
	Actors: []Actor{
		{Name: "owner", Queue: 0, Script: []Call{{Kind: Put, G: 3}}},
		{Name: "thief", Queue: 1, Script: []Call{{Kind: StealNext, Q: 0}}},
	},
}

func local(cap int, next spec.GID, ring ...spec.GID) spec.LocalQueue {
	return spec.LocalQueue{Cap: cap, RunNext: next, Ring: ring}
}

func TestLinearizable(t *testing.T) {
	tests := []struct {
		name  string
		sc    Scenario
		calls []CallRecord
		final []spec.LocalQueue
		ok    bool
	}{
		{
			// put-next displaces g1; while g1 is in flight thief1 takes
			// runnext g2 and thief2, after thief1, sees nothing at all. The
			// ring gets g1 only at the end of the put: legal, because the
			// put has two parts.
			name: "runnext steal while the displaced G is in flight",
			sc:   oneOwnerTwoThieves,
			calls: []CallRecord{
				{Actor: 0, Call: Call{Kind: PutNext, G: 2}, Own: 0, First: 0, Last: 10, Done: true},
				{Actor: 1, Call: Call{Kind: StealNext, Q: 0}, Own: 1, First: 3, Last: 5, Done: true, G: 2, Batch: []spec.GID{2}},
				{Actor: 2, Call: Call{Kind: StealNext, Q: 0}, Own: 2, First: 6, Last: 8, Done: true},
			},
			final: []spec.LocalQueue{local(4, 0, 1), local(4, 0), local(4, 0)},
			ok:    true,
		},
		{
			// The same, but thief2 starts after the put returned: g1 was in
			// the ring for all of thief2's call, so "nothing" is illegal.
			name: "nothing stolen from a non-empty ring",
			sc:   oneOwnerTwoThieves,
			calls: []CallRecord{
				{Actor: 0, Call: Call{Kind: PutNext, G: 2}, Own: 0, First: 0, Last: 10, Done: true},
				{Actor: 1, Call: Call{Kind: StealNext, Q: 0}, Own: 1, First: 3, Last: 5, Done: true, G: 2, Batch: []spec.GID{2}},
				{Actor: 2, Call: Call{Kind: StealNext, Q: 0}, Own: 2, First: 11, Last: 12, Done: true},
			},
			final: []spec.LocalQueue{local(4, 0, 1), local(4, 0), local(4, 0)},
			ok:    false,
		},
		{
			name: "final state must match",
			sc:   oneOwnerTwoThieves,
			calls: []CallRecord{
				{Actor: 0, Call: Call{Kind: PutNext, G: 2}, Own: 0, First: 0, Last: 10, Done: true},
				{Actor: 1, Call: Call{Kind: StealNext, Q: 0}, Own: 1, First: 3, Last: 5, Done: true, G: 2, Batch: []spec.GID{2}},
				{Actor: 2, Call: Call{Kind: StealNext, Q: 0}, Own: 2, First: 6, Last: 8, Done: true},
			},
			final: []spec.LocalQueue{local(4, 0), local(4, 0), local(4, 0, 1)},
			ok:    false,
		},
		{
			name: "runqempty true while a G was present throughout",
			sc: Scenario{Name: "hand", Cap: 4, Queues: 1, Init: []QueueInit{{RunNext: 1}}, Actors: []Actor{
				{Name: "owner", Queue: 0, Script: []Call{{Kind: PutNext, G: 2}, {Kind: Get}}},
				{Name: "reader", Queue: -1, Script: []Call{{Kind: Empty, Q: 0}}},
			}},
			calls: []CallRecord{
				{Actor: 0, Index: 0, Call: Call{Kind: PutNext, G: 2}, Own: 0, First: 0, Last: 6, Done: true},
				{Actor: 0, Index: 1, Call: Call{Kind: Get}, Own: 0, First: 7, Last: 8, Done: true, G: 2, Inherit: true},
				{Actor: 1, Call: Call{Kind: Empty, Q: 0}, Own: -1, First: 4, Last: 9, Done: true, Empty: true},
			},
			final: []spec.LocalQueue{local(4, 0, 1)},
			ok:    false,
		},
		{
			name: "a steal takes ceil(len/2) at most",
			sc: Scenario{Name: "hand", Cap: 4, Queues: 2, Init: []QueueInit{{Ring: []spec.GID{1, 2, 3}}}, Actors: []Actor{
				{Name: "thief", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}}},
			}},
			calls: []CallRecord{{Actor: 0, Call: Call{Kind: Steal, Q: 0}, Own: 1, First: 0, Last: 9, Done: true, G: 3, Batch: []spec.GID{1, 2, 3}}},
			final: []spec.LocalQueue{local(4, 0), local(4, 0, 1, 2)},
			ok:    false,
		},
		{
			name: "a steal of half, published on the thief's ring",
			sc: Scenario{Name: "hand", Cap: 4, Queues: 2, Init: []QueueInit{{Ring: []spec.GID{1, 2, 3}}}, Actors: []Actor{
				{Name: "thief", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}}},
			}},
			calls: []CallRecord{{Actor: 0, Call: Call{Kind: Steal, Q: 0}, Own: 1, First: 0, Last: 9, Done: true, G: 2, Batch: []spec.GID{1, 2}}},
			final: []spec.LocalQueue{local(4, 0, 3), local(4, 0, 1)},
			ok:    true,
		},
		{
			// runqgrab takes runnext only after reading the ring empty.
			name: "a runnext steal from a ring never empty",
			sc:   runnextThief,
			calls: []CallRecord{
				{Actor: 0, Call: Call{Kind: Put, G: 3}, Own: 0, First: 0, Last: 2, Done: true},
				{Actor: 1, Call: Call{Kind: StealNext, Q: 0}, Own: 1, First: 3, Last: 9, Done: true, G: 2, Batch: []spec.GID{2}},
			},
			final: []spec.LocalQueue{local(4, 0, 1, 3), local(4, 0)},
			ok:    false,
		},
		{
			// The same steal, but the owner refills the ring after the
			// steal began: it may have read the ring empty, then taken
			// runnext from a ring no longer empty.
			name: "a runnext steal while the owner refills the ring",
			sc:   Scenario{Name: "hand", Cap: 4, Queues: 2, Init: []QueueInit{{RunNext: 2}}, Actors: runnextThief.Actors},
			calls: []CallRecord{
				{Actor: 0, Call: Call{Kind: Put, G: 3}, Own: 0, First: 4, Last: 6, Done: true},
				{Actor: 1, Call: Call{Kind: StealNext, Q: 0}, Own: 1, First: 3, Last: 9, Done: true, G: 2, Batch: []spec.GID{2}},
			},
			final: []spec.LocalQueue{local(4, 0, 3), local(4, 0)},
			ok:    true,
		},
		{
			// A runnext steal that takes nothing read runnext empty after
			// it read the ring empty: not while runnext held g2 throughout.
			name: "nothing stolen while runnext held a G throughout",
			sc:   Scenario{Name: "hand", Cap: 4, Queues: 2, Init: []QueueInit{{RunNext: 2}}, Actors: runnextThief.Actors},
			calls: []CallRecord{
				{Actor: 0, Call: Call{Kind: Put, G: 3}, Own: 0, First: 0, Last: 2, Done: true},
				{Actor: 1, Call: Call{Kind: StealNext, Q: 0}, Own: 1, First: 1, Last: 9, Done: true},
			},
			final: []spec.LocalQueue{local(4, 2, 3), local(4, 0)},
			ok:    false,
		},
		{
			// The same, but the owner takes runnext during the steal.
			name: "nothing stolen after the owner took runnext",
			sc: Scenario{Name: "hand", Cap: 4, Queues: 2, Init: []QueueInit{{RunNext: 2}}, Actors: []Actor{
				{Name: "owner", Queue: 0, Script: []Call{{Kind: Put, G: 3}, {Kind: Get}}},
				{Name: "thief", Queue: 1, Script: []Call{{Kind: StealNext, Q: 0}}},
			}},
			calls: []CallRecord{
				{Actor: 0, Index: 0, Call: Call{Kind: Put, G: 3}, Own: 0, First: 0, Last: 2, Done: true},
				{Actor: 0, Index: 1, Call: Call{Kind: Get}, Own: 0, First: 4, Last: 5, Done: true, G: 2, Inherit: true},
				{Actor: 1, Call: Call{Kind: StealNext, Q: 0}, Own: 1, First: 1, Last: 9, Done: true},
			},
			final: []spec.LocalQueue{local(4, 0, 3), local(4, 0)},
			ok:    true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &Execution{Scenario: &tt.sc, Calls: tt.calls, Final: tt.final, Complete: true, Livelock: -1}
			msg := linearizable(ex)
			if (msg == "") != tt.ok {
				t.Fatalf("linearizable = %q, want ok=%v", msg, tt.ok)
			}
		})
	}
}

func TestConservation(t *testing.T) {
	sc := Scenario{Name: "hand", Cap: 4, Queues: 2, Init: []QueueInit{{Ring: []spec.GID{1, 2}}}, Actors: []Actor{
		{Name: "owner", Queue: 0, Script: []Call{{Kind: Get}}},
		{Name: "thief", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}}},
	}}
	tests := []struct {
		name  string
		gets  [2]spec.GID
		final []spec.LocalQueue
		want  string
	}{
		{"each once", [2]spec.GID{1, 2}, []spec.LocalQueue{local(4, 0), local(4, 0)}, ""},
		{"twice", [2]spec.GID{1, 1}, []spec.LocalQueue{local(4, 0, 2), local(4, 0)}, "g1 was taken 2 times"},
		{"lost", [2]spec.GID{1, 0}, []spec.LocalQueue{local(4, 0), local(4, 0)}, "g2 was lost"},
		{"nil in a ring", [2]spec.GID{1, 2}, []spec.LocalQueue{local(4, 0, 0), local(4, 0)}, "a nil G came out of q0's ring"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := &Execution{Scenario: &sc, Final: tt.final, Complete: true, Livelock: -1, Calls: []CallRecord{
				{Actor: 0, Call: sc.Actors[0].Script[0], Own: 0, Done: true, G: tt.gets[0]},
				{Actor: 1, Call: sc.Actors[1].Script[0], Own: 1, Done: true, G: tt.gets[1]},
			}}
			got := conservation(ex)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Fatalf("conservation = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestScheduleRoundTrip(t *testing.T) {
	s, err := ParseSchedule("0012 10,2")
	if err != nil || s.String() != "0012102" {
		t.Fatalf("ParseSchedule = %v, %v", s, err)
	}
	if _, err := ParseSchedule("01a"); err == nil {
		t.Fatal("ParseSchedule accepted a letter")
	}
	// FromBytes picks the (b mod n)-th runnable actor, then keeps running.
	choose := FromBytes([]byte{1, 5})
	if a, _ := choose(0, 0b101, -1); a != 2 {
		t.Errorf("byte 1 of runnable {0,2} chose %d, want 2", a)
	}
	if a, _ := choose(1, 0b111, 2); a != 2 {
		t.Errorf("byte 5 of runnable {0,1,2} chose %d, want 2", a)
	}
	if a, _ := choose(2, 0b011, 1); a != 1 {
		t.Errorf("after the bytes: chose %d, want the running actor 1", a)
	}
	if _, err := Follow(Schedule{1})(0, 0b01, -1); err == nil {
		t.Error("Follow accepted an actor that cannot move")
	}
}

func TestValidate(t *testing.T) {
	bad := []Scenario{
		{Name: "cap", Cap: 3, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Get}}}}},
		{Name: "two owners", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Get}}}, {Name: "b", Queue: 0, Script: []Call{{Kind: Get}}}}},
		{Name: "dup G", Cap: 4, Queues: 1, Init: []QueueInit{{Ring: []spec.GID{1}}}, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Put, G: 1}}}}},
		{Name: "self steal", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Steal, Q: 0}}}}},
		{Name: "reader puts", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: -1, Script: []Call{{Kind: Put, G: 1}}}}},
		{Name: "empty script", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0}}},
		{Name: "overfull", Cap: 2, Queues: 1, Init: []QueueInit{{Ring: []spec.GID{1, 2, 3}}}, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Get}}}}},
		{Name: "G in a loop", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{Rounds(2, Call{Kind: Put, G: 1})}}}},
		{Name: "endless loop", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Loop, Body: []Call{{Kind: Get}}}}}}},
		{Name: "empty body", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{Rounds(2)}}}},
		{Name: "if without cond", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: If, Body: []Call{{Kind: Get}}}}}}},
		{Name: "get with a body", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Get, Body: []Call{{Kind: Get}}}}}}},
		{Name: "join self", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Join, Q: 0}}}}},
		{Name: "join circle", Cap: 4, Queues: 2, Actors: []Actor{
			{Name: "a", Queue: 0, Script: []Call{{Kind: Join, Q: 1}}},
			{Name: "b", Queue: 1, Script: []Call{{Kind: Get}, IfNone(Call{Kind: Join, Q: 0})}}}},
		{Name: "big G", Cap: 4, Queues: 1, Actors: []Actor{{Name: "a", Queue: 0, Script: []Call{{Kind: Put, G: FreshGBase}}}}},
	}
	for _, sc := range bad {
		if err := sc.Validate(); err == nil {
			t.Errorf("scenario %q validated", sc.Name)
		}
	}
	for _, sc := range append(Scenarios(), LoomScenarios()...) {
		if err := sc.Validate(); err != nil {
			t.Errorf("built-in %v", err)
		}
	}
	for bug, name := range BugScenarios {
		if _, err := Lookup(name); err != nil {
			t.Errorf("bug %s: %v", bug, err)
		}
	}
}
