package spec

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// passes holds the correct-model searches requirePass has run, by bounds
// and options.
var passes struct {
	sync.Mutex
	m map[string]*passEntry
}

type passEntry struct {
	once sync.Once
	r    Result
	err  error
}

// requirePass explores b with opt and fails t unless the verdict is a pass,
// with liveness checked when opt asks it. Several tests ask it of the same
// bounds: each seeded bug's bounds with BugNone, where bugs share the base
// bounds, and the correct model beside a variant or a disabled mechanism.
// A complete search's verdict and counts do not depend on the run, so the
// first call's result serves the others in the same test binary, and a
// mutant that breaks the correct model still fails every caller. Options
// with a Progress writer are refused: a shared search writes to one
// caller's writer only.
func requirePass(t *testing.T, b Bounds, opt Options) Result {
	t.Helper()
	if opt.Progress != nil {
		t.Fatal("requirePass shares results: no Progress writer")
	}
	key := fmt.Sprintf("%+v|%+v", b, opt)
	passes.Lock()
	if passes.m == nil {
		passes.m = map[string]*passEntry{}
	}
	e := passes.m[key]
	if e == nil {
		e = new(passEntry)
		passes.m[key] = e
	}
	passes.Unlock()
	e.once.Do(func() { e.r, e.err = Explore(context.Background(), b, opt) })
	r := e.r
	if e.err != nil {
		t.Fatalf("%v: %v", b, e.err)
	}
	if r.Verdict() != "pass" || r.Liveness != opt.Liveness {
		t.Fatalf("the correct model at %v: %v\n%v", b, r, r.Violation)
	}
	return r
}

// parallelSearch marks a test whose searches may run beside other tests'
// (t.Parallel). Such a test must set no package variable the explorer
// reads (chunkParents, progressEvery, symCheckHook, timersQuietNet): the
// tests that set one stay sequential, and go test resumes the parallel
// tests only after every sequential one has returned. The knobs a test
// turns per search are Options fields instead (oneByOne, firstLiveness). TestParallelSearchesSetNoPackageVariable
// checks the test bodies. The heaviest searches are marked: one at a time
// they left a core idle through their sequential parts (the liveness pass
// on small graphs, trace replays), which on two cores was the tail of the
// README's first test stage.
func parallelSearch(t *testing.T) {
	t.Helper()
	t.Parallel()
}

// TestParallelSearchesSetNoPackageVariable reads this package's sources:
// no test that calls parallelSearch assigns a package-level variable in its
// body (closures included). A helper it calls is not read; the variables
// above are set only in test bodies today.
func TestParallelSearchesSetNoPackageVariable(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil || len(names) == 0 {
		t.Fatalf("no spec sources found (%v)", err)
	}
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if bad := parallelWriters(files); len(bad) > 0 {
		t.Errorf("parallel tests set package variables: %v", bad)
	}
	// The check itself bites on a parallel test that sets one.
	const src = "package spec\nvar knob int\nfunc TestX(t *testing.T) {\n\tparallelSearch(t)\n\tdefer func() { knob = 0 }()\n}\nfunc TestY(t *testing.T) { knob = 1 }\n"
	f, err := parser.ParseFile(fset, "x_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := parallelWriters([]*ast.File{f}); fmt.Sprint(got) != "[TestX sets knob]" {
		t.Errorf("on a seeded writer: %v, want [TestX sets knob]", got)
	}
}

// parallelWriters lists "TestX sets v" for each function of files that
// calls parallelSearch and assigns (or increments) the package-level
// variable v, or a field or element of it.
func parallelWriters(files []*ast.File) []string {
	vars := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, sp := range g.Specs {
					for _, n := range sp.(*ast.ValueSpec).Names {
						vars[n.Name] = true
					}
				}
			}
		}
	}
	var bad []string
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			parallel := false
			var set []string
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				var lhs []ast.Expr
				switch n := n.(type) {
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "parallelSearch" {
						parallel = true
					}
				case *ast.AssignStmt:
					if n.Tok != token.DEFINE {
						lhs = n.Lhs
					}
				case *ast.IncDecStmt:
					lhs = []ast.Expr{n.X}
				}
				for _, e := range lhs {
					if id := rootIdent(e); id != nil && vars[id.Name] {
						set = append(set, id.Name)
					}
				}
				return true
			})
			if parallel {
				slices.Sort(set)
				for _, v := range slices.Compact(set) {
					bad = append(bad, fn.Name.Name+" sets "+v)
				}
			}
		}
	}
	return bad
}

// rootIdent is the variable an assignment's left side writes into: x for
// x, x.f, x[i] and combinations of them.
func rootIdent(e ast.Expr) *ast.Ident {
	for {
		switch x := e.(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return nil
		}
	}
}
