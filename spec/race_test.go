package spec

import "testing"

// sequentialUnderRace skips a model-checking test in a -race build. These
// tests explore hundreds of thousands of states; the race detector makes
// that ten times slower and checks nothing the explorer's own race tests
// (TestParallel*, which run under -race) do not: the README's test command
// runs this package once without -race, where they all run, and once with
// it, where the parallel search is race-checked.
func sequentialUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("model checking at full bounds runs in the non-race pass (go test ./spec); TestParallel* race-check the search")
	}
}
