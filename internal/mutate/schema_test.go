package mutate

import (
	"bytes"
	"context"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// schemaFixture is a small package with one site of every kind the schema
// rewrites (and some it must leave to the overlay: a constant expression,
// string concatenation, a map element, a loop whose break would make its
// function's end reachable), and a main that prints what each computes.
const schemaFixture = `package main

import "fmt"

type small int8

const limit = 3 + 1 // a constant context: overlay

var table = map[string]int{"a": 1}

func ord(a, b int) bool   { return a < b }
func eq(p *int) bool      { return p != nil }
func arith(a, b int) int  { return a*b + a - b/2 + a%3 }
func flt(a, b float64) float64 { return a / b }
func bits(a, b uint) uint { return a&b | a ^ b&^3 }
func shift(a uint, n int) uint {
	var m uint32 = 1 << n // an untyped shifted constant: converted
	return a<<n + uint(m) >> 1
}
func logic(a, b bool) bool { return a && !b || b }
func neg(a small) small     { return -a + -1 }
func named(a, b small) bool { return a >= b }
func str(s string) string  { return s + "!" } // + on strings: overlay (not viable there)

func loops(n int) (sum int) {
	for i := 0; i < n; i++ {
		if i == 2 {
			continue
		}
		if i == 4 {
			break
		}
		sum += i
	}
	table["a"]++ // a map element: overlay
	return sum
}

func forever(n int) int {
	for {
		n--
		if n > 0 {
			continue // a break here would need a return below: overlay, not viable there
		}
		return n
	}
}

func assign(a, b int) int {
	a -= b
	a *= 2
	a |= b
	a <<= 1
	a >>= uint(b)
	x := 2.5
	x /= 2
	return a + int(x)
}

func main() {
	for _, v := range []int{-3, 0, 2, 5} {
		p := &v
		fmt.Println(ord(v, 2), eq(p), eq(nil), arith(v, 3), flt(float64(v), 4), bits(uint(v+3), 6), shift(uint(v+3), 2),
			logic(v > 0, v > 3), neg(small(v)), named(small(v), 2), str("x"), loops(v+2), forever(v+1), assign(v, 1), limit, table["a"])
	}
}
`

// fixtureMutants lists every token of src that a gremlins type mutates, as
// gremlins' dry run would (one mutant per type and position).
func fixtureMutants(t *testing.T, file string, src []byte) []Mutant {
	fset := token.NewFileSet()
	f := fset.AddFile(file, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	var out []Mutant
	for {
		pos, tok, _ := s.Scan()
		if tok == token.EOF {
			break
		}
		p := fset.Position(pos)
		types := make([]string, 0, len(TokenSwaps))
		for typ, m := range TokenSwaps {
			if _, ok := m[tok]; ok {
				types = append(types, typ)
			}
		}
		sort.Strings(types)
		for _, typ := range types {
			out = append(out, Mutant{ID: fmt.Sprintf("%s:%d:%d/%s", file, p.Line, p.Column, typ), Kind: KindOperator,
				Area: AreaSched, File: file, Line: p.Line, Col: p.Column, Type: typ})
		}
	}
	if len(out) < 40 {
		t.Fatalf("only %d mutants in the fixture", len(out))
	}
	return out
}

func writeFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module fixture\n\ngo 1.22\n"), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "p"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "p", "p.go"), []byte(schemaFixture), 0o644))
	return dir
}

// TestSchemaRewriteKeepsLines: the schema of the fixture parses, keeps
// every line where it was, leaves the overlay what it must, and rewrites
// the rest (the text checks pin one site of each kind).
func TestSchemaRewriteKeepsLines(t *testing.T) {
	dir := writeFixture(t)
	src := []byte(schemaFixture)
	ms := fixtureMutants(t, "p/p.go", src)
	s, err := BuildSchema(context.Background(), dir, "p", ms)
	if err != nil {
		t.Fatal(err)
	}
	out := s.Files["p/p.go"]
	if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
		t.Fatalf("the schema does not parse: %v\n%s", err, out)
	}
	a, b := strings.Split(schemaFixture, "\n"), strings.Split(string(out), "\n")
	if len(a) != len(b) {
		t.Fatalf("the schema has %d lines, the file %d", len(b), len(a))
	}
	for _, want := range []string{
		"gmpcheckMutOrdLSS(a , b, ",                    // a < b
		"gmpcheckMutEqBNEQ(p == nil, ",                 // p != nil
		"gmpcheckMutIntADD(gmpcheckMutIntSUB(",         // nested arithmetic
		"gmpcheckMutArithQUO(a , b, ",                  // float a / b
		"gmpcheckMutShiftSHL(uint32(1) , n, ",          // the untyped constant converted
		"gmpcheckMutNeg(a, ",                           // -a
		"gmpcheckMutNeg(small(1), ",                    // -1 as a small
		"gmpcheckMutIncDecINC(&(i), ",                  // i++
		"gmpcheckMutAssignIntSUBASSIGN(&(a) , b, ",     // a -= b
		"gmpcheckMutAssignShiftSHLASSIGN(&(a) , 1, ",   // a <<= 1
		"gmpcheckMutAssignArithQUOASSIGN(&(x) , 2, ",   // x /= 2
		"{ break } else { continue }",                  // continue
		"(gmpcheckMutOn(",                              // && and ||
		"const limit = 3 + 1",                          // untouched
		"return s + \"!\"",                             // untouched
		"table[\"a\"]++",                               // untouched
		"continue // a break here would need a return", // left to the overlay by the compile loop
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the schema lacks %q", want)
		}
	}
	for i := range a {
		if strings.TrimSpace(a[i]) == "" && strings.TrimSpace(b[i]) != "" {
			t.Errorf("line %d moved: %q", i+1, b[i])
		}
	}
	for _, m := range ms {
		_, in := s.IDs[m.ID]
		_, fb := s.Fallback[m.ID]
		if in == fb {
			t.Errorf("%s: in the schema %v, on the overlay %v: want exactly one", m.ID, in, fb)
		}
	}
	for _, frag := range []string{"p.go:7:", "p.go:23:", "p.go:35:"} { // limit's +, "!"'s +, table["a"]++
		found := false
		for id := range s.Fallback {
			found = found || strings.Contains(id, frag)
		}
		if !found {
			t.Errorf("no mutant at line %s left to the overlay: %v", frag, s.Fallback)
		}
	}
	if s.Builds < 2 {
		t.Errorf("%d compilations: the loop's break should have failed the first", s.Builds)
	}
	if _, err := os.Stat(filepath.Join(dir, "p", schemaHelperName)); !os.IsNotExist(err) {
		t.Errorf("the schema wrote into the tree: %v", err)
	}
}

// TestSchemaMatchesOverlay: every mutant of the fixture in the schema
// prints, with its switch on, exactly what the overlay build of the same
// mutant prints; with no switch on, the schema prints what the tree does;
// and the mutants do change the output (the schema bites). The overlay
// mutants that do not compile are the ones the schema left out. The
// default tier builds every sixth mutant's overlay (about 12 builds), the
// long tier (GMPCHECK_LONG=1) all of them.
func TestSchemaMatchesOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fixture once per mutant")
	}
	every := 6
	if os.Getenv("GMPCHECK_LONG") == "1" {
		every = 1
	}
	dir := writeFixture(t)
	src := []byte(schemaFixture)
	ms := fixtureMutants(t, "p/p.go", src)
	ctx := context.Background()
	s, err := BuildSchema(ctx, dir, "p", ms)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	build := func(name, overlay string) (string, error) {
		bin := filepath.Join(tmp, name)
		args := []string{"build", "-o", bin}
		if overlay != "" {
			args = append(args, "-overlay", overlay)
		}
		cmd := exec.Command("go", append(args, "./p")...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("%v: %s", err, out)
		}
		return bin, nil
	}
	run := func(bin string, id int) string {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", MutantEnv, id))
		out, _ := cmd.CombinedOutput() // a mutant may panic: its output is its verdict
		if ctx.Err() != nil {
			return "(runs forever)"
		}
		return string(out)
	}
	plain, err := build("plain", "")
	if err != nil {
		t.Fatal(err)
	}
	sdir := t.TempDir()
	ov, err := s.Overlay(dir, sdir)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := build("schema", ov)
	if err != nil {
		t.Fatal(err)
	}
	want := run(plain, 0)
	if got := run(schema, 0); got != want {
		t.Fatalf("the schema with no mutant on prints\n%s\nthe tree\n%s", got, want)
	}
	changed, compared := 0, 0
	for i, m := range ms {
		if i%every != 0 {
			continue
		}
		mut, err := m.Apply(dir)
		if err != nil {
			t.Fatalf("%s: %v", m.ID, err)
		}
		mf := filepath.Join(tmp, fmt.Sprintf("m%d.go", i))
		if err := os.WriteFile(mf, mut, 0o644); err != nil {
			t.Fatal(err)
		}
		ovf := filepath.Join(tmp, fmt.Sprintf("m%d.json", i))
		js := fmt.Sprintf(`{"Replace":{%q:%q}}`, filepath.Join(dir, "p", "p.go"), mf)
		if err := os.WriteFile(ovf, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		bin, err := build(fmt.Sprintf("m%d", i), ovf)
		id := s.IDs[m.ID]
		if err != nil {
			if id != 0 {
				t.Errorf("%s does not compile on its overlay but is in the schema (switch %d): %v", m.ID, id, err)
			}
			continue
		}
		if id == 0 {
			t.Logf("%s compiles on its overlay and is judged there: %s", m.ID, s.Fallback[m.ID])
			continue
		}
		compared++
		got, ovOut := run(schema, id), run(bin, 0)
		if got != ovOut {
			t.Errorf("%s (switch %d): the schema prints\n%s\nthe overlay\n%s", m.ID, id, got, ovOut)
		}
		if got != want {
			changed++
		}
	}
	t.Logf("%d mutants, %d compared schema against overlay, %d change the output", len(ms), compared, changed)
	if compared < 30/every || changed < compared/2 {
		t.Errorf("compared %d, changed %d: the schema does not bite", compared, changed)
	}
}
