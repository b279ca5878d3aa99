package interleave

import "github.com/gmpcheck/gmpcheck/spec"

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

// LoomScenarios returns tokio's loom tests of its run queue written as
// scenarios (fresh copies). They are larger than the built-in ones and
// are not part of Scenarios: exhaustive with the StateCache reduction in
// minutes, not milliseconds.
func LoomScenarios() []Scenario {
	return []Scenario{loomBasicFlat()}
}
