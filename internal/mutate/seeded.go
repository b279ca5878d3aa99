package mutate

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
)

// The seeded bugs of impl/ live in the instrumented build, behind
// hooksEnabled && seeded(...) or s.bugOn(...): a branch that runs only with
// one seeded. A mutant of such a branch's body changes the seeded bug, not
// the scheduler the checks judge, so it measures nothing about the checks;
// such mutants are out of the harness's scope, as implbugs.go is. The
// conditions themselves stay in scope (a mutated condition can let a
// seeded bug run in the checked build), and so does the body of a branch
// taken when the bug is off (if !s.bugOn(...) { ... }).

// seededBody reports, for a Go source file, whether a position (1-based
// line and column) lies in the body of a branch that runs only with a
// seeded bug on.
func seededBody(fset *token.FileSet, f *ast.File) func(line, col int) bool {
	var spans [][2]token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			if onlyWithBug(n.Cond) {
				spans = append(spans, [2]token.Pos{n.Body.Lbrace, n.Body.Rbrace})
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				if onlyWithBug(e) && len(n.Body) > 0 {
					spans = append(spans, [2]token.Pos{n.Colon, n.Body[len(n.Body)-1].End()})
				}
			}
		}
		return true
	})
	return func(line, col int) bool {
		for _, sp := range spans {
			a, b := fset.Position(sp[0]), fset.Position(sp[1])
			after := line > a.Line || line == a.Line && col > a.Column
			before := line < b.Line || line == b.Line && col < b.Column
			if after && before {
				return true
			}
		}
		return false
	}
}

// onlyWithBug reports whether e is true only with a seeded bug on: a call
// of seeded or bugOn, or a conjunction with one such call.
func onlyWithBug(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return onlyWithBug(e.X)
	case *ast.BinaryExpr:
		return e.Op == token.LAND && (onlyWithBug(e.X) || onlyWithBug(e.Y))
	case *ast.CallExpr:
		switch fn := e.Fun.(type) {
		case *ast.Ident:
			return fn.Name == "seeded"
		case *ast.SelectorExpr:
			return fn.Sel.Name == "bugOn"
		}
	}
	return false
}

// dropSeededBodies returns the mutants of ms but the impl/ ones that lie
// in a seeded bug's body (seededBody).
func dropSeededBodies(root string, ms []Mutant) ([]Mutant, error) {
	in := map[string]func(line, col int) bool{}
	var out []Mutant
	for _, m := range ms {
		if m.Area == AreaSpec {
			out = append(out, m)
			continue
		}
		body, ok := in[m.File]
		if !ok {
			src, err := os.ReadFile(filepath.Join(root, m.File))
			if err != nil {
				return nil, err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, m.File, src, 0)
			if err != nil {
				return nil, err
			}
			body = seededBody(fset, f)
			in[m.File] = body
		}
		if !body(m.Line, m.Col) {
			out = append(out, m)
		}
	}
	return out, nil
}
