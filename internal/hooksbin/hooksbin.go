// Package hooksbin builds and runs the instrumented gmpcheck binary (built
// with -tags gmpcheck_hooks: yield points at the run queues' atomic
// accesses and the seeded-bug switch), for a default-build gmpcheck whose
// checks need it: interleave, lin -bug, and verify's seeded-bug self-tests.
//
// The binary is built from the module's source, found in this order: the
// working directory or a parent (a checkout); the directory this package
// was compiled from, when it still holds the module (go install from a
// checkout); the module cache, for a binary installed with
// 'go install github.com/gmpcheck/gmpcheck/cmd/gmpcheck@version'
// (go mod download). It needs the go command. Running the built binary,
// not 'go run', passes its exit status through (go run turns every non-zero
// status into 1), and the child runs in a process group of its own that a
// cancelled context signals, then kills.
package hooksbin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/procgroup"
)

// Module is the module path whose source is built.
const Module = "github.com/gmpcheck/gmpcheck"

// Env is set in the child's environment, so that a child that still lacks
// the hooks does not build and re-run again.
const Env = "GMPCHECK_HOOKS_REEXEC"

// CommandLine is what to run by hand when the binary cannot be built.
func CommandLine(args []string) string {
	return strings.TrimSpace("go run -tags gmpcheck_hooks ./cmd/gmpcheck " + strings.Join(args, " "))
}

// A Binary is a built instrumented gmpcheck in a temporary directory.
type Binary struct {
	Path string
	dir  string
}

// Cleanup removes the binary and its directory.
func (b *Binary) Cleanup() {
	if b != nil && b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// Source finds the module's source tree (see the package comment).
func Source(ctx context.Context) (string, error) {
	if os.Getenv(Env) != "" {
		return "", errors.New("already re-executed and still without yield points")
	}
	if wd, err := os.Getwd(); err == nil {
		if root, ok := moduleAbove(wd); ok {
			return root, nil
		}
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if root, ok := moduleAbove(filepath.Dir(file)); ok {
			return root, nil
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == Module && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return download(ctx, bi.Main.Version)
	}
	return "", fmt.Errorf("no %s source tree above the working directory or in the module cache; from a checkout, run: %s", Module, CommandLine(nil))
}

func moduleAbove(dir string) (string, bool) {
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module "+Module+"\n") {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// download fetches the module's source at version into the module cache
// and returns its directory.
func download(ctx context.Context, version string) (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", errors.New("no go command on PATH to fetch the module's source")
	}
	cmd := exec.CommandContext(ctx, goCmd, "mod", "download", "-json", Module+"@"+version)
	procgroup.KillOnCancel(cmd)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v", Module, version, err)
	}
	var j struct{ Dir, Error string }
	if err := json.Unmarshal(out, &j); err != nil || j.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no directory (%s)", Module, version, j.Error)
	}
	return j.Dir, nil
}

// Build builds the instrumented command into a temporary directory; the
// build's output goes to log. The caller removes it with Cleanup.
func Build(ctx context.Context, log io.Writer) (*Binary, error) {
	root, err := Source(ctx)
	if err != nil {
		return nil, err
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("no go command on PATH to build the instrumented binary; run: %s", CommandLine(nil))
	}
	dir, err := os.MkdirTemp("", "gmpcheck-hooks-")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "gmpcheck")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	// The go command's own scratch files go into dir too, so that removing
	// dir removes them even when the build is killed.
	scratch := filepath.Join(dir, "gotmp")
	if err := os.Mkdir(scratch, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.CommandContext(ctx, goCmd, "build", "-tags", "gmpcheck_hooks", "-o", bin, "./cmd/gmpcheck")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOTMPDIR="+scratch)
	cmd.Stdout, cmd.Stderr = log, log
	procgroup.KillOnCancel(cmd)
	if err := cmd.Run(); err != nil {
		os.RemoveAll(dir)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("building the instrumented binary (go build -tags gmpcheck_hooks ./cmd/gmpcheck in %s): %v; run: %s", root, err, CommandLine(nil))
	}
	return &Binary{Path: bin, dir: dir}, nil
}

// grace is how long a cancelled child gets to print what it had and exit
// before it is killed.
const grace = 5 * time.Second

// Command is the binary run with args under ctx: when ctx is done the
// child's process group gets SIGTERM (the child reports inconclusive and
// cleans up) and, grace later, SIGKILL.
func (b *Binary) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, b.Path, args...)
	cmd.Env = append(os.Environ(), Env+"=1")
	procgroup.KillOnCancel(cmd)
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return procgroup.Signal(cmd, syscall.SIGTERM)
	}
	cmd.WaitDelay = grace
	return cmd
}

// ExitCode is the child's exit status from Run's error: 0 for nil, -1 when
// it did not exit normally.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
