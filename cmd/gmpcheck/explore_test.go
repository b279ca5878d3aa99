package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var distinctRe = regexp.MustCompile(`pass: (\d+) distinct states`)

// -steal-race reaches the model: the same bounds explore more states (a
// spinning M may also give up while a victim has work) and still pass.
func TestExploreStealRaceFlag(t *testing.T) {
	args := []string{"explore", "-q", "-ps", "2", "-gs", "2", "-spawn", "1"}
	count := func(extra ...string) int {
		t.Helper()
		code, out := runCmd(append(args, extra...)...)
		m := distinctRe.FindStringSubmatch(out)
		if code != exitPass || m == nil {
			t.Fatalf("gmpcheck %q %q: exit %d, want a pass:\n%s", args, extra, code, out)
		}
		if len(extra) > 0 && !strings.Contains(out, "StealRace=true") {
			t.Fatalf("bounds line does not show StealRace:\n%s", out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	atomic, race := count(), count("-steal-race")
	if race <= atomic {
		t.Fatalf("-steal-race explored %d states, the atomic scan %d: want more", race, atomic)
	}
}

// A violation prints the counterexample action by action: the lost wakeup
// of ready-no-wakep ends with a NewProc, ..., Ready(g1) and a stutter.
func TestExploreViolationPrintsTrace(t *testing.T) {
	code, out := runCmd("explore", "-q", "-ps", "2", "-gs", "2", "-spawn", "1", "-syscalls=false", "-bug", "ready-no-wakep")
	if code != exitPass {
		t.Fatalf("exit %d, want %d (the seeded bug caught):\n%s", code, exitPass, out)
	}
	for _, want := range []string{
		"VIOLATION (6 steps) work conservation",
		"initial state:",
		" 1. m0: NewProc",
		" 6. m0: Ready(g1)",
		"stays in this state forever",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
