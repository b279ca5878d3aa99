package hooksbin

import (
	"bufio"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's test command runs the instrumented build (-tags
// gmpcheck_hooks) twice: whole packages for those whose every test needs
// the hooks, and, for impl/ and conform/, whose default-build tests the
// -race pass has already run, only the tests named with "Hooks"
// (-run Hooks). A test in a gmpcheck_hooks file of such a package that
// lacked the word would run in no automated command at all; this test
// keeps the convention and the command in step.

// testCommand returns the README's test command: the line of its set-up
// block that starts with "npm ci --prefix tla".
func testCommand(t *testing.T, file string) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "npm ci --prefix tla &&") {
			return strings.TrimSuffix(l, " || tests=$?")
		}
	}
	t.Fatalf("%s: no line starting with the test command", file)
	return ""
}

// hooksOnlyPackages returns the packages the command runs with
// "-tags gmpcheck_hooks -run Hooks".
func hooksOnlyPackages(t *testing.T, cmd string) []string {
	t.Helper()
	m := regexp.MustCompile(`go test -race -tags gmpcheck_hooks -run Hooks((?: \./[^ &]+)+)`).FindStringSubmatch(cmd)
	if m == nil {
		t.Fatalf("the test command has no 'go test -race -tags gmpcheck_hooks -run Hooks PKG...' stage: %s", cmd)
	}
	return strings.Fields(m[1])
}

func hooksTagged(f *ast.File) bool {
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			return !expr.Eval(func(tag string) bool { return tag != "gmpcheck_hooks" }) &&
				expr.Eval(func(string) bool { return true })
		}
	}
	return false
}

// hooksTestsNotNamed lists the Test functions of dir's gmpcheck_hooks
// test files whose names lack "Hooks", and how many such files there are.
func hooksTestsNotNamed(t *testing.T, dir string) (bad []string, files int) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if !hooksTagged(f) {
			continue
		}
		files++
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
				continue
			}
			if !strings.Contains(fd.Name.Name, "Hooks") {
				bad = append(bad, filepath.Base(p)+": "+fd.Name.Name)
			}
		}
	}
	return bad, files
}

func TestHooksStageRunsEveryHooksTest(t *testing.T) {
	root := filepath.Join("..", "..")
	readme := testCommand(t, filepath.Join(root, "README.md"))
	if ci := testCommand(t, filepath.Join(root, ".ci", "run")); ci != readme {
		t.Fatalf(".ci/run's test command differs from the README's:\n%s\n%s", ci, readme)
	}
	for _, pkg := range hooksOnlyPackages(t, readme) {
		bad, files := hooksTestsNotNamed(t, filepath.Join(root, pkg))
		if files == 0 {
			t.Errorf("%s: run with -run Hooks but has no gmpcheck_hooks test file", pkg)
		}
		for _, b := range bad {
			pkg := strings.TrimSuffix(pkg, "/")
			t.Errorf("%s/%s: in a gmpcheck_hooks file but not named ...Hooks...: the README's hooks stage (-run Hooks) would never run it", pkg, b)
		}
	}
}

// TestHooksNamingCheckBites: the check finds a hooks test without the
// word, and only in a gmpcheck_hooks file.
func TestHooksNamingCheckBites(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a_hooks_test.go", "//go:build gmpcheck_hooks\n\npackage x\n\nimport \"testing\"\n\nfunc TestSeeded(t *testing.T) {}\nfunc TestHooksOK(t *testing.T) {}\n")
	write("b_test.go", "package x\n\nimport \"testing\"\n\nfunc TestPlain(t *testing.T) {}\n")
	write("c_test.go", "//go:build !gmpcheck_hooks\n\npackage x\n\nimport \"testing\"\n\nfunc TestOff(t *testing.T) {}\n")
	bad, files := hooksTestsNotNamed(t, dir)
	if files != 1 || len(bad) != 1 || bad[0] != "a_hooks_test.go: TestSeeded" {
		t.Fatalf("files %d, flagged %v; want 1 file and a_hooks_test.go: TestSeeded", files, bad)
	}
}
