// Package spec is gmpcheck's executable specification: the Go scheduler's run
// queues and state machine as pure values. Nothing here shares pointers, spawns
// goroutines, reads the clock or draws random numbers; every choice the real
// scheduler makes by racing or by chance is an explicit parameter, so that an
// explorer can enumerate all of them and a test can replay any one.
//
// The queues come first because everything else is built on them:
//
//   - LocalQueue is a P's run queue: the runnext slot plus a FIFO ring of
//     capacity Cap (runqput, runqget, runqgrab, runqsteal, runqdrain, runqempty).
//   - GlobalQueue is sched.runq, the FIFO shared under sched.lock
//     (globrunqput, globrunqputhead, globrunqputbatch, globrunqget,
//     globrunqgetbatch).
//
// Every operation takes a value and returns a new value; the receiver is never
// modified, so a state can be kept in a visited set while its successors are
// computed.
package spec
