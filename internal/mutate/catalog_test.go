package mutate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// moduleRoot is the repository root above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestCatalogWellFormed: unique IDs, a known area, a file of that area, a
// real change. Entries whose text is gone are listed (the harness reports
// them stale); with GMPCHECK_LONG=1 a stale entry fails the test.
func TestCatalogWellFormed(t *testing.T) {
	root := moduleRoot(t)
	seen := map[string]bool{}
	for _, m := range Catalog {
		if seen[m.ID] {
			t.Errorf("%s: duplicate ID", m.ID)
		}
		seen[m.ID] = true
		if _, err := ParseArea(string(m.Area)); err != nil {
			t.Errorf("%s: %v", m.ID, err)
		}
		if m.Kind != KindSemantic || m.Orig == "" || m.Orig == m.Repl || m.What == "" {
			t.Errorf("%s: not a semantic change (kind %q, orig %q, repl %q, what %q)", m.ID, m.Kind, m.Orig, m.Repl, m.What)
		}
		if _, err := os.Stat(filepath.Join(root, m.File)); err != nil {
			t.Errorf("%s: %v", m.ID, err)
			continue
		}
		if _, err := m.Apply(root); err != nil {
			if errors.Is(err, ErrStale) && os.Getenv("GMPCHECK_LONG") != "1" {
				t.Logf("%s: %v (the harness reports it stale)", m.ID, err)
				continue
			}
			t.Errorf("%s: %v", m.ID, err)
		}
	}
}
