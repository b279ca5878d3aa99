package tlacheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// EnsureInstalled makes the pinned node tools (tla-checker and the
// tree-sitter parser) present under dir, running 'npm ci' there from
// package-lock.json when either is missing, so that 'gmpcheck verify' works
// on a fresh clone as 'go test ./tla' does after the README's test command.
// npm's output goes to log. Without node or npm it returns ErrNotInstalled
// (wrapped), which callers report as inconclusive: nothing was checked.
func EnsureInstalled(ctx context.Context, dir string, log io.Writer) error {
	if CheckInstalled(dir) == nil && CheckParserInstalled(dir) == nil {
		return nil
	}
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("%w: node not found in PATH", ErrNotInstalled)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("%w: npm not found in PATH", ErrNotInstalled)
	}
	fmt.Fprintf(log, "installing the pinned TLA+ tools: npm ci (in %s)\n", dir)
	cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: npm ci failed: %v", ErrNotInstalled, err)
	}
	return errors.Join(CheckInstalled(dir), CheckParserInstalled(dir))
}
