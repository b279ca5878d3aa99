package mutate

// Mutant schemata (Untch, Offutt and Harrold, "Mutation analysis using
// mutant schemata", ISSTA 1993; the technique of Stryker and Mull): every
// operator mutant of a package's mutated files is compiled into one build,
// each behind a run-time switch, so that a test binary is built once per
// package instead of once per mutant, and a mutant costs only its test
// runs. The switch is the environment variable GMPCHECK_MUTANT, read once
// into a package-level variable by a generated file that exists only in
// the overlay the harness writes to a temporary directory: the default
// build never sees a schema.
//
// The rewriting is done on the syntax tree, at gremlins' positions and for
// gremlins' types (the same token swaps as TokenSwaps), and keeps every
// line where it was (a mutated expression stays on its lines), so that a
// compiler error or a panic's line names the original line. Each rewrite
// evaluates each operand once, in the original order:
//
//	x < y    -> gmpcheckMutOrd(x, y, <, id1, <=, id2, >=)   (cmp.Ordered)
//	x == y   -> gmpcheckMutEqB(x == y, ==, id, !=)          (any comparable operands)
//	x + y    -> gmpcheckMutArith(x, y, +, id, -, 0, 0)      (likewise % & | ^ &^ << >>)
//	a && b   -> (s != ((s != (a)) && (s != (b))))           (s: the mutant is on; a || b when it is)
//	-x       -> gmpcheckMutNeg(x, id1, id2)
//	i++      -> gmpcheckMutIncDec(&i, ++, id, --, 0, 0)
//	x += y   -> gmpcheckMutAssignArith(&x, y, +=, id1, -=, id2, =)
//	break    -> if gmpcheckMutOn(id, 0) { continue } else { break }
//
// (operators are passed as their go/token numbers). A rewrite the types do
// not allow (a constant expression, operands of different types, a map
// element's address, a type the generated helpers do not cover) is not
// made: that mutant falls back to the per-mutant overlay build, as does
// any mutant on a line where the schema fails to compile (BuildSchema
// compiles it and drops those sites until it builds). No mutant is dropped
// silently: Schema.Fallback says why each one is not in the schema.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// MutantEnv is the environment variable that switches a schema's mutant on
// (its number in Schema.IDs; unset or 0: no mutant).
const MutantEnv = "GMPCHECK_MUTANT"

// schemaPrefix starts every name the schema adds to a package.
const schemaPrefix = "gmpcheckMut"

// A schemaAlt is one mutant at a site: its switch value and the operator
// it turns the site's operator into.
type schemaAlt struct {
	id int
	to token.Token
}

// siteKind says which rewrite a site takes.
type siteKind int

const (
	siteEq          siteKind = iota // == != (gmpcheckMutEqB)
	siteOrd                         // < <= > >= (gmpcheckMutOrd)
	siteLogic                       // && ||
	siteArith                       // + - * / on numbers (gmpcheckMutArith)
	siteInt                         // % & | ^ &^ on integers (gmpcheckMutInt)
	siteShift                       // << >> (gmpcheckMutShift)
	siteNeg                         // unary - (gmpcheckMutNeg)
	siteIncDec                      // ++ -- (gmpcheckMutIncDec)
	siteAssign                      // op= on numbers (gmpcheckMutAssignArith)
	siteAssignInt                   // op= on integers (gmpcheckMutAssignInt)
	siteAssignShift                 // <<= >>= (gmpcheckMutAssignShift)
	siteBranch                      // break continue
)

// A schemaSite is one operator position with the mutants at it.
type schemaSite struct {
	node       ast.Node
	kind       siteKind
	op         token.Token
	opPos      token.Pos
	alts       []schemaAlt
	conv       [2]string // a conversion to wrap an untyped constant operand in (shifts, unary minus)
	start, end int       // byte offsets of node
	lines      [2]int    // first and last line
}

// schemaFile is one mutated file: its source, syntax, type information and
// the sites placed in it.
type schemaFile struct {
	path  string // slash path from the module root
	src   []byte
	fset  *token.FileSet
	file  *ast.File
	tf    *token.File
	sites []*schemaSite
}

// placeSites finds each mutant's site in f and records it with its switch
// value (ids[m.ID]); a mutant that cannot be placed is returned with the
// reason, for the overlay path.
func (f *schemaFile) placeSites(ms []Mutant, ids map[string]int, info *types.Info, pkg *types.Package) map[string]string {
	fallback := map[string]string{}
	type key struct{ line, col int }
	at := map[key]ast.Node{}
	var stack []ast.Node
	parent := map[ast.Node]ast.Node{}
	constCtx := map[ast.Node]bool{} // nodes inside const declarations or array lengths
	ast.Inspect(f.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		inConst := len(stack) > 0 && constCtx[stack[len(stack)-1]]
		switch x := n.(type) {
		case *ast.GenDecl:
			if x.Tok == token.CONST {
				inConst = true
			}
		case *ast.ArrayType:
			if x.Len != nil {
				constCtx[x.Len] = true
			}
		}
		if inConst || constCtx[n] {
			constCtx[n] = true
		}
		if len(stack) > 0 {
			parent[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		var pos token.Pos
		switch x := n.(type) {
		case *ast.BinaryExpr:
			pos = x.OpPos
		case *ast.UnaryExpr:
			pos = x.OpPos
		case *ast.IncDecStmt:
			pos = x.TokPos
		case *ast.AssignStmt:
			pos = x.TokPos
		case *ast.BranchStmt:
			pos = x.TokPos
		default:
			return true
		}
		p := f.fset.Position(pos)
		at[key{p.Line, p.Column}] = n
		return true
	})
	byNode := map[ast.Node]*schemaSite{}
	for _, m := range ms {
		n := at[key{m.Line, m.Col}]
		if n == nil {
			fallback[m.ID] = "no operator node at its position"
			continue
		}
		if constCtx[n] {
			fallback[m.ID] = "in a constant context (a const declaration or an array length)"
			continue
		}
		s := byNode[n]
		if s == nil {
			var why string
			s, why = f.newSite(n, info, pkg)
			if s == nil {
				fallback[m.ID] = why
				continue
			}
			byNode[n] = s
			f.sites = append(f.sites, s)
		}
		to, ok := TokenSwaps[m.Type][s.op]
		if !ok {
			fallback[m.ID] = fmt.Sprintf("%s does not mutate %s", m.Type, s.op)
			continue
		}
		if !s.allows(to, info) {
			fallback[m.ID] = fmt.Sprintf("%s -> %s: not expressible in this site's helper", s.op, to)
			continue
		}
		if !f.sameParse(s, to, parent) {
			fallback[m.ID] = fmt.Sprintf("%s -> %s changes how the expression around it parses", s.op, to)
			continue
		}
		if len(s.alts) == 2 {
			fallback[m.ID] = "a third mutant at one position"
			continue
		}
		s.alts = append(s.alts, schemaAlt{id: ids[m.ID], to: to})
	}
	kept := f.sites[:0]
	for _, s := range f.sites {
		if len(s.alts) > 0 {
			kept = append(kept, s)
		}
	}
	f.sites = kept
	sort.Slice(f.sites, func(i, j int) bool {
		if f.sites[i].start != f.sites[j].start {
			return f.sites[i].start < f.sites[j].start
		}
		return f.sites[i].end > f.sites[j].end
	})
	return fallback
}

// newSite classifies node n, or says why it cannot be rewritten.
func (f *schemaFile) newSite(n ast.Node, info *types.Info, pkg *types.Package) (*schemaSite, string) {
	s := &schemaSite{node: n, start: f.tf.Offset(n.Pos()), end: f.tf.Offset(n.End())}
	s.lines = [2]int{f.fset.Position(n.Pos()).Line, f.fset.Position(n.End()).Line}
	switch x := n.(type) {
	case *ast.BinaryExpr:
		s.op, s.opPos = x.Op, x.OpPos
		tx, ty := info.Types[x.X], info.Types[x.Y]
		untyped := func(tv types.TypeAndValue) bool { return tv.Value != nil || tv.IsNil() }
		if untyped(tx) && untyped(ty) {
			return nil, "a constant expression"
		}
		switch x.Op {
		case token.LAND, token.LOR:
			s.kind = siteLogic
			return s, ""
		case token.EQL, token.NEQ:
			s.kind = siteEq
			return s, ""
		case token.LSS, token.LEQ, token.GTR, token.GEQ:
			if !untyped(tx) && !untyped(ty) && !types.Identical(tx.Type, ty.Type) {
				return nil, "operands of different types"
			}
			t := tx.Type
			if untyped(tx) {
				t = ty.Type
			}
			if !isBasic(t, types.IsOrdered) || isBasic(t, types.IsComplex) {
				return nil, "not an ordered type"
			}
			s.kind = siteOrd
			return s, ""
		case token.SHL, token.SHR:
			s.kind = siteShift
			t := info.Types[x].Type
			if !isBasic(t, types.IsInteger) {
				return nil, "a shift whose type is not an integer"
			}
			if untyped(tx) {
				name, ok := spell(t, pkg)
				if !ok {
					return nil, "an untyped shifted constant whose type cannot be spelled"
				}
				s.conv[0] = name
			}
			return s, ""
		}
		t := info.Types[x].Type
		switch {
		case isBasic(t, types.IsInteger):
			s.kind = siteInt
		case isBasic(t, types.IsFloat):
			s.kind = siteArith
		default:
			return nil, fmt.Sprintf("%s on %s", x.Op, t)
		}
		return s, ""
	case *ast.UnaryExpr:
		if x.Op != token.SUB {
			return nil, fmt.Sprintf("unary %s", x.Op)
		}
		s.op, s.opPos, s.kind = x.Op, x.OpPos, siteNeg
		t := info.Types[x].Type
		if !isBasic(t, types.IsInteger|types.IsFloat) {
			return nil, fmt.Sprintf("unary - on %s", t)
		}
		if tv := info.Types[x.X]; tv.Value != nil {
			name, ok := spell(t, pkg)
			if !ok {
				return nil, "a negated constant whose type cannot be spelled"
			}
			s.conv[0] = name
		}
		return s, ""
	case *ast.IncDecStmt:
		s.op, s.opPos, s.kind = x.Tok, x.TokPos, siteIncDec
		if isMapIndex(x.X, info) {
			return nil, "a map element has no address"
		}
		if !isBasic(info.Types[x.X].Type, types.IsInteger|types.IsFloat) {
			return nil, "++/-- on a type the helper does not cover"
		}
		return s, ""
	case *ast.AssignStmt:
		if len(x.Lhs) != 1 || len(x.Rhs) != 1 || x.Tok == token.ASSIGN || x.Tok == token.DEFINE {
			return nil, "not an operator assignment"
		}
		s.op, s.opPos = x.Tok, x.TokPos
		if isMapIndex(x.Lhs[0], info) {
			return nil, "a map element has no address"
		}
		t := info.Types[x.Lhs[0]].Type
		switch {
		case x.Tok == token.SHL_ASSIGN || x.Tok == token.SHR_ASSIGN:
			s.kind = siteAssignShift
			if !isBasic(t, types.IsInteger) {
				return nil, "a shift assignment on a non-integer"
			}
		case isBasic(t, types.IsInteger):
			s.kind = siteAssignInt
		case isBasic(t, types.IsFloat):
			s.kind = siteAssign
		default:
			return nil, fmt.Sprintf("%s on %s", x.Tok, t)
		}
		return s, ""
	case *ast.BranchStmt:
		if x.Tok != token.BREAK && x.Tok != token.CONTINUE {
			return nil, x.Tok.String()
		}
		s.op, s.opPos, s.kind = x.Tok, x.TokPos, siteBranch
		return s, ""
	}
	return nil, fmt.Sprintf("%T", n)
}

// allows reports whether the site's helper can express the swap to to with
// the same meaning as the overlay's token swap.
func (s *schemaSite) allows(to token.Token, info *types.Info) bool {
	switch s.kind {
	case siteArith:
		return to == token.ADD || to == token.SUB || to == token.MUL || to == token.QUO
	case siteInt:
		return to != token.SHL && to != token.SHR && to != token.LAND && to != token.LOR
	case siteAssign:
		return to != token.REM_ASSIGN && to != token.AND_ASSIGN && to != token.OR_ASSIGN && to != token.XOR_ASSIGN &&
			to != token.AND_NOT_ASSIGN && to != token.SHL_ASSIGN && to != token.SHR_ASSIGN
	case siteAssignInt:
		return to != token.SHL_ASSIGN && to != token.SHR_ASSIGN && strings.HasSuffix(to.String(), "=")
	case siteAssignShift:
		if to == token.ASSIGN {
			// x <<= n -> x = n compiles only when n has x's type: the
			// helper's T(n) would accept what the overlay rejects.
			a := s.node.(*ast.AssignStmt)
			tv := info.Types[a.Rhs[0]]
			return tv.Value == nil && types.Identical(tv.Type, info.Types[a.Lhs[0]].Type)
		}
		return to == token.SHL_ASSIGN || to == token.SHR_ASSIGN
	case siteShift:
		return to == token.SHL || to == token.SHR
	case siteOrd:
		return to == token.LSS || to == token.LEQ || to == token.GTR || to == token.GEQ || to == token.EQL || to == token.NEQ
	case siteEq:
		return to == token.EQL || to == token.NEQ
	case siteLogic:
		return (s.op == token.LAND && to == token.LOR) || (s.op == token.LOR && to == token.LAND)
	case siteNeg:
		return to == token.ADD
	case siteIncDec:
		return to == token.INC || to == token.DEC
	case siteBranch:
		return to == token.BREAK || to == token.CONTINUE
	}
	return false
}

func isBasic(t types.Type, info types.BasicInfo) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&info != 0 && b.Info()&types.IsUntyped == 0 && b.Info()&types.IsComplex == 0
}

func isMapIndex(e ast.Expr, info *types.Info) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	_, isMap := info.Types[ix.X].Type.Underlying().(*types.Map)
	return isMap
}

// spell is how t is written in pkg's own files: a predeclared basic type,
// or a type declared at pkg's top level.
func spell(t types.Type, pkg *types.Package) (string, bool) {
	switch x := t.(type) {
	case *types.Basic:
		if x.Info()&types.IsUntyped != 0 {
			return "", false
		}
		return x.Name(), true
	case *types.Named:
		o := x.Obj()
		if o.Pkg() == pkg && o.Parent() == pkg.Scope() && x.TypeArgs() == nil {
			return o.Name(), true
		}
	}
	return "", false
}

// render returns the file with every site whose alternatives keep(alt)
// allows rewritten; the rest of the text is the original, byte for byte,
// so every line stays where it was.
func (f *schemaFile) render(keep func(schemaAlt) bool) []byte {
	var sites []*schemaSite
	for _, s := range f.sites {
		c := *s
		c.alts = nil
		for _, a := range s.alts {
			if keep(a) {
				c.alts = append(c.alts, a)
			}
		}
		if len(c.alts) > 0 {
			sites = append(sites, &c)
		}
	}
	var b bytes.Buffer
	f.renderRange(&b, 0, len(f.src), sites)
	return b.Bytes()
}

// renderRange writes src[start:end] with the outermost sites inside it
// rewritten (each rewrites the sites nested in it).
func (f *schemaFile) renderRange(b *bytes.Buffer, start, end int, sites []*schemaSite) {
	pos := start
	for _, s := range sites {
		if s.start < pos || s.end > end {
			continue
		}
		b.Write(f.src[pos:s.start])
		f.renderSite(b, s, sites)
		pos = s.end
	}
	b.Write(f.src[pos:end])
}

func (f *schemaFile) off(p token.Pos) int { return f.tf.Offset(p) }

// args are the switch arguments: up to two (mutant number, operator)
// pairs; the original operator is in the helper's name (schemaFastPaths).
func (s *schemaSite) args() string {
	a := [2]schemaAlt{}
	copy(a[:], s.alts)
	return fmt.Sprintf("%d, %d, %d, %d", a[0].id, a[0].to, a[1].id, a[1].to)
}

func (s *schemaSite) ids() string {
	a := [2]schemaAlt{}
	copy(a[:], s.alts)
	return fmt.Sprintf("%d, %d", a[0].id, a[1].id)
}

func (f *schemaFile) renderSite(b *bytes.Buffer, s *schemaSite, sites []*schemaSite) {
	sub := func(e ast.Node) { f.renderRange(b, f.off(e.Pos()), f.off(e.End()), sites) }
	opEnd := f.off(s.opPos) + len(s.op.String())
	switch x := s.node.(type) {
	case *ast.BinaryExpr:
		before, after := f.src[f.off(x.X.End()):f.off(s.opPos)], f.src[opEnd:f.off(x.Y.Pos())]
		if s.kind == siteLogic {
			on := fmt.Sprintf("%sOn(%s)", schemaPrefix, s.ids())
			fmt.Fprintf(b, "(%s != ((%s != (", on, on)
			sub(x.X)
			fmt.Fprintf(b, "))%s%s%s(%s != (", before, s.op, after, on)
			sub(x.Y)
			b.WriteString("))))")
			return
		}
		helper := map[siteKind]string{siteEq: "EqB", siteOrd: "Ord", siteArith: "Arith", siteInt: "Int", siteShift: "Shift"}[s.kind]
		fmt.Fprintf(b, "%s%s%s(", schemaPrefix, helper, opName(s.op))
		if s.conv[0] != "" {
			b.WriteString(s.conv[0] + "(")
		}
		sub(x.X)
		if s.conv[0] != "" {
			b.WriteString(")")
		}
		b.Write(before)
		if s.kind == siteEq {
			b.WriteString("==") // gmpcheckMutEqB(x == y, ...): one comparison, negated by the switch
		} else {
			b.WriteString(",")
		}
		b.Write(after)
		sub(x.Y)
		fmt.Fprintf(b, ", %s)", s.args())
	case *ast.UnaryExpr:
		fmt.Fprintf(b, "%sNeg(", schemaPrefix)
		b.Write(f.src[opEnd:f.off(x.X.Pos())])
		if s.conv[0] != "" {
			b.WriteString(s.conv[0] + "(")
		}
		sub(x.X)
		if s.conv[0] != "" {
			b.WriteString(")")
		}
		fmt.Fprintf(b, ", %s)", s.ids())
	case *ast.IncDecStmt:
		fmt.Fprintf(b, "%sIncDec%s(&(", schemaPrefix, opName(s.op))
		sub(x.X)
		b.WriteString(")")
		b.Write(f.src[f.off(x.X.End()):f.off(s.opPos)])
		fmt.Fprintf(b, ", %s)", s.args())
	case *ast.AssignStmt:
		helper := map[siteKind]string{siteAssign: "AssignArith", siteAssignInt: "AssignInt", siteAssignShift: "AssignShift"}[s.kind]
		fmt.Fprintf(b, "%s%s%s(&(", schemaPrefix, helper, opName(s.op))
		sub(x.Lhs[0])
		b.WriteString(")")
		b.Write(f.src[f.off(x.Lhs[0].End()):f.off(s.opPos)])
		b.WriteString(",")
		b.Write(f.src[opEnd:f.off(x.Rhs[0].Pos())])
		sub(x.Rhs[0])
		fmt.Fprintf(b, ", %s)", s.args())
	case *ast.BranchStmt:
		orig := string(f.src[s.start:s.end])
		alt := s.alts[0].to.String() + strings.TrimPrefix(orig, s.op.String())
		fmt.Fprintf(b, "if %sOn(%s) { %s } else { %s }", schemaPrefix, s.ids(), alt, orig)
	}
}

// funcAround is the line range of the innermost function (declaration or
// literal) around line; the whole file when there is none.
func (f *schemaFile) funcAround(line int) (int, int) {
	lo, hi := 1, f.tf.LineCount()
	ast.Inspect(f.file, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			a, b := f.fset.Position(n.Pos()).Line, f.fset.Position(n.End()).Line
			if a <= line && line <= b && b-a <= hi-lo {
				lo, hi = a, b
			}
		}
		return true
	})
	return lo, hi
}

// sameParse reports whether swapping site's operator for to in the text
// (what the overlay does) gives the expression tree the schema gives, the
// same tree with only that operator changed. Swaps between operators of
// one precedence always do; & -> | or && -> || inside a chain of other
// operators may not (a&b | a ^ b&^3 with ^ -> & reparses as
// (a&b) | ((a&b) &^ 3)), and then the mutant is left to the overlay, whose
// meaning is gremlins'.
func (f *schemaFile) sameParse(site *schemaSite, to token.Token, parent map[ast.Node]ast.Node) bool {
	if to.Precedence() == site.op.Precedence() {
		return true
	}
	var top ast.Node = site.node
	for {
		p, ok := parent[top].(*ast.BinaryExpr)
		if !ok {
			break
		}
		top = p
	}
	start, end := f.off(top.Pos()), f.off(top.End())
	text := string(f.src[start:end])
	op := f.off(site.opPos) - start
	delta := len(to.String()) - len(site.op.String())
	mut := text[:op] + to.String() + text[op+len(site.op.String()):]
	orig, err1 := parser.ParseExpr(text)
	mx, err2 := parser.ParseExpr(mut)
	if err1 != nil || err2 != nil {
		return false
	}
	var want, got strings.Builder
	serializeExpr(&want, orig, 0, -1, op, to)
	serializeExpr(&got, mx, delta, op, -1, token.ILLEGAL)
	return want.String() == got.String()
}

// serializeExpr writes e's shape: binary and unary operators, parentheses,
// and every other node as its byte range (offsets past after moved back by
// delta, so the two texts' ranges compare). The binary operator at offset
// swapAt is written as swapTo.
func serializeExpr(b *strings.Builder, e ast.Node, delta, after, swapAt int, swapTo token.Token) {
	pos := func(p token.Pos) int {
		o := int(p) - 1
		if after >= 0 && o > after {
			o -= delta
		}
		return o
	}
	switch x := e.(type) {
	case *ast.BinaryExpr:
		op := x.Op
		if int(x.OpPos)-1 == swapAt {
			op = swapTo
		}
		fmt.Fprintf(b, "(%s ", op)
		serializeExpr(b, x.X, delta, after, swapAt, swapTo)
		b.WriteString(" ")
		serializeExpr(b, x.Y, delta, after, swapAt, swapTo)
		b.WriteString(")")
	case *ast.ParenExpr:
		b.WriteString("(paren ")
		serializeExpr(b, x.X, delta, after, swapAt, swapTo)
		b.WriteString(")")
	case *ast.UnaryExpr:
		fmt.Fprintf(b, "(%s ", x.Op)
		serializeExpr(b, x.X, delta, after, swapAt, swapTo)
		b.WriteString(")")
	default:
		fmt.Fprintf(b, "[%d,%d)", pos(e.Pos()), pos(e.End()))
	}
}
