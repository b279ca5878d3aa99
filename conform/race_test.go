package conform

import "testing"

// sequentialUnderRace skips a test in a -race build: the checks of
// recorded traces are sequential (one goroutine reads and judges), so the
// detector only slows them down. The README's test command runs this
// package without -race first, where they run; the tests that record the
// impl's concurrent runs (TestImpl*) run under -race as well.
func sequentialUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("sequential; runs in the non-race pass (go test ./conform/)")
	}
}
