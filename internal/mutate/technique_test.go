package mutate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outsideTechniques are the tests of impl/ and spec/ that no technique
// runs, and why. Every other test must be in some technique's -run
// pattern: a test written to kill a mutant is worth nothing to the harness
// until a technique runs it (three such tests once sat outside every
// pattern, and the harness reported their mutants alive).
var outsideTechniques = map[string]string{
	"impl.TestHooksDriverRejectsPollBugs":   "a self-test of the driver comparison on the seeded bugs (instrumented build): it checks the check, as the seeded bugs do",
	"impl.TestHooksDriverRejectsSeededBugs": "likewise",
	"impl.TestHooksImplBugsCaught":          "likewise: the impl's seeded bugs must be caught",
	"impl.TestHooksImplBugNames":            "the seeded bugs' names",
	"impl.TestSeededBugsCaught":             "a self-test of the checks on the seeded bugs",
	"impl.TestStressEntryPoint":             "the long stress's entry point (GMPCHECK_LONG); the stress technique runs the default tier's",
	"impl.TestUntilStolen":                  "the long stress's retry of a local run that never stole: a check of the check",
	"spec.TestVisitedPast4GiB":              "the explorer's visited set, which is not mutated, at 4 GiB of keys",
}

// TestEveryTestInATechnique: each Test function of impl/ and spec/ is run
// by some technique of some area's plan, or is in outsideTechniques.
func TestEveryTestInATechnique(t *testing.T) {
	root := moduleRoot(t)
	seen := map[string]bool{}
	for _, pkg := range []string{"impl", "spec"} {
		var res []*regexp.Regexp
		for _, a := range Areas {
			for _, tc := range Plan(a) {
				for _, p := range tc.Parts {
					if p.Pkg == pkg {
						// A Run of "Top/Sub" selects subtests of Top.
						res = append(res, regexp.MustCompile(strings.Split(p.Run, "/")[0]))
					}
				}
			}
		}
		files, err := filepath.Glob(filepath.Join(root, pkg, "*_test.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no test files (%v)", pkg, err)
		}
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range af.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Test") || fd.Name.Name == "TestMain" {
					continue
				}
				id := pkg + "." + fd.Name.Name
				seen[id] = true
				run := false
				for _, re := range res {
					run = run || re.MatchString(fd.Name.Name)
				}
				_, outside := outsideTechniques[id]
				switch {
				case !run && !outside:
					t.Errorf("%s (%s) is in no technique's -run pattern (technique.go) and not in outsideTechniques", id, filepath.Base(f))
				case run && outside:
					t.Errorf("%s is run by a technique but listed in outsideTechniques", id)
				}
			}
		}
	}
	for id := range outsideTechniques {
		if !seen[id] {
			t.Errorf("outsideTechniques names %s, which is no test of impl/ or spec/", id)
		}
	}
}

// TestNeedsTLATools: the baseline installs the pinned node tools exactly
// when a planned technique runs tla/'s tests or a TLA+ checker: for the
// spec (its tla-crosscheck) and the TLA+ modules, not for impl/ alone.
func TestNeedsTLATools(t *testing.T) {
	r := &Runner{opt: Options{Plan: Plan}}
	for _, c := range []struct {
		areas []Area
		want  bool
	}{
		{[]Area{AreaRunq, AreaSched, AreaGM}, false},
		{[]Area{AreaSched, AreaSpec}, true},
		{[]Area{AreaTLA}, true},
	} {
		if got := r.needsTLATools(c.areas); got != c.want {
			t.Errorf("%v: %v, want %v", c.areas, got, c.want)
		}
	}
}
