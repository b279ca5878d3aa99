package mutate

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// TestEquivalentsNameMutants: every survivor argued equivalent still names
// a mutant of the tree. An operator mutant's ID is its position, so when
// the code moves the entry goes stale silently: it excuses a mutant that no
// longer exists while the one now at its old line, or the moved one under
// its new position, is judged without the argument. Each operator entry
// must name a file the harness mutates and a token there of its type;
// each catalog entry a catalog mutant.
func TestEquivalentsNameMutants(t *testing.T) {
	root := moduleRoot(t)
	catalog := map[string]bool{}
	for _, m := range Catalog {
		catalog[m.ID] = true
	}
	for id := range Equivalents {
		slash := strings.LastIndex(id, "/")
		pos := strings.Split(id[:max(slash, 0)], ":")
		if len(pos) != 3 {
			if !catalog[id] {
				t.Errorf("%s: neither a catalog mutant nor file:line:col/TYPE", id)
			}
			continue
		}
		line, err1 := strconv.Atoi(pos[1])
		col, err2 := strconv.Atoi(pos[2])
		if err1 != nil || err2 != nil {
			t.Errorf("%s: bad position", id)
			continue
		}
		m := Mutant{ID: id, Kind: KindOperator, File: pos[0], Line: line, Col: col, Type: id[slash+1:]}
		if _, ok := operatorFiles[m.File]; !ok {
			t.Errorf("%s: %s is not a file the harness mutates", id, m.File)
			continue
		}
		if _, err := m.Apply(root); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}
