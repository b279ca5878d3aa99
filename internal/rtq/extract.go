package rtq

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// Required are the run-queue functions every release checked here has
// (Go 1.12 onwards, when gQueue arrived); Optional ones came later
// (runqputbatch in 1.15, runqdrain in 1.17, globrunqgetbatch in 1.25).
var (
	Required = []string{"runqempty", "runqput", "runqputslow", "runqget", "runqgrab", "runqsteal",
		"globrunqput", "globrunqputbatch", "globrunqget"}
	Optional = []string{"runqputbatch", "runqdrain", "globrunqputhead", "globrunqgetbatch"}
)

// ErrUnknownShape is wrapped by the extraction errors of a release whose
// run-queue code is not of a shape the shims know (before Go 1.12).
var ErrUnknownShape = errors.New("not a run queue of the shape the shims know")

// Extraction is the run-queue code of one release, parsed and rewritten
// onto the shims, ready to be printed into a generated package.
type Extraction struct {
	Release string // "go1.26.8", from GOROOT/VERSION (or the directory name)
	GOROOT  string
	Funcs   []string // the functions found, in Required+Optional order
	Shape   Shape

	fset  *token.FileSet
	decls []ast.Decl // rewritten functions, then gQueue/gList and their methods
	// Rewrites counts the rewrites made, by kind, for the report.
	Rewrites map[string]int
	// problems are accesses the rewrites cannot make atomic.
	problems []string
}

// Shape records the signatures that changed between releases; the adapter
// calls each function the way its release declares it.
type Shape struct {
	PutBatchQsize  bool // runqputbatch(pp, q, qsize) spills the rest itself (1.15-1.24)
	DrainCount     bool // runqdrain returns (gQueue, n) (1.17-1.24)
	GlobPutBatchN  bool // globrunqputbatch(batch, n) (up to 1.24)
	GlobGetLocal   bool // globrunqget(pp, max) moves a batch to pp (up to 1.24)
	GlobSizeInRunq bool // the global queue's size is sched.runq.size (1.25+), else sched.runqsize
}

func (e *Extraction) has(name string) bool {
	for _, f := range e.Funcs {
		if f == name {
			return true
		}
	}
	return false
}

// ReleaseOf names the release of a GOROOT: the first line of its VERSION
// file, or the directory name.
func ReleaseOf(goroot string) string {
	if b, err := os.ReadFile(filepath.Join(goroot, "VERSION")); err == nil {
		if line, _, _ := strings.Cut(string(b), "\n"); strings.HasPrefix(line, "go") {
			return strings.TrimSpace(line)
		}
	}
	return filepath.Base(goroot)
}

// Extract parses goroot's src/runtime/proc.go and rewrites its run-queue
// functions onto the shims. A missing required function is an error naming
// it and the release.
func Extract(goroot string) (*Extraction, error) {
	path := filepath.Join(goroot, "src", "runtime", "proc.go")
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rtq: %w", err)
	}
	return extractSource(goroot, ReleaseOf(goroot), src)
}

func extractSource(goroot, release string, src []byte) (*Extraction, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "proc.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("rtq: %s: parsing proc.go: %w", release, err)
	}
	e := &Extraction{Release: release, GOROOT: goroot, fset: fset, Rewrites: map[string]int{}}
	funcs := map[string]*ast.FuncDecl{}
	var queueDecls []ast.Decl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				funcs[d.Name.Name] = d
				continue
			}
			if r := recvName(d); r == "gQueue" || r == "gList" {
				d.Doc = nil
				queueDecls = append(queueDecls, d)
			}
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, s := range d.Specs {
				ts := s.(*ast.TypeSpec)
				if ts.Name.Name == "gQueue" || ts.Name.Name == "gList" {
					queueDecls = append(queueDecls, &ast.GenDecl{Tok: token.TYPE, Specs: []ast.Spec{ts}})
					if ts.Name.Name == "gQueue" {
						if st, ok := ts.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									if n.Name == "size" {
										e.Shape.GlobSizeInRunq = true
									}
								}
							}
						}
					}
				}
			}
		}
	}
	var missing []string
	for _, name := range Required {
		if funcs[name] == nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("rtq: %s: proc.go has no %s: %w", release, strings.Join(missing, ", "), ErrUnknownShape)
	}
	if len(queueDecls) == 0 {
		return nil, fmt.Errorf("rtq: %s: proc.go declares no gQueue (added in Go 1.12): %w", release, ErrUnknownShape)
	}
	for _, name := range append(append([]string{}, Required...), Optional...) {
		fd := funcs[name]
		if fd == nil {
			continue
		}
		e.Funcs = append(e.Funcs, name)
		fd.Doc = nil
		e.rewriteFunc(fd)
		e.decls = append(e.decls, fd)
	}
	for _, d := range queueDecls {
		e.rewriteNode(d, nil)
		e.decls = append(e.decls, d)
	}
	if len(e.problems) > 0 {
		return nil, fmt.Errorf("rtq: %s: %s", release, strings.Join(e.problems, "; "))
	}
	if fd := funcs["runqputbatch"]; fd != nil && fd.Type.Params.NumFields() == 3 {
		e.Shape.PutBatchQsize = true
	}
	if fd := funcs["runqdrain"]; fd != nil && fd.Type.Results.NumFields() == 2 {
		e.Shape.DrainCount = true
	}
	if funcs["globrunqputbatch"].Type.Params.NumFields() == 2 {
		e.Shape.GlobPutBatchN = true
	}
	switch funcs["globrunqget"].Type.Params.NumFields() {
	case 0:
	case 2:
		e.Shape.GlobGetLocal = true
	default:
		return nil, fmt.Errorf("rtq: %s: globrunqget has %d parameters, the shims know () and (pp, max): %w", release, funcs["globrunqget"].Type.Params.NumFields(), ErrUnknownShape)
	}
	if e.Shape.GlobGetLocal == e.has("globrunqgetbatch") {
		return nil, fmt.Errorf("rtq: %s: globrunqget(pp, max) with globrunqgetbatch: %w", release, ErrUnknownShape)
	}
	return e, nil
}

func recvName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return ""
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// rewriteFunc rewrites one function: the parameters of type *[256]guintptr
// (runqgrab's batch, the thief's ring) are rings like p.runq.
func (e *Extraction) rewriteFunc(fd *ast.FuncDecl) {
	rings := map[string]bool{}
	for _, fl := range fd.Type.Params.List {
		if st, ok := fl.Type.(*ast.StarExpr); ok && isRingArray(st.X) {
			for _, n := range fl.Names {
				rings[n.Name] = true
			}
		}
	}
	head, tail := e.Rewrites["plain load of runqhead"], e.Rewrites["plain load of runqtail"]
	e.rewriteNode(fd, rings)
	// A plain load of head, or of tail by a function that runs on another
	// P than the queue's owner, races with atomic stores and has no yield
	// point: the explorer would miss its interleavings.
	if e.Rewrites["plain load of runqhead"] > head {
		e.problems = append(e.problems, fd.Name.Name+" loads runqhead without an atomic")
	}
	if name := fd.Name.Name; (name == "runqgrab" || name == "runqempty") && e.Rewrites["plain load of runqtail"] > tail {
		e.problems = append(e.problems, name+" (run by thieves) loads runqtail without an atomic")
	}
	// A plain store of head or tail would race with the atomic accesses
	// and have no yield point: nothing the shims can check.
	ast.Inspect(fd, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, l := range as.Lhs {
				if s, ok := l.(*ast.SelectorExpr); ok && (s.Sel.Name == "runqhead" || s.Sel.Name == "runqtail") {
					e.problems = append(e.problems, fmt.Sprintf("%s stores %s without an atomic", fd.Name.Name, s.Sel.Name))
				}
			}
		}
		return true
	})
}

// isRingArray matches the type [256]guintptr.
func isRingArray(x ast.Expr) bool {
	at, ok := x.(*ast.ArrayType)
	if !ok || at.Len == nil {
		return false
	}
	lit, ok := at.Len.(*ast.BasicLit)
	id, ok2 := at.Elt.(*ast.Ident)
	return ok && ok2 && lit.Value == "256" && id.Name == "guintptr"
}

type rewriter struct {
	e     *Extraction
	rings map[string]bool
	skip  map[ast.Node]bool
}

func (e *Extraction) rewriteNode(n ast.Node, rings map[string]bool) {
	r := &rewriter{e: e, rings: rings, skip: map[ast.Node]bool{}}
	r.walk(reflect.ValueOf(n))
}

var (
	exprType = reflect.TypeFor[ast.Expr]()
	stmtType = reflect.TypeFor[ast.Stmt]()
)

// walk visits every ast.Expr and ast.Stmt reachable from v, rewriting each
// parent before its children (a pattern such as p.runnext.cas(...) must be
// seen whole before its parts).
func (r *rewriter) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			r.walk(v.Elem())
		}
	case reflect.Interface:
		if !v.IsNil() {
			r.walk(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			switch {
			case f.Type() == exprType && !f.IsNil():
				ne := r.expr(f.Interface().(ast.Expr))
				f.Set(reflect.ValueOf(&ne).Elem())
				if !r.skip[ne] {
					r.walk(f)
				}
			case f.Type() == stmtType && !f.IsNil():
				ns := r.stmt(f.Interface().(ast.Stmt))
				f.Set(reflect.ValueOf(&ns).Elem())
				r.walk(f)
			case f.Type() == reflect.TypeFor[[]ast.Stmt]():
				var out []ast.Stmt
				for _, s := range f.Interface().([]ast.Stmt) {
					if ns := r.stmt(s); ns != nil {
						out = append(out, ns)
					}
				}
				f.Set(reflect.ValueOf(out))
				for i := range out {
					r.walk(f.Index(i))
				}
			case f.Type() == reflect.TypeFor[[]ast.Expr]():
				for i := range f.Len() {
					el := f.Index(i)
					ne := r.expr(el.Interface().(ast.Expr))
					el.Set(reflect.ValueOf(&ne).Elem())
					if !r.skip[ne] {
						r.walk(el)
					}
				}
			default:
				switch f.Kind() {
				case reflect.Slice:
					for i := range f.Len() {
						r.walk(f.Index(i))
					}
				case reflect.Pointer, reflect.Struct, reflect.Interface:
					r.walk(f) // e.g. DeclStmt.Decl, an ast.Decl
				}
			}
		}
	}
}

func (r *rewriter) count(kind string) { r.e.Rewrites[kind]++ }

func call(fn string, args ...ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{Fun: ast.NewIdent(fn), Args: args}
}

// isRing reports whether x is a run-queue ring: p.runq (not sched.runq,
// the global gQueue) or a ring parameter.
func (r *rewriter) isRing(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.SelectorExpr:
		if x.Sel.Name != "runq" {
			return false
		}
		id, ok := x.X.(*ast.Ident)
		return !ok || id.Name != "sched"
	case *ast.Ident:
		return r.rings[x.Name]
	case *ast.ParenExpr:
		return r.isRing(x.X)
	case *ast.StarExpr:
		return r.isRing(x.X)
	}
	return false
}

// ringPtr is the *runqRing for a ring expression.
func (r *rewriter) ringPtr(x ast.Expr) ast.Expr {
	switch x := x.(type) {
	case *ast.Ident:
		return x // already a pointer
	case *ast.ParenExpr:
		return r.ringPtr(x.X)
	case *ast.StarExpr:
		return r.ringPtr(x.X)
	}
	u := &ast.UnaryExpr{Op: token.AND, X: x}
	r.skip[u] = true
	return u
}

func isSel(x ast.Expr, name string) (*ast.SelectorExpr, bool) {
	s, ok := x.(*ast.SelectorExpr)
	return s, ok && s.Sel.Name == name
}

func (r *rewriter) addrOf(x ast.Expr) ast.Expr {
	u := &ast.UnaryExpr{Op: token.AND, X: x}
	r.skip[u] = true
	return u
}

func (r *rewriter) expr(x ast.Expr) ast.Expr {
	if r.skip[x] {
		return x
	}
	switch x := x.(type) {
	case *ast.CallExpr:
		if s, ok := x.Fun.(*ast.SelectorExpr); ok {
			// atomic.F(...) -> atomic_F(...): the shim puts a yield point first.
			if id, ok := s.X.(*ast.Ident); ok && id.Name == "atomic" {
				r.count("atomic." + s.Sel.Name)
				return &ast.CallExpr{Fun: ast.NewIdent("atomic_" + s.Sel.Name), Args: x.Args}
			}
			// p.runq[i].set(gp) -> ringSet(&p.runq, i, gp)
			if ix, ok := s.X.(*ast.IndexExpr); ok && s.Sel.Name == "set" && r.isRing(ix.X) {
				r.count("ring slot store")
				return call("ringSet", append([]ast.Expr{r.ringPtr(ix.X), ix.Index}, x.Args...)...)
			}
			// p.runnext.cas(old, new) -> casRunnext(&p.runnext, old, new)
			if rn, ok := isSel(s.X, "runnext"); ok && s.Sel.Name == "cas" {
				r.count("runnext cas")
				return call("casRunnext", append([]ast.Expr{r.addrOf(rn)}, x.Args...)...)
			}
		}
		// len(ring) -> runqCap: the ring size, rewritten for small capacities.
		if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "len" && len(x.Args) == 1 && r.isRing(x.Args[0]) {
			r.count("len(ring) -> runqCap")
			return ast.NewIdent("runqCap")
		}
	case *ast.IndexExpr:
		if r.isRing(x.X) {
			r.count("ring slot load")
			return call("ringLoad", r.ringPtr(x.X), x.Index)
		}
	case *ast.UnaryExpr:
		if s, ok := x.X.(*ast.SelectorExpr); ok && x.Op == token.AND {
			switch s.Sel.Name {
			case "runnext", "runqhead", "runqtail":
				r.skip[x] = true // the address goes to an atomic shim
				return x
			}
		}
	case *ast.SelectorExpr:
		if x.Sel.Name == "runqtail" || x.Sel.Name == "runqhead" {
			// Not under & (atomic shims take the address, and the walk
			// does not reach those): a plain load. The owner's loads of
			// its own tail need no yield point (as impl's ownTail).
			r.count("plain load of " + x.Sel.Name)
		}
		if x.Sel.Name == "runnext" {
			r.count("runnext load")
			return call("loadRunnext", r.addrOf(x))
		}
	case *ast.ArrayType:
		if isRingArray(x) {
			r.count("[256]guintptr -> runqRing")
			return ast.NewIdent("runqRing")
		}
	}
	return x
}

// stmt rewrites a statement; nil drops it.
func (r *rewriter) stmt(s ast.Stmt) ast.Stmt {
	switch s := s.(type) {
	case *ast.IfStmt:
		// if randomizeScheduler ... { }: randomizeScheduler is raceenabled,
		// false in the builds checked here, so the block is dead code.
		if s.Else == nil && mentionsFirst(s.Cond, "randomizeScheduler") {
			r.count("randomizeScheduler block dropped")
			return nil
		}
	case *ast.AssignStmt:
		if len(s.Lhs) != 1 || len(s.Rhs) != 1 || s.Tok != token.ASSIGN {
			return s
		}
		if ix, ok := s.Lhs[0].(*ast.IndexExpr); ok && r.isRing(ix.X) {
			r.count("ring slot store")
			return &ast.ExprStmt{X: call("ringStore", r.ringPtr(ix.X), ix.Index, s.Rhs[0])}
		}
		if rn, ok := isSel(s.Lhs[0], "runnext"); ok {
			r.count("runnext store")
			return &ast.ExprStmt{X: call("storeRunnext", r.addrOf(rn), s.Rhs[0])}
		}
	}
	return s
}

// mentionsFirst reports whether cond is name or name && ...
func mentionsFirst(cond ast.Expr, name string) bool {
	switch c := cond.(type) {
	case *ast.Ident:
		return c.Name == name
	case *ast.BinaryExpr:
		return c.Op == token.LAND && mentionsFirst(c.X, name)
	case *ast.ParenExpr:
		return mentionsFirst(c.X, name)
	}
	return false
}

// Source prints the rewritten declarations as the body of package pkg.
func (e *Extraction) Source(pkg string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by gmpcheck's rtq from %s's src/runtime/proc.go at run time. DO NOT EDIT OR COMMIT.\n\n", e.Release)
	fmt.Fprintf(&b, "package %s\n\nimport \"unsafe\"\n\nvar _ unsafe.Pointer\n\n", pkg)
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}
	for _, d := range e.decls {
		if err := cfg.Fprint(&b, e.fset, d); err != nil {
			return nil, fmt.Errorf("rtq: %s: printing: %w", e.Release, err)
		}
		b.WriteString("\n\n")
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("rtq: %s: the rewritten code does not format: %w", e.Release, err)
	}
	return out, nil
}

// RewriteSummary lists the rewrites made, sorted, as "kind xN".
func (e *Extraction) RewriteSummary() string {
	var parts []string
	for k, n := range e.Rewrites {
		parts = append(parts, fmt.Sprintf("%s x%d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
