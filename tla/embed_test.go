package tla

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestUnpackPrunes: Unpack reuses its own directory, and removes other
// versions' directories unused for unusedFor and interrupted unpackings a
// day old, while keeping recently used ones.
func TestUnpackPrunes(t *testing.T) {
	cache := t.TempDir()
	old := filepath.Join(cache, "tla-0000000000000old")
	recent := filepath.Join(cache, "tla-00000000000recent")
	stale := filepath.Join(cache, "unpacking-123")
	other := filepath.Join(cache, "something-else")
	for _, d := range []string{old, recent, stale, other} {
		if err := os.MkdirAll(filepath.Join(d, "node_modules"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-unusedFor - time.Hour)
	os.WriteFile(filepath.Join(old, lastUsed), nil, 0o644)
	os.Chtimes(filepath.Join(old, lastUsed), long, long)
	os.WriteFile(filepath.Join(recent, lastUsed), nil, 0o644)
	os.Chtimes(recent, long, long) // its mark is what counts, not the directory's time
	os.Chtimes(stale, long, long)
	os.Chtimes(other, long, long)

	dir, err := Unpack(cache)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Unpack(cache)
	if err != nil || again != dir {
		t.Fatalf("second Unpack = %q, %v; want %q", again, err, dir)
	}
	for d, want := range map[string]bool{dir: true, old: false, recent: true, stale: false, other: true} {
		_, err := os.Stat(d)
		if got := err == nil; got != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(d), got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, lastUsed)); err != nil {
		t.Errorf("Unpack did not mark its directory used: %v", err)
	}
}
