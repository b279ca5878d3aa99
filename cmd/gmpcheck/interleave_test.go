package main

import (
	"context"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
)

func TestInterleaveUsage(t *testing.T) {
	checkCmdCases(t, []cmdCase{
		{[]string{"interleave", "-run", "nosuch"}, exitUsage, `-run "nosuch" matches no scenario`},
		{[]string{"interleave", "-bug", "nosuch"}, exitUsage, `unknown seeded bug "nosuch"`},
		{[]string{"interleave", "-replay", "0101"}, exitUsage, "-replay needs -run to select exactly one scenario"},
		{[]string{"interleave", "-run", "^empty-recheck$", "-replay", "01x"}, exitUsage, "not an actor digit"},
		{[]string{"interleave", "-preemption-bound", "-2"}, exitUsage, "-preemption-bound -2: want -1 (none) or >= 0"},
		{[]string{"interleave", "-replay", "01", "-windows"}, exitUsage, "-replay and -windows do not go together"},
		{[]string{"interleave", "-timeout", "-1s"}, exitUsage, "-timeout -1s"},
		{[]string{"interleave", "-run", "("}, exitUsage, "-run"},
		{[]string{"interleave", "extra"}, exitUsage, "unexpected arguments"},
		{[]string{"interleave", "-list"}, exitPass, "two-thieves-drain"},
		{[]string{"interleave", "-reduction", "nosuch"}, exitUsage, `-reduction "nosuch"`},
		{[]string{"interleave", "-reduction", "state", "-windows"}, exitUsage, "-reduction state goes with neither"},
		{[]string{"interleave", "-reduction", "state", "-preemption-bound", "2"}, exitUsage, "-reduction state goes with neither"},
	})
}

// TestInterleaveLoomStateCache: tokio's loom tests as written, selected
// with -loom, explored with the state-caching reduction, which counts the
// Mazurkiewicz traces (3433 for loom-steal-overflow, as DPOR's executions).
func TestInterleaveLoomStateCache(t *testing.T) {
	code, out := runCmd("interleave", "-loom", "-run", "^loom-steal-overflow$", "-reduction", "state")
	if code != exitPass || !strings.Contains(out, "3433 Mazurkiewicz traces") || !strings.Contains(out, "PASS") {
		t.Fatalf("exit %d, want %d with the trace count:\n%s", code, exitPass, out)
	}
}

// TestInterleaveWithoutHooksIsNotAPass: the default build has no yield
// points; without re-running itself it must not claim a result.
func TestInterleaveWithoutHooksIsNotAPass(t *testing.T) {
	code, out := runCmd("interleave", "-run", "^empty-recheck$", "-no-reexec")
	if impl.HooksEnabled() {
		if code != exitPass {
			t.Fatalf("instrumented build: exit %d:\n%s", code, out)
		}
		return
	}
	if code != exitInconclusive || !strings.Contains(out, "go run -tags gmpcheck_hooks ./cmd/gmpcheck interleave -run ^empty-recheck$ -no-reexec") {
		t.Fatalf("exit %d, want %d with the command to run:\n%s", code, exitInconclusive, out)
	}
}

// TestInterleaveFindsSeededBug runs the command end to end (re-running
// itself under the instrumented build when this test binary lacks it): a
// seeded bug must be found, and its schedule must replay to a failure.
func TestInterleaveFindsSeededBug(t *testing.T) {
	code, out := runCmd("interleave", "-run", "^empty-recheck$", "-bug", "empty-no-recheck")
	if code != exitPass || !strings.Contains(out, "seeded bug empty-no-recheck CAUGHT") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	i := strings.Index(out, "-replay ")
	if i < 0 {
		t.Fatalf("no replay command in:\n%s", out)
	}
	schedule := strings.Fields(out[i+len("-replay "):])[0]
	code, out = runCmd("interleave", "-run", "^empty-recheck$", "-bug", "empty-no-recheck", "-replay", schedule)
	if code != exitFail || !strings.Contains(out, "VIOLATION (linearizability)") {
		t.Fatalf("replay of %s: exit %d, want %d:\n%s", schedule, code, exitFail, out)
	}
	code, out = runCmd("interleave", "-run", "^empty-recheck$", "-replay", schedule)
	if code != exitPass {
		t.Fatalf("replay of %s without the bug: exit %d, want %d:\n%s", schedule, code, exitPass, out)
	}
}

// TestInterleaveCutShortIsInconclusive: a search stopped by
// -max-executions is neither a pass nor a violation, in this binary or in
// the instrumented one it re-runs (whose exit status must come through).
func TestInterleaveCutShortIsInconclusive(t *testing.T) {
	code, out := runCmd("interleave", "-run", "^two-thieves-drain$", "-max-executions", "3", "-q")
	if code != exitInconclusive || !strings.Contains(out, "reached the limit of 3 executions") || !strings.Contains(out, "INCONCLUSIVE") {
		t.Fatalf("exit %d, want %d (inconclusive):\n%s", code, exitInconclusive, out)
	}
}

// TestInterleaveStageCancelledIsInconclusive: the verify stage, given no
// time at all, reports inconclusive, never a pass.
func TestInterleaveStageCancelledIsInconclusive(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var log strings.Builder
	res := interleaveStage(ctx, &log)
	if res.verdict != inconclusive {
		t.Fatalf("cancelled stage: %v (%s), want %v\n%s", res.verdict, res.summary, inconclusive, log.String())
	}
}
