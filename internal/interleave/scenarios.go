package interleave

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// The built-in scenarios, at capacity 4. steal-put-get, overflow-steal,
// two-thieves-drain, chained-steal and chained-steal-batch have the shapes
// of tokio's loom tests of its run queue; the runnext ones cover runnext,
// which tokio's queue has no counterpart for, and empty-recheck runqempty's
// re-read of tail.
var builtin = []Scenario{
	{
		Name: "steal-put-get",
		Doc:  "the owner puts twice and gets while a thief steals (loom: basic)",
		Cap:  4, Queues: 2,
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: Put, G: 1}, {Kind: Put, G: 2}, {Kind: Get}, {Kind: Put, G: 3}, {Kind: Get}}},
			{Name: "thief", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}, {Kind: Get}}},
		},
	},
	{
		Name: "overflow-steal",
		Doc:  "the owner's put overflows half the ring to the global queue while a thief steals (loom: steal_overflow)",
		Cap:  4, Queues: 2,
		Init: []QueueInit{{Ring: []spec.GID{1, 2, 3}}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: Put, G: 4}, {Kind: Put, G: 5}, {Kind: Get}}},
			{Name: "thief", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}, {Kind: Get}}},
		},
	},
	{
		Name: "two-thieves-drain",
		Doc:  "two thieves steal from one queue while its owner drains it (loom: multi_stealer)",
		Cap:  4, Queues: 3,
		Init: []QueueInit{{Ring: []spec.GID{1, 2, 3}}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: Put, G: 4}, {Kind: Drain}}},
			{Name: "thief1", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}}},
			{Name: "thief2", Queue: 2, Script: []Call{{Kind: Steal, Q: 0}}},
		},
	},
	{
		Name: "chained-steal",
		Doc:  "thief 2 steals from thief 1's queue while thief 1's own steal of one G is in flight and the victim's owner gets",
		Cap:  4, Queues: 3,
		Init: []QueueInit{{Ring: []spec.GID{1, 2}}, {Ring: []spec.GID{3}}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: Get}}},
			{Name: "thief1", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}, {Kind: Get}}},
			{Name: "thief2", Queue: 2, Script: []Call{{Kind: Steal, Q: 1}}},
		},
	},
	{
		Name: "runnext-steal",
		Doc:  "the owner kicks runnext to the ring and takes the new runnext while a thief steals with stealRunNext",
		Cap:  4, Queues: 2,
		Init: []QueueInit{{RunNext: 1}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: PutNext, G: 2}, {Kind: Get}}},
			{Name: "thief", Queue: 1, Script: []Call{{Kind: StealNext, Q: 0}}},
		},
	},
	{
		Name: "runnext-two-thieves",
		Doc:  "two thieves race for the runnext G while the owner takes it",
		Cap:  4, Queues: 3,
		Init: []QueueInit{{RunNext: 1}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: Get}}},
			{Name: "thief1", Queue: 1, Script: []Call{{Kind: StealNext, Q: 0}}},
			{Name: "thief2", Queue: 2, Script: []Call{{Kind: StealNext, Q: 0}}},
		},
	},
	{
		Name: "empty-recheck",
		Doc:  "a reader asks runqempty while the owner moves runnext to the ring and takes the new runnext",
		Cap:  4, Queues: 1,
		Init: []QueueInit{{RunNext: 1}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: PutNext, G: 2}, {Kind: Get}}},
			{Name: "reader", Queue: -1, Script: []Call{{Kind: Empty, Q: 0}}},
		},
	},
	{
		// Last, so that the fuzz seeds' first bytes keep naming the same
		// scenarios.
		Name: "chained-steal-batch",
		Doc:  "thief 1 takes its own Gs, then steals a batch of two from a full queue; thief 2 steals from thief 1's queue while that batch is in flight (loom: chained_steal)",
		Cap:  4, Queues: 3,
		Init: []QueueInit{{Ring: []spec.GID{1, 2, 3, 4}}, {Ring: []spec.GID{5, 6}}},
		Actors: []Actor{
			{Name: "thief1", Queue: 1, Script: []Call{{Kind: Get}, {Kind: Get}, {Kind: Steal, Q: 0}, {Kind: Get}}},
			{Name: "thief2", Queue: 2, Script: []Call{{Kind: Steal, Q: 1}, {Kind: Get}}},
		},
	},
}

// WindowOrdersTooBig lists the built-in scenarios whose search with
// Options.WindowOrders runs past a minute or more (millions of schedules),
// so the quick checks leave that mode out for them.
var WindowOrdersTooBig = map[string]bool{"two-thieves-drain": true, "chained-steal-batch": true}

// Scenarios returns the built-in scenarios (copies: callers may modify them).
func Scenarios() []Scenario {
	out := make([]Scenario, len(builtin))
	copy(out, builtin)
	return out
}

// Lookup returns the built-in scenario named name.
func Lookup(name string) (Scenario, error) {
	for _, s := range builtin {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %v)", name, ScenarioNames())
}

// ScenarioNames lists the built-in scenarios' names.
func ScenarioNames() []string {
	var out []string
	for _, s := range builtin {
		out = append(out, s.Name)
	}
	return out
}

// BugScenarios maps every seeded queue bug to the built-in scenario whose
// exhaustive exploration must find it: the smallest that exposes it.
var BugScenarios = map[impl.Bug]string{
	impl.BugGetNoCAS:           "steal-put-get",
	impl.BugStealHalfDown:      "steal-put-get",
	impl.BugPutSlowDropsG:      "overflow-steal",
	impl.BugPublishBeforeWrite: "steal-put-get",
	impl.BugStealNoCAS:         "two-thieves-drain",
	impl.BugEmptyNoRecheck:     "empty-recheck",
}
