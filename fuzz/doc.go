// Package fuzz holds gmpcheck's `go test -fuzz` targets; the package itself
// is only this comment, the targets are in its tests.
//
//	FuzzRunQueueOps           bytes -> a sequence of owner and thief operations
//	                          on two local queues and the global queue (capacity
//	                          2, 4 or 8), run sequentially against spec/ after
//	                          every operation (default build)
//	FuzzRunQueueInterleaving  bytes -> a built-in scenario and a schedule of
//	                          atomic steps, run on the real queue code by the
//	                          interleave controller; conservation and
//	                          linearizability against spec/ and linearize's
//	                          model (-tags gmpcheck_hooks)
//	FuzzRapidInterleaving     rapid.MakeFuzz: random scripts for 2-4 actors and
//	                          a random schedule (-tags gmpcheck_hooks)
//	FuzzRapidRunQueue         rapid.MakeFuzz: the differential queue model with
//	                          rapid's generators (default build)
//	FuzzScheduler             bytes -> a workload of driver commands (spawn, park,
//	                          ready, gosched, syscall, exit, sysmon) on impl's
//	                          deterministic driver; the scheduler's invariants
//	                          after every command (default build)
//	FuzzSchedulerSpec         bytes -> bounds and a trace of spec-enabled actions;
//	                          the real scheduler's whole state equals spec/'s
//	                          after every step (default build)
//
// Seed corpora are in testdata/fuzz/<Target>/. See docs/fuzzing.md for how
// to run each target, select a seeded bug, and reproduce a failure.
package fuzz
