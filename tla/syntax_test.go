package tla

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// TestSyntax parses every module with the community TLA+ grammar
// (tree-sitter-tlaplus): the assurance, without TLC, that the modules use
// no syntax only tla-checker accepts.
func TestSyntax(t *testing.T) {
	dir, err := tlacheck.FindDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := tlacheck.FindModules(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The seeded self-test: a clean module must pass and each broken one
	// must be rejected, or the check proves nothing.
	tmp := t.TempDir()
	const clean = "---- MODULE M ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = IF x < 3 THEN x + 1 ELSE 0\nSpec == Init /\\ [][Next]_x\n====\n"
	broken := map[string]string{
		"not_equal":      "Init == x != 0",                  // C's inequality; TLA+ has # and /=
		"dangling_and":   "Init == x = 0 /\\",               // a conjunction without its operand
		"if_no_else":     "Init == IF x = 0 THEN x = 1",     // IF without ELSE
		"open_except":    "Next == x' = [x EXCEPT ![1] = 2", // unbalanced bracket
		"let_without_in": "Foo == LET y == 1 y",             // LET without IN
		"semicolon":      "Init == x = 0;",                  // statement separator
	}
	var seeded []string
	write := func(name, text string) string {
		p := filepath.Join(tmp, name+".tla")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cleanPath := write("clean", clean)
	for name, def := range broken {
		seeded = append(seeded, write(name, strings.Replace(clean, "Init == x = 0", def, 1)))
	}
	seeded = append(seeded, write("no_end", strings.TrimSuffix(clean, "====\n")))
	// tla-checker skips a definition it cannot parse when nothing uses it,
	// so this module passes tla-checker; TLC's parser rejects the module.
	seeded = append(seeded, write("junk_unused", strings.Replace(clean, "Spec ==", "Junk == x != 5\nSpec ==", 1)))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := tlacheck.ParseModules(ctx, dir, append(append(files, cleanPath), seeded...))
	if errors.Is(err, tlacheck.ErrParserNotInstalled) {
		t.Fatal(err) // not a skip: without the parser nothing here is verified
	}
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		switch {
		case i < len(files):
			if !r.OK {
				t.Errorf("%v", r)
			} else {
				t.Log(r)
			}
		case i == len(files):
			if !r.OK {
				t.Errorf("self-test: a clean module was rejected: %v", r)
			}
		default:
			if r.OK {
				t.Errorf("self-test: %s was accepted", filepath.Base(r.File))
			} else {
				t.Logf("self-test: %v", firstLine(r.String()))
			}
		}
	}
}
