package tlacheck

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeNpm stands in for npm: 'npm ci' creates the files CheckInstalled and
// CheckParserInstalled look for (unless FAKE_NPM_FAIL is set) and records
// its arguments, so EnsureInstalled is tested without the registry.
const fakeNpm = `#!/bin/sh
PATH=/usr/bin:/bin # the test hides the caller's PATH; mkdir and touch live here
echo "$@" >> npm.calls
[ -n "$FAKE_NPM_FAIL" ] && exit 1
mkdir -p node_modules/tla-checker node_modules/@tlaplus/tree-sitter-tlaplus node_modules/web-tree-sitter
touch node_modules/tla-checker/tla_checker_bg.wasm node_modules/@tlaplus/tree-sitter-tlaplus/tree-sitter-tlaplus.wasm node_modules/web-tree-sitter/web-tree-sitter.wasm
`

// withTools puts a bin directory holding only the named stand-ins first on
// PATH and hides every other directory, so the real node and npm are not
// found.
func withTools(t *testing.T, names ...string) {
	t.Helper()
	bin := t.TempDir()
	for _, n := range names {
		script := "#!/bin/sh\nexit 0\n"
		if n == "npm" {
			script = fakeNpm
		}
		if err := os.WriteFile(filepath.Join(bin, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
}

func TestEnsureInstalled(t *testing.T) {
	ctx := context.Background()
	t.Run("installs with npm ci when missing", func(t *testing.T) {
		withTools(t, "node", "npm")
		dir := t.TempDir()
		if err := EnsureInstalled(ctx, dir, io.Discard); err != nil {
			t.Fatal(err)
		}
		calls, err := os.ReadFile(filepath.Join(dir, "npm.calls"))
		if err != nil || !strings.HasPrefix(string(calls), "ci ") {
			t.Fatalf("npm calls %q (%v), want one 'npm ci'", calls, err)
		}
		// Now present: a second call must not run npm again.
		if err := EnsureInstalled(ctx, dir, io.Discard); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(filepath.Join(dir, "npm.calls")); string(again) != string(calls) {
			t.Fatalf("npm ran again on an installed directory: %q", again)
		}
	})
	t.Run("npm ci fails", func(t *testing.T) {
		withTools(t, "node", "npm")
		t.Setenv("FAKE_NPM_FAIL", "1")
		if err := EnsureInstalled(ctx, t.TempDir(), io.Discard); !errors.Is(err, ErrNotInstalled) {
			t.Fatalf("EnsureInstalled = %v, want ErrNotInstalled", err)
		}
	})
	t.Run("no npm", func(t *testing.T) {
		withTools(t, "node")
		err := EnsureInstalled(ctx, t.TempDir(), io.Discard)
		if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "npm not found") {
			t.Fatalf("EnsureInstalled = %v, want ErrNotInstalled naming npm", err)
		}
	})
	t.Run("no node", func(t *testing.T) {
		withTools(t, "npm")
		err := EnsureInstalled(ctx, t.TempDir(), io.Discard)
		if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "node not found") {
			t.Fatalf("EnsureInstalled = %v, want ErrNotInstalled naming node", err)
		}
	})
}
