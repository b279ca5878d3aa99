//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// markedProcesses lists the processes whose environment holds marker: the
// command under test and everything it started (children inherit it).
func markedProcesses(marker string) []string {
	var found []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.Contains(env, []byte(marker)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue // a zombie has exited; its parent has yet to reap it
		}
		cmd, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		found = append(found, filepath.Base(d)+": "+strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return found
}

// TestInterruptLongCommands starts each long-running command, waits until
// it is busy (ready), sends SIGINT to it alone (not its children), and
// requires: exit status 3, an INCONCLUSIVE line with what it had, no file
// left in its TMPDIR, and no process of its left running.
func TestInterruptLongCommands(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Fatalf("this test looks for leftover processes in /proc: %v", err)
	}
	bin := gmpcheckBinary(t)
	cases := []struct {
		name  string
		args  []string
		ready func(out string, marker string) bool
		want  []string
	}{
		{"explore", []string{"explore", "-ps", "3", "-gs", "5", "-spawn", "4"}, printed("explore: Ps="), []string{"INCONCLUSIVE: the search was cut short (interrupted)"}},
		{"lin", []string{"lin", "-rounds", "100000000"}, printed("lin: capacity"), []string{"INCONCLUSIVE: cut short after"}},
		{"queues", []string{"queues", "-seqs", "100000000"}, printed("queues: model"), []string{"queues: INCONCLUSIVE", "(interrupted)"}},
		{"run", []string{"run", "-duration", "10m", "-schedtrace", "50ms"}, printed("SCHED"), []string{"run: interrupted after", "INCONCLUSIVE"}},
		// Interrupted in its first stage: a partial table, the rest not run.
		{"verify", []string{"verify", "-run", "queues|spec-explore"}, printed("model cap 2:"), []string{"STAGE", "\nqueues ", "\nspec-explore ", "not run: interrupted", "verify: stopped early (interrupted)", "verify: INCONCLUSIVE"}},
		// Interrupted once its node children run.
		{"tla", []string{"tla", "-run", "GMP|RunQueue"}, childRunning("run.mjs"), []string{"not run: interrupted", "tla: INCONCLUSIVE"}},
		// Interrupted once the instrumented child it built runs: only the
		// parent is signalled; the child must go too, and the build with it.
		{"interleave", []string{"interleave", "-windows"}, childRunning("gmpcheck-hooks-", "gmpcheck interleave"), []string{"INCONCLUSIVE"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			marker := fmt.Sprintf("GMPCHECK_INTERRUPT_TEST=%s-%d", tc.name, time.Now().UnixNano())
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp, marker)
			var out syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Wait until the command is busy; a hang guard, not a timing check.
			deadline := time.Now().Add(2 * time.Minute)
			for !tc.ready(out.String(), marker) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("never got ready:\n%s", out.String())
				}
				select {
				case err := <-done:
					t.Fatalf("exited before the interrupt (%v):\n%s", err, out.String())
				case <-time.After(50 * time.Millisecond):
				}
			}
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatalf("still running a minute after SIGINT:\n%s", out.String())
			}
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			text := out.String()
			if code != exitInconclusive {
				t.Errorf("exit %d, want %d", code, exitInconclusive)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			// Children are killed with their process group; give the kernel
			// a moment to reap them.
			var left []string
			for i := 0; i < 50; i++ {
				if left = markedProcesses(marker); len(left) == 0 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(left) > 0 {
				t.Errorf("processes left running: %q", left)
			}
			entries, _ := os.ReadDir(tmp)
			for _, e := range entries {
				t.Errorf("left in TMPDIR: %s", e.Name())
			}
			if t.Failed() {
				t.Logf("output:\n%s", text)
			}
		})
	}
}

func printed(s string) func(string, string) bool {
	return func(out, _ string) bool { return strings.Contains(out, s) }
}

// childRunning is ready once a process started by the command has all of
// ss in its command line.
func childRunning(ss ...string) func(string, string) bool {
	return func(_, marker string) bool {
	procs:
		for _, p := range markedProcesses(marker) {
			for _, s := range ss {
				if !strings.Contains(p, s) {
					continue procs
				}
			}
			return true
		}
		return false
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
