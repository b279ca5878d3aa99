// Package conform is trace validation: it asks spec/ whether some behaviour
// of the model produces exactly what an execution was observed to do.
//
// Two kinds of execution are checked.
//
//   - The reference scheduler's own concurrent runs (CheckImpl): impl/
//     emits one EvAction per scheduler step, named by the spec action it
//     implements. The events of racing goroutines are recorded in the
//     order their callbacks ran, which is not the order in which the steps
//     took effect; the checker searches the orders the recording allows
//     (each step took effect between its actor's previous and next event)
//     and, for each, steps spec.Model with the observed action, the hidden
//     state (queue contents, counters, which M is idle) carried along.
//
//   - Real Go executions (CheckRuntime): a Go 1.26 execution trace
//     (runtime/trace) is mapped to observations at the G/P level (G
//     statuses, the P a G runs on, P ownership by Ms, syscalls, blocking,
//     creation, exit) and checked against the spec's transition rules for
//     those variables; what the runtime does that the spec abstracts is
//     handled by named filters (docs/conformance.md).
//
// A verdict is Accepted, Rejected (at an event, with the spec actions that
// could have explained it and the candidate states), or Inconclusive (the
// search ran out of its budget or the run left the spec's bounds); an
// inconclusive check is never a pass.
package conform
