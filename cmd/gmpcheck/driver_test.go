package main

import (
	"strings"
	"testing"
)

func TestDriverExitCodes(t *testing.T) {
	checkCmdCases(t, []cmdCase{
		{[]string{"driver", "-traces", "50", "-seed", "1"}, exitPass, "driver: PASS"},
		{[]string{"driver", "-traces", "1000000000", "-timeout", "50ms"}, exitInconclusive, "INCONCLUSIVE"},
		{[]string{"driver", "-traces", "0"}, exitUsage, "-traces 0"},
		{[]string{"driver", "-steps", "0"}, exitUsage, "-steps 0"},
		{[]string{"driver", "-bug", "nosuchbug"}, exitUsage, "nosuchbug"},
		{[]string{"driver", "-stage", "-bug", "no-61"}, exitUsage, "-stage runs every seeded bug"},
		{[]string{"driver", "-timeout", "-1s"}, exitUsage, "-timeout"},
	})
}

// TestDriverSeededBug: a seeded scheduler bug, which exists only in the
// instrumented build (a default-build binary builds that and re-runs), is
// caught: exit 0 and the divergence printed.
func TestDriverSeededBug(t *testing.T) {
	code, out := runCmd("driver", "-bug", "no-61", "-seed", "3")
	if code != exitPass || !strings.Contains(out, "diverges from the spec") || !strings.Contains(out, "seeded bug no-61 CAUGHT") {
		t.Fatalf("exit %d, want %d with the divergence:\n%s", code, exitPass, out)
	}
}
