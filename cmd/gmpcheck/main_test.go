package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// testCtx is the context of the commands the tests run in-process: they
// share one instrumented build (hooked.go), made when the first needs it
// and removed by TestMain.
var testCtx = withHooked(context.Background())

func TestMain(m *testing.M) {
	code := m.Run()
	cleanupHooked(testCtx)
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// runCmd runs the command line in-process and returns its exit code and
// output.
func runCmd(args ...string) (int, string) {
	var out bytes.Buffer
	code := runContext(testCtx, args, &out, &out)
	return code, out.String()
}

// A cmdCase is one command line, the exit code it must give and a string its
// output must contain.
type cmdCase struct {
	args []string
	code int
	want string
}

func checkCmdCases(t *testing.T, cases []cmdCase) {
	t.Helper()
	for _, tt := range cases {
		code, out := runCmd(tt.args...)
		if code != tt.code || !strings.Contains(out, tt.want) {
			t.Errorf("gmpcheck %q: exit %d, want %d; output should contain %q:\n%s", tt.args, code, tt.code, tt.want, out)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	checkCmdCases(t, []cmdCase{
		{nil, exitUsage, "usage: gmpcheck"},
		{[]string{"-h"}, exitPass, "commands:"},
		{[]string{"nosuch"}, exitUsage, `unknown command "nosuch"`},
		{[]string{"verify", "-nosuchflag"}, exitUsage, "flag provided but not defined"},
		{[]string{"verify", "-run", "nosuchstage"}, exitUsage, `-run "nosuchstage" matches no stage (stages: queues,`},
		{[]string{"verify", "extra"}, exitUsage, "unexpected arguments"},
		{[]string{"verify", "-h"}, exitPass, "usage: gmpcheck verify"},
		{[]string{"queues", "-steps", "0"}, exitUsage, "-steps 0: want 1.."},
		{[]string{"queues", "-h"}, exitPass, "usage: gmpcheck queues"},
	})
}

func TestEveryCommandHasHelp(t *testing.T) {
	for name := range commands {
		code, out := runCmd(name, "-h")
		if code != exitPass || !strings.Contains(out, "usage: gmpcheck "+name) {
			t.Errorf("gmpcheck %s -h: exit %d, output:\n%s", name, code, out)
		}
	}
}

func TestQueuesSmallBudgetPasses(t *testing.T) {
	code, out := runCmd("queues", "-seqs", "20", "-steps", "50", "-ops", "20000")
	if code != exitPass || !strings.Contains(out, "queues: PASS") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestQueuesTimeoutIsInconclusive(t *testing.T) {
	code, out := runCmd("queues", "-seqs", "1000000", "-timeout", "50ms")
	if code != exitInconclusive || !strings.Contains(out, "INCONCLUSIVE") {
		t.Fatalf("a run cut short by its timeout: exit %d, want %d:\n%s", code, exitInconclusive, out)
	}
}

func TestVerdicts(t *testing.T) {
	if worst(pass, inconclusive) != inconclusive || worst(inconclusive, fail) != fail || worst(pass, pass) != pass {
		t.Fatal("worst does not order fail > inconclusive > pass")
	}
	for v, code := range map[verdict]int{pass: 0, fail: 1, inconclusive: 3} {
		if v.exitCode() != code {
			t.Errorf("%v exits %d, want %d", v, v.exitCode(), code)
		}
	}
}

func TestExploreExitCodes(t *testing.T) {
	checkCmdCases(t, []cmdCase{
		{[]string{"explore", "-q", "-ps", "1", "-gs", "2", "-spawn", "1", "-thread-limit"}, exitPass, "PASS"},
		// With -bug, the check catching the bug is the command's pass.
		{[]string{"explore", "-q", "-ps", "2", "-gs", "2", "-spawn", "1", "-bug", "nmspinning-no-dec"}, exitPass, "VIOLATION (5 steps) invariant"},
		{[]string{"explore", "-q", "-ps", "1", "-gs", "2", "-spawn", "1", "-bug", "no-61", "-liveness=false"}, exitFail, "seeded bug no-61 MISSED"},
		{[]string{"explore", "-q", "-max-states", "100"}, exitInconclusive, "INCONCLUSIVE"},
		{[]string{"explore", "-bug", "nosuchbug"}, exitUsage, "nosuchbug"},
		{[]string{"explore", "-ps", "0"}, exitUsage, "-ps 0: want 1.."},
		{[]string{"explore", "-cap", "3"}, exitUsage, "-cap 3: want a power of two in 2..8"},
		{[]string{"explore", "-tick", "0"}, exitUsage, "-tick 0: want 1..61"},
		{[]string{"explore", "-timeout", "-1s"}, exitUsage, "-timeout -1s"},
	})
}
