package hooksbin

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Some packages skip tests in a -race build (spec's model checking at full
// bounds, tla's cfgs, viz's pages): the race detector would only slow down
// sequential code there. Those tests then run only where the README's test
// command runs the package without -race; a package that skipped under
// -race and was missing from that pass would have tests no automated
// command runs. This test keeps the two in step.

// raceSkipRE finds a test that skips itself in a -race build.
var raceSkipRE = regexp.MustCompile(`if raceEnabled \{\s*t\.Skip`)

// nonRacePackages returns the packages of the command's go test stages
// that take no flag at all: no -race, no -tags, no -run.
func nonRacePackages(cmd string) map[string]bool {
	out := map[string]bool{}
	for _, stage := range strings.Split(cmd, " && ") {
		f := strings.Fields(stage)
		if len(f) < 3 || f[0] != "go" || f[1] != "test" {
			continue
		}
		var pkgs []string
		plain := true
		for _, a := range f[2:] {
			switch {
			case strings.HasPrefix(a, "-"):
				plain = false // -race, -tags, -run: not the plain pass
			default:
				pkgs = append(pkgs, strings.TrimSuffix(strings.TrimPrefix(a, "./"), "/"))
			}
		}
		if plain {
			for _, p := range pkgs {
				out[p] = true
			}
		}
	}
	return out
}

// raceSkippers returns the package directories under root (slash paths)
// whose test files skip a test under -race.
func raceSkippers(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if raceSkipRE.Match(b) {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			seen[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

func TestRaceSkippersRunWithoutRace(t *testing.T) {
	root := filepath.Join("..", "..")
	plain := nonRacePackages(testCommand(t, filepath.Join(root, "README.md")))
	skippers := raceSkippers(t, root)
	if len(skippers) == 0 {
		t.Fatal("no package skips a test under -race: the search is broken (spec, tla and viz do)")
	}
	for _, p := range skippers {
		if !plain[p] {
			t.Errorf("%s skips tests under -race but the README's test command never runs it without -race (plain go test stages: %v)", p, plain)
		}
	}
}

// TestRaceSkipCheckBites: a package that skips under -race and is missing
// from the plain pass is found; a -race or tagged stage does not count.
func TestRaceSkipCheckBites(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		src := "package " + d + "\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {\n\tif raceEnabled {\n\t\tt.Skip(\"later\")\n\t}\n}\n"
		if err := os.WriteFile(filepath.Join(root, d, "x_test.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := raceSkippers(t, root); strings.Join(got, " ") != "a b" {
		t.Fatalf("skippers %v, want a b", got)
	}
	plain := nonRacePackages("npm ci --prefix tla && go test ./a/ && go test -race ./b/ && go test -tags x ./b/")
	if !plain["a"] || plain["b"] {
		t.Fatalf("plain pass %v: want a and not b", plain)
	}
}
