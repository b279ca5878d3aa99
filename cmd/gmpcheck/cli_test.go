package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

// gmpcheckBinary builds this command once per test run (a test binary
// cannot be signalled or run from another directory like the real one).
func gmpcheckBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "gmpcheck-test-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "gmpcheck")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// TestHelpAndVersion: -h and 'help <cmd>' print the usage on stdout (exit
// 0), errors go to stderr, 'version' names the toolchain.
func TestHelpAndVersion(t *testing.T) {
	for name := range commands {
		for _, args := range [][]string{{name, "-h"}, {"help", name}} {
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			if code != exitPass || !strings.Contains(stdout.String(), "usage: gmpcheck "+name) || stderr.Len() != 0 {
				t.Errorf("gmpcheck %q: exit %d, stdout %q, stderr %q", args, code, firstLine(stdout.String()), stderr.String())
			}
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"explore", "-nosuch"}, &stdout, &stderr); code != exitUsage || stdout.Len() != 0 ||
		!strings.Contains(stderr.String(), "flag provided but not defined") {
		t.Errorf("bad flag: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	checkCmdCases(t, []cmdCase{
		{[]string{"help", "nosuch"}, exitUsage, `unknown command "nosuch"`},
		{[]string{"version"}, exitPass, "gmpcheck "},
		{[]string{"version", "x"}, exitUsage, "takes no arguments"},
	})
}

// TestFlagRanges: values out of range and conflicting flags are usage
// errors that name the flag and what it wants.
func TestFlagRanges(t *testing.T) {
	checkCmdCases(t, []cmdCase{
		{[]string{"run", "-procs", "0"}, exitUsage, "-procs 0: want 1..256"},
		{[]string{"run", "-procs", "65536"}, exitUsage, "-procs 65536: want 1..256"},
		{[]string{"run", "-queue", "0"}, exitUsage, "-queue 0: want a power of two in 2..256"},
		{[]string{"run", "-duration", "0s"}, exitUsage, "-duration 0s: want 1ms.."},
		{[]string{"run", "-impl", "gm", "-queue", "8"}, exitUsage, "-queue needs -impl gmp"},
		{[]string{"run", "-impl", "gm", "-schedtrace", "1s"}, exitUsage, "-schedtrace needs -impl gmp"},
		{[]string{"lin", "-workers", "-1"}, exitUsage, "-workers -1: want 0.."},
		{[]string{"lin", "-capacity", "3"}, exitUsage, "-capacity 3: want a power of two in 2..256"},
		{[]string{"queues", "-timeout", "-5s"}, exitUsage, "-timeout -5s"},
		{[]string{"tla", "-j", "0"}, exitUsage, "-j 0: want 1..64"},
		{[]string{"tla", "-tlc", "/nonexistent.jar"}, exitUsage, "-tlc /nonexistent.jar: not a tla2tools.jar file"},
		{[]string{"tla", "-run", "nosuchcfg"}, exitUsage, `-run "nosuchcfg" matches no cfg`},
		{[]string{"tla", "-timeout", "-1s"}, exitUsage, "-timeout -1s"},
		{[]string{"verify", "-run", "("}, exitUsage, "-run"},
		{[]string{"verify", "-only", "queues", "-run", "tla"}, exitUsage, "-only is the old name of -run"},
		{[]string{"interleave", "-list", "-bug", "get-no-cas"}, exitUsage, "-list and -bug do not go together"},
	})
}

// TestJSONRows: -json prints one object per line on stdout, the last of
// kind result with the verdict and exit status; the report goes to stderr.
func TestJSONRows(t *testing.T) {
	cases := []struct {
		args []string
		kind string
		code int
	}{
		{[]string{"explore", "-json", "-q", "-ps", "2", "-gs", "2", "-spawn", "1", "-bug", "nmspinning-no-dec"}, "explore", exitPass},
		{[]string{"queues", "-json", "-seqs", "5", "-steps", "20", "-ops", "2000"}, "", exitPass},
		{[]string{"explore", "-json", "-q", "-max-states", "50"}, "explore", exitInconclusive},
		// Re-run in the instrumented build: the child's rows come through.
		{[]string{"interleave", "-json", "-q", "-run", "^empty-recheck$"}, "scenario", exitPass},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d\n%s", tc.args, code, tc.code, stderr.String())
			continue
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		var kinds []string
		var last map[string]any
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%q: not a JSON line: %q (%v)", tc.args, l, err)
			}
			if m["command"] != tc.args[0] {
				t.Errorf("%q: command %v", tc.args, m["command"])
			}
			kinds = append(kinds, m["kind"].(string))
			last = m
		}
		if last["kind"] != "result" || last["exit"] != float64(tc.code) {
			t.Errorf("%q: last row %v", tc.args, last)
		}
		if tc.kind != "" && !strings.Contains(strings.Join(kinds, ","), tc.kind) {
			t.Errorf("%q: no %s row in %v", tc.args, tc.kind, kinds)
		}
		if stderr.Len() == 0 {
			t.Errorf("%q: the human-readable report is missing from stderr", tc.args)
		}
	}
}

// TestInstalledBinaryOutsideCheckout runs the built command from an empty
// temporary directory, as 'go install' users do: tla finds its modules
// built into the binary, interleave builds its instrumented twin.
func TestInstalledBinaryOutsideCheckout(t *testing.T) {
	bin := gmpcheckBinary(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"tla", "-run", "^RunQueue_bug_cas_store$"},
		{"interleave", "-q", "-run", "^empty-recheck$"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("gmpcheck %q in %s: %v\n%s", args, dir, err, out)
			continue
		}
		if !strings.Contains(string(out), ": PASS") {
			t.Errorf("gmpcheck %q: no PASS:\n%s", args, out)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the working directory got files: %v", entries)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
