package mutate

import (
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
// real change, and text still in its file. A stale entry (its text gone,
// because the code it mutates changed) fails here, in the fast tier: the
// harness can only report it stale, so every campaign until someone reads
// that line judges one catalog mutant fewer. Two entries went stale so
// (an event gained its M, a line gained a comment) and were found only by
// a campaign.
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
		m, ok := parseOperatorID(id)
		if !ok {
			if !catalog[id] {
				t.Errorf("%s: neither a catalog mutant nor file:line:col/TYPE", id)
			}
			continue
		}
		if _, ok := operatorFiles[m.File]; !ok {
			t.Errorf("%s: %s is not a file the harness mutates", id, m.File)
			continue
		}
		if _, err := m.Apply(root); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// TestParseOperatorID: operatorID's inverse on an ID, and no operator
// mutant in a catalog name or a malformed position.
func TestParseOperatorID(t *testing.T) {
	m, ok := parseOperatorID("impl/runq.go:62:9/INVERT_BITWISE")
	if !ok || m.File != "impl/runq.go" || m.Line != 62 || m.Col != 9 || m.Type != "INVERT_BITWISE" || m.Kind != KindOperator {
		t.Fatalf("got %+v, %v", m, ok)
	}
	for _, id := range []string{"sched/dropg-m-not-cleared", "impl/runq.go:62/INVERT_BITWISE", "impl/runq.go:x:9/T", "impl/runq.go:062:9/T", "noslash"} {
		if _, ok := parseOperatorID(id); ok {
			t.Errorf("%q parsed as an operator mutant", id)
		}
	}
}
