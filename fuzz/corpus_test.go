package fuzz

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// parseCorpusFile reads a one-value []byte corpus file in the
// "go test fuzz v1" format, so tests can run a committed seed directly.
func parseCorpusFile(b []byte) ([]byte, error) {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a one-value fuzz corpus file")
	}
	lit, ok := strings.CutPrefix(lines[1], "[]byte(")
	if !ok || !strings.HasSuffix(lit, ")") {
		return nil, fmt.Errorf("value is not a []byte")
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// TestSeedCorporaAreWellFormed: every committed seed is a one-value []byte
// corpus file of a target that exists, so none is silently ignored.
func TestSeedCorporaAreWellFormed(t *testing.T) {
	targets := map[string]bool{"FuzzRunQueueOps": true, "FuzzRapidRunQueue": true, "FuzzScheduler": true,
		"FuzzRunQueueInterleaving": true, "FuzzRapidInterleaving": true}
	dirs, err := os.ReadDir("testdata/fuzz")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !targets[d.Name()] {
			t.Errorf("testdata/fuzz/%s: no such fuzz target", d.Name())
			continue
		}
		files, err := os.ReadDir(filepath.Join("testdata/fuzz", d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("testdata/fuzz/%s: empty seed corpus", d.Name())
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join("testdata/fuzz", d.Name(), f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := parseCorpusFile(b); err != nil {
				t.Errorf("testdata/fuzz/%s/%s: %v", d.Name(), f.Name(), err)
			}
		}
		delete(targets, d.Name())
	}
	for name := range targets {
		t.Errorf("fuzz target %s has no committed seed corpus", name)
	}
}
