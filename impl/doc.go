// Package impl is gmpcheck's concurrent reference implementation of the Go
// scheduler's algorithms on real goroutines.
//
// This file set holds the run queues: the P-local lock-free ring with its
// runnext slot (Runq: runqput, runqputslow, runqputbatch, runqget, runqgrab,
// runqsteal, runqdrain, runqempty) and the global queue under a mutex
// (GlobalRunq: globrunqput, globrunqputhead, globrunqputbatch, globrunqget,
// globrunqgetbatch). They follow Go 1.26's runtime step for step, with one
// deliberate difference: every shared word, ring slots included, is accessed
// through sync/atomic. The runtime tolerates a benign race on ring slots (a
// thief may read a slot the owner is overwriting, then fail its CAS); here
// the race detector must stay quiet, so slots are atomic pointers too.
//
// The checkers in linearize/ and fuzz/ drive this code, not a copy of it.
// Building with -tags gmpcheck_hooks compiles in two test hooks: a yield point
// before every atomic access (for the controlled-interleaving explorer) and a
// switch for seeded bugs (to prove that the checkers catch them). The default
// build compiles both out: see hooks_off.go and BenchmarkRunq*.
package impl
