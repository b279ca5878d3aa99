package fuzz

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/interleave"
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

// fuzzTargets lists the Fuzz functions declared in this package's test
// files, whatever their build tags, so that a new target cannot go without a
// committed corpus unnoticed.
func fuzzTargets(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") {
				targets[fn.Name.Name] = true
			}
		}
	}
	if len(targets) == 0 {
		t.Fatal("found no fuzz targets in the package's test files")
	}
	return targets
}

// TestSeedCorporaAreWellFormed: every fuzz target of the package has a
// committed seed corpus, and every committed seed is a one-value []byte
// corpus file of a target that exists, so none is silently ignored.
func TestSeedCorporaAreWellFormed(t *testing.T) {
	targets := fuzzTargets(t)
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
		t.Errorf("fuzz target %s has no committed seed corpus in testdata/fuzz/%s", name, name)
	}
}

// TestInterleavingSeedsCoverEveryScenario: FuzzRunQueueInterleaving's first
// byte picks a built-in scenario; the committed corpus starts every one.
func TestInterleavingSeedsCoverEveryScenario(t *testing.T) {
	scs := interleave.Scenarios()
	covered := make([]bool, len(scs))
	dir := "testdata/fuzz/FuzzRunQueueInterleaving"
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		data, err := parseCorpusFile(b)
		if err != nil {
			t.Fatalf("%s/%s: %v", dir, f.Name(), err)
		}
		if len(data) > 0 {
			covered[int(data[0])%len(scs)] = true
		}
	}
	for i, ok := range covered {
		if !ok {
			t.Errorf("no seed in %s runs scenario %d (%s)", dir, i, scs[i].Name)
		}
	}
}
