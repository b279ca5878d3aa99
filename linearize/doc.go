// Package linearize checks that the real lock-free run queue (impl.Runq with
// its impl.GlobalRunq) is linearizable with respect to the abstract queues of
// package spec, using the porcupine linearizability checker.
//
// Three parts:
//
//   - NewModel: a porcupine.Model whose state is spec.LocalQueue (the owner's
//     runnext and ring) plus spec.GlobalQueue, so that runqputslow's spill and
//     takes from the global queue are checked along with runqput, runqget,
//     runqdrain, runqempty and the thieves' batch steals. The nondeterminism
//     of a concurrent steal or runqempty is resolved by the recorded output
//     (spec.LocalQueue.StealOK, EmptyOK), so Step stays deterministic.
//   - Recorder and RecordRound: run one owner and k thieves on a fresh queue
//     and log every operation with call/return timestamps from one shared
//     atomic counter, taken before the operation's first atomic access and
//     after its last, so real-time order in the log is never invented.
//   - Check, Run, WriteHTML: check many short independent rounds, report
//     Illegal with porcupine's HTML visualization, and report a timeout as
//     inconclusive (porcupine's Unknown), never as a pass.
//
// Two owner operations of the real queue are not single atomic steps against
// the combined spec state: runqput with next displaces the old runnext G and
// puts it on the ring only afterwards, and runqputslow takes half the ring
// with a CAS and appends it to the global queue only afterwards, under the
// global lock. In both windows some Gs are in neither queue, and thieves can
// observe that (runqempty can say true while the owner holds a displaced G).
// The model gives such a Put a second effect that happens at some moment
// before it returns, and tracks both possibilities while an overlapping
// operation could have seen either (see Queues and State).
package linearize
