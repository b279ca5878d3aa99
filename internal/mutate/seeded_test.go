package mutate

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeededBody: only the bodies of branches that run with a seeded bug on
// are out of scope; their conditions, their else branches and the bodies
// of branches taken with the bug off stay in.
func TestSeededBody(t *testing.T) {
	const src = `package p

func f(s *S, n int) int {
	if hooksEnabled && seeded(BugX) {
		n = n / 2
	} else {
		n = n - n/2
	}
	if !s.bugOn(B) {
		n = n + 1
	}
	switch {
	case s.bugOn(C):
		n = n * 3
	default:
		n = n - 4
	}
	if s.bugOn(D) || n > 0 {
		n = n + 5
	}
	return n
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	in := seededBody(fset, f)
	lines := strings.Split(src, "\n")
	for _, c := range []struct {
		text string // the operator's line, and the operator
		op   string
		want bool
	}{
		{"n = n / 2", "/", true},
		{"if hooksEnabled && seeded(BugX) {", "&&", false},
		{"n = n - n/2", "-", false},
		{"n = n + 1", "+", false},
		{"n = n * 3", "*", true},
		{"n = n - 4", "-", false},
		{"n = n + 5", "+", false},
	} {
		line := 0
		for i, l := range lines {
			if strings.Contains(l, c.text) {
				line = i + 1
			}
		}
		col := strings.Index(lines[line-1], c.op) + 1
		if got := in(line, col); got != c.want {
			t.Errorf("%q at %d:%d: in a seeded body %v, want %v", c.text, line, col, got, c.want)
		}
	}
}

// TestDropSeededBodiesOnTheTree: on impl/ as it is, the two runq.go
// mutants argued equivalent before this rule (a seeded bug's body) are
// dropped, a mutant of the condition guarding one is kept, and spec/'s
// bug variants, which are the model's, are never dropped.
func TestDropSeededBodiesOnTheTree(t *testing.T) {
	root := moduleRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "impl/runq.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	at := func(text, op string) (int, int) {
		for i, l := range lines {
			if strings.Contains(l, text) {
				return i + 1, strings.Index(l, op) + 1
			}
		}
		t.Fatalf("impl/runq.go has no %q", text)
		return 0, 0
	}
	bl, bc := at("n = n / 2", "/")
	cl, cc := at("if hooksEnabled && seeded(BugStealHalfDown)", "&&")
	ms := []Mutant{
		{ID: "body", Area: AreaRunq, File: "impl/runq.go", Line: bl, Col: bc},
		{ID: "cond", Area: AreaRunq, File: "impl/runq.go", Line: cl, Col: cc},
		{ID: "spec", Area: AreaSpec, File: "spec/model.go", Line: 1, Col: 1},
	}
	out, err := dropSeededBodies(root, ms)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].ID != "cond" || out[1].ID != "spec" {
		t.Fatalf("kept %v; want cond and spec kept, body dropped", out)
	}
}
