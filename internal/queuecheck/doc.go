// Package queuecheck holds the run-queue checks that more than one front end
// runs: the differential model (the real queues driven sequentially next to
// spec/'s values, compared after every operation) and the concurrent
// conservation stress. The rapid state machine in impl's tests, the fuzz
// targets and 'gmpcheck verify' all drive these, so each check is written
// once and every front end checks the same thing.
//
// The model draws its choices from a Source: rapid's generators in tests,
// bytes in fuzz targets, a seeded PRNG in the command.
package queuecheck
