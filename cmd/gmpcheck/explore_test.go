package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// -go reaches the model: the bounds line names the release, and an
// unknown one is a usage error.
func TestExploreGoFlag(t *testing.T) {
	code, out := runCmd("explore", "-q", "-ps", "1", "-gs", "2", "-spawn", "1", "-go", "go1.19")
	if code == exitUsage || !strings.Contains(out, "Go=go1.19") {
		t.Fatalf("exit %d, the bounds line should name go1.19:\n%s", code, out)
	}
	checkCmdCases(t, []cmdCase{{[]string{"explore", "-go", "go0.1"}, exitUsage, "-go: unknown Go version"}})
}

// A liveness pass on a graph the M bound cut is inconclusive (exit 3) and
// says why; -thread-limit makes the same bounds a pass for the runtime with
// that thread limit, and go1.19 fails them with a lost wakeup. Ms=2 keeps
// all three outcomes (21912, 21912 and 35478 states; Ms=3 made them 913152
// and 809470, a minute of the -race test command).
func TestExploreMBoundAndGoVersion(t *testing.T) {
	args := []string{"explore", "-q", "-ps", "2", "-ms", "2", "-gs", "2", "-spawn", "1", "-syscalls=false"}
	checkCmdCases(t, []cmdCase{
		{args, exitInconclusive, "cut"},
		{append(args, "-thread-limit"), exitPass, "thread exhaustion"},
		{append(args, "-thread-limit", "-go", "go1.19", "-syscalls", "-netpoll"), exitFail, "work conservation"},
	})
}

// A violation prints the counterexample action by action: the lost wakeup
// of ready-no-wakep ends with a NewProc, ..., Ready(g1) and a stutter.
func TestExploreViolationPrintsTrace(t *testing.T) {
	code, out := runCmd("explore", "-q", "-ps", "2", "-ms", "2", "-gs", "2", "-spawn", "1", "-syscalls=false", "-bug", "ready-no-wakep")
	if code != exitPass {
		t.Fatalf("exit %d, want %d (the seeded bug caught):\n%s", code, exitPass, out)
	}
	for _, want := range []string{
		"VIOLATION (16 steps) work conservation",
		"initial state:",
		" 1. m0: NewProc",
		" 2. m0: Wakep",
		" 3. m0: WakepStartM",
		" 9. m1: StealEmptyRing(p0)",
		"10. m1: StealMiss(p0)",
		"11. m1: ReleaseP",
		"12. m1: DropSpinning",
		"14. m0: Ready(g1)",
		"16. m1: StopM",
		"stays in this state forever",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// limitHeap puts the collector's limit just above the bound and restores
// the one before; no bound, or a lower limit set before, leaves it alone.
func TestLimitHeap(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	restore := limitHeap(1 << 30)
	if got := debug.SetMemoryLimit(-1); got <= 1<<30 || got > 1<<30+1<<29 {
		t.Errorf("limit under a 1 GiB bound: %d", got)
	}
	restore()
	limitHeap(0)()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after restore: %d, want %d", got, before)
	}
	debug.SetMemoryLimit(1 << 29) // as GOMEMLIMIT=512MiB would
	defer debug.SetMemoryLimit(before)
	restore = limitHeap(1 << 30)
	if got := debug.SetMemoryLimit(-1); got != 1<<29 {
		t.Errorf("limit under a 1 GiB bound with 512 MiB set before: %d", got)
	}
	restore()
}
