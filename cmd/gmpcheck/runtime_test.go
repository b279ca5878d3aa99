package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

func TestRuntimeUsage(t *testing.T) {
	for _, args := range [][]string{{"-bogus"}, {"extra"}, {"-steps", "0"}, {"-timeout", "-1s"}} {
		var out, errb bytes.Buffer
		if code := runRuntime(context.Background(), args, &out, &errb); code != exitUsage {
			t.Errorf("runtime %v: exit %d, want %d (usage)", args, code, exitUsage)
		}
	}
}

func TestJoinAllSince(t *testing.T) {
	got := joinAllSince([]string{"-go", "all-since", "1.14", "-seqs", "3", "-go", "1.21.13"})
	want := []string{"-go", "all-since=1.14", "-seqs", "3", "-go", "1.21.13"}
	if !slices.Equal(got, want) {
		t.Fatalf("joinAllSince = %v, want %v", got, want)
	}
}

func TestNewestPatches(t *testing.T) {
	versions := strings.Fields(`v0.0.1-go1.13.15.linux-amd64 v0.0.1-go1.14.2.linux-amd64 v0.0.1-go1.14.15.linux-amd64
		v0.0.1-go1.14.4.linux-amd64 v0.0.1-go1.18beta1.linux-amd64 v0.0.1-go1.18.linux-amd64 v0.0.1-go1.18.10.linux-amd64
		v0.0.1-go1.20.linux-amd64 v0.0.1-go1.21.13.darwin-arm64 v0.0.1-go1.21.0.linux-amd64`)
	got := newestPatches(versions, 14, "linux-amd64")
	want := []string{"1.14.15", "1.18.10", "1.20", "1.21.0"}
	if !slices.Equal(got, want) {
		t.Fatalf("newestPatches = %v, want %v", got, want)
	}
}

// A run cut short is inconclusive (exit 3), never a pass or a failure.
func TestRuntimeTimeoutInconclusive(t *testing.T) {
	var out, errb bytes.Buffer
	code := runRuntime(context.Background(), []string{"-timeout", "1ms"}, &out, &errb)
	if code != exitInconclusive {
		t.Fatalf("exit %d, want %d (inconclusive)\n%s%s", code, exitInconclusive, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "runtime: INCONCLUSIVE") {
		t.Errorf("no INCONCLUSIVE verdict line:\n%s", out.String())
	}
}

// TestRuntimeStage runs what a verify stage would (at a smaller budget) on
// the local toolchain: it must pass.
func TestRuntimeStage(t *testing.T) {
	saved := runtimeStageArgs
	runtimeStageArgs = []string{"-seqs", "10", "-ops", "5000", "-rounds", "10", "-rapidchecks", "10", "-checks", "diff,rapid,stress,porcupine", "-caps", "4"}
	defer func() { runtimeStageArgs = saved }()
	var log bytes.Buffer
	res := checkRuntimeLocal(context.Background(), &log)
	t.Log(log.String())
	if res.verdict != pass {
		t.Fatalf("the local toolchain's run queue: %v: %s", res.verdict, res.summary)
	}
	if res.seeded != 1 || res.caught != 1 || !strings.Contains(log.String(), "seeded mutant") {
		t.Errorf("the seeded mutant was not run and rejected: %d/%d caught", res.caught, res.seeded)
	}
	if !strings.Contains(res.summary, "4 of 4 checks pass") {
		t.Errorf("summary %q does not count the 4 checks as passed", res.summary)
	}
	for _, c := range []string{"diff", "rapid", "stress", "porcupine"} {
		if !strings.Contains(log.String(), c) {
			t.Errorf("log lacks the %s row", c)
		}
	}
}

// TestRuntimeJSON: -json gives one release row with its checks, then the
// result row, on stdout.
func TestRuntimeJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := runRuntime(context.Background(), []string{"-json", "-checks", "diff", "-seqs", "5", "-rapidchecks", "0"}, &out, &errb)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != exitPass || len(lines) != 2 || !strings.Contains(lines[0], `"kind":"release"`) || !strings.Contains(lines[0], `"check":"diff"`) ||
		!strings.Contains(lines[1], `"kind":"result"`) || !strings.Contains(lines[1], `"verdict":"PASS"`) {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
}
