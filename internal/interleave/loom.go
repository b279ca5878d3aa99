package interleave

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// loomBasicFlat is tokio's loom test `basic` with its loops unrolled at the
// lengths they have when no steal interferes: the owner, twice, puts two
// Gs, gets one, puts one and gets until empty (three gets); the thief,
// three times, steals and gets. 14 owner calls, 6 thief calls.
func loomBasicFlat() Scenario {
	var owner []Call
	g := spec.GID(1)
	for range 2 {
		owner = append(owner, Call{Kind: Put, G: g}, Call{Kind: Put, G: g + 1}, Call{Kind: Get}, Call{Kind: Put, G: g + 2},
			Call{Kind: Get}, Call{Kind: Get}, Call{Kind: Get})
		g += 3
	}
	var thief []Call
	for range 3 {
		thief = append(thief, Call{Kind: Steal, Q: 0}, Call{Kind: Get})
	}
	return Scenario{
		Name: "loom-basic-flat",
		Doc:  "loom's basic with its loops unrolled: the owner twice puts 2, gets, puts, gets 3 times (14 calls); the thief steals and gets 3 times (6 calls)",
		Cap:  4, Queues: 2,
		Actors: []Actor{{Name: "owner", Queue: 0, Script: owner}, {Name: "thief", Queue: 1, Script: thief}},
	}
}

// Tokio's loom tests of its run queue (tokio/src/runtime/tests/
// loom_queue.rs), written as they are, with loops, conditionals and joins,
// at the capacity tokio's queue has under loom (4). A task is a G; tokio's
// push_back_or_overflow is runqput (its overflow moves half the ring and
// the task to the inject queue, as runqputslow does to the global queue),
// pop is runqget, steal_into is runqsteal; the final count each test
// asserts (every task run exactly once) is the conservation check, which
// also counts what is left in the queues and the global queue.
var loomScenarios = []Scenario{
	{
		Name: "loom-basic",
		Doc:  "loom's basic: the owner, twice, pushes 2, pops 1, pushes 1 and pops until empty; a thief, three times, steals and pops until empty; the owner joins it",
		Cap:  4, Queues: 2,
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{
				Rounds(2,
					Rounds(2, Call{Kind: Put}),
					Call{Kind: Get},
					Call{Kind: Put},
					While(Call{Kind: Get})),
				{Kind: Join, Q: 1},
			}},
			{Name: "thief", Queue: 1, Script: []Call{
				Rounds(3, Call{Kind: Steal, Q: 0}, While(Call{Kind: Get})),
			}},
		},
	},
	{
		Name: "loom-steal-overflow",
		Doc:  "loom's steal_overflow: the owner pushes 1, pops 1, pushes 6 (overflowing to the global queue), joins the thief and pops until empty; the thief steals once and pops until empty",
		Cap:  4, Queues: 2,
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{
				{Kind: Put}, {Kind: Get},
				Rounds(6, Call{Kind: Put}),
				{Kind: Join, Q: 1},
				While(Call{Kind: Get}),
			}},
			{Name: "thief", Queue: 1, Script: []Call{
				{Kind: Steal, Q: 0}, While(Call{Kind: Get}),
			}},
		},
	},
	{
		Name: "loom-multi-stealer",
		Doc:  "loom's multi_stealer: 5 tasks pushed before the threads start (the fifth overflows: g1, g2 and g5 go to the global queue); two thieves each steal, return if they got nothing, and pop until empty; the owner pops until empty and joins both",
		Cap:  4, Queues: 3,
		Init:   []QueueInit{{Ring: []spec.GID{3, 4}}},
		Global: []spec.GID{1, 2, 5},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{
				While(Call{Kind: Get}), {Kind: Join, Q: 1}, {Kind: Join, Q: 2},
			}},
			{Name: "thief1", Queue: 1, Script: []Call{
				{Kind: Steal, Q: 0}, IfNone(Call{Kind: Return}), While(Call{Kind: Get}),
			}},
			{Name: "thief2", Queue: 2, Script: []Call{
				{Kind: Steal, Q: 0}, IfNone(Call{Kind: Return}), While(Call{Kind: Get}),
			}},
		},
	},
	{
		Name: "loom-chained-steal",
		Doc:  "loom's chained_steal: queues l1 (q0) and l2 (q1) start with 4 tasks each; a thread steals from l1 and pops until empty; the main thread pops l1 until empty, steals from l2 into l1, joins the thread and pops l1 and then l2 until empty (l2's pops by a third actor that owns l2 and joins main)",
		Cap:  4, Queues: 3,
		Init: []QueueInit{{Ring: []spec.GID{1, 3, 5, 7}}, {Ring: []spec.GID{2, 4, 6, 8}}},
		Actors: []Actor{
			{Name: "main", Queue: 0, Script: []Call{
				While(Call{Kind: Get}),
				{Kind: Steal, Q: 1},
				{Kind: Join, Q: 1},
				While(Call{Kind: Get}),
			}},
			{Name: "thread", Queue: 2, Script: []Call{
				{Kind: Steal, Q: 0}, While(Call{Kind: Get}),
			}},
			{Name: "main-l2", Queue: 1, Script: []Call{
				{Kind: Join, Q: 0}, While(Call{Kind: Get}),
			}},
		},
	},
}

// LoomScenarios returns tokio's loom tests of its run queue written as
// scenarios (fresh copies), and loom's basic unrolled (loom-basic-flat).
// They are larger than the built-in ones and are not part of Scenarios:
// exhaustive with the StateCache reduction in seconds to minutes.
func LoomScenarios() []Scenario {
	out := make([]Scenario, 0, len(loomScenarios)+1)
	out = append(out, loomScenarios...)
	return append(out, loomBasicFlat())
}

// LookupLoom returns the scenario of LoomScenarios named name.
func LookupLoom(name string) (Scenario, error) {
	for _, s := range LoomScenarios() {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown loom scenario %q", name)
}
