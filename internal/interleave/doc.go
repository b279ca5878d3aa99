// Package interleave runs the real run-queue code of impl/ under controlled
// interleavings of its atomic operations, the way loom does for tokio's
// queue.
//
// In the instrumented build (-tags gmpcheck_hooks) every atomic access of a
// Runq that can race with another goroutine, and every acquisition of the
// global queue's lock, first calls a yield function. (The owner's loads of
// its own tail and of slots only it writes have none: they commute with
// every other goroutine's steps.) The controller here installs one that parks the calling
// goroutine and hands a baton to whichever actor (owner, thief 1, thief 2,
// an Empty reader) the schedule names next, so exactly one actor runs at a
// time and a schedule -- the sequence of actors that take the next atomic
// step -- fixes the whole execution. Go's sync/atomic operations are
// sequentially consistent, so exploring interleavings of these steps is
// exact for this code: there is no weaker memory behaviour left out.
//
// Explore enumerates the schedules of a Scenario depth first, re-running the
// scenario from scratch for each one (stateless model checking). By default
// it prunes with dynamic partial-order reduction (Flanagan and Godefroid's
// DPOR): two steps that touch different words, or only read the same one,
// commute, so only one order of them is run. The StateCache reduction
// (stateful.go) runs sleep sets over the graph of states instead: each
// (state, sleep set) is expanded once, and the Mazurkiewicz traces are
// counted rather than run one by one, which makes tokio's loom tests
// (LoomScenarios) exhaustive in minutes. With a preemption bound it
// enumerates plainly, counting switches away from a still-runnable actor.
//
// A scenario's scripts are queue calls plus loops, conditionals on the
// latest call's result, Return, and Join (wait for another actor to
// finish), so that loom's tests are written as they are.
//
// After each complete schedule, Check looks for: a panic in the queue code,
// an actor that spins alone without end, conservation (every G is taken
// exactly once across gets, steals, drains, and what the queues hold at the
// end), linearizability of the history of calls against spec/ (lin.go),
// and the same history against linearize's porcupine model (CheckModel).
//
// A failing schedule is printed step by step and encoded as a string of
// actor indices that Replay (and 'gmpcheck interleave -replay') runs again.
//
// Without the build tag the yield points do not exist: Run and Explore
// return ErrNoHooks.
package interleave
