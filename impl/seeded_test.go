package impl

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// queueSuite selects the run-queue tests that every seeded bug must fail.
const queueSuite = "^(TestRunq|TestGlobalRunq|TestHooksRunq)"

// TestSeededBugsCaught proves the queue tests bite: it runs them in the
// instrumented build once with no bug (they must pass, so a failure below is
// the bug's doing) and once per seeded bug (they must fail).
func TestSeededBugsCaught(t *testing.T) {
	bin := instrumentedTestBinary(t)
	run := func(bug Bug) (failed []string, out string, err error) {
		// The timeout is a backstop: a bug that livelocks the suite must
		// end as a failure here, not hang this test until go test's own
		// timeout kills the whole package.
		cmd := exec.Command(bin, "-test.run="+queueSuite, "-test.count=1", "-rapid.nofailfile", "-test.timeout=5m")
		cmd.Env = append(os.Environ(), "GMPCHECK_BUG="+string(bug))
		b, err := cmd.CombinedOutput()
		out = string(b)
		for _, m := range regexp.MustCompile(`(?m)^--- FAIL: (\S+)`).FindAllStringSubmatch(out, -1) {
			failed = append(failed, m[1])
		}
		return failed, out, err
	}
	if failed, out, err := run(NoBug); err != nil {
		t.Fatalf("the queue suite fails in the instrumented build without a bug (%v): %v\n%s", err, failed, tail(out, 40))
	}
	for _, bug := range Bugs {
		failed, out, err := run(bug)
		if err == nil {
			t.Errorf("seeded bug %s: the queue suite passed; it must fail\n%s", bug, tail(out, 20))
			continue
		}
		if len(failed) == 0 {
			t.Errorf("seeded bug %s: the suite exited with %v but no test reported a failure\n%s", bug, err, tail(out, 40))
			continue
		}
		t.Logf("seeded bug %-22s caught by %s", bug, strings.Join(failed, ", "))
	}
}

// instrumentedTestBinary builds this package's test binary with -tags
// gmpcheck_hooks. It is built afresh even when this binary has the hooks,
// because this one may carry -race, which would slow seven runs of the
// stress test several times over without checking anything more.
func instrumentedTestBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "impl.hooks.test")
	cmd := exec.Command("go", "test", "-c", "-tags", "gmpcheck_hooks", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the instrumented test binary: %v\n%s", err, out)
	}
	return bin
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
