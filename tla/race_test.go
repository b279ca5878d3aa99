package tla

import "testing"

// sequentialUnderRace skips a test in a -race build. The tests that call
// it are sequential Go around the checkers' node and java processes (or
// around the modules' text): the detector would only slow their Go side
// and has nothing shared to see. The README's test command runs the
// package without -race first, where they run; tla/tlacheck, which starts
// and reads the processes, is race-checked on its own.
func sequentialUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("runs in the test command's non-race pass (go test ./tla/)")
	}
}
