package tla

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TestOneVocabulary keeps the three descriptions of the scheduler on one
// set of names (DESIGN.md, "Three descriptions, one vocabulary"): every
// action of the executable spec must be an operator of GMP.tla with the same
// name, and a row of docs/mapping.md. The impl needs no check here: its
// scheduler events carry the spec's ActionKind itself, so they cannot use
// another name.
func TestOneVocabulary(t *testing.T) {
	tlaSrc, err := os.ReadFile("GMP.tla")
	if err != nil {
		t.Fatal(err)
	}
	mapping, err := os.ReadFile("../docs/mapping.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range spec.ActionKinds() {
		name := k.String()
		def := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*(\(|==)`)
		if !def.Match(tlaSrc) {
			t.Errorf("spec action %s has no operator %s in GMP.tla", name, name)
		}
		if !strings.Contains(string(mapping), "Act"+name) {
			t.Errorf("spec action %s (Act%s) has no row in docs/mapping.md", name, name)
		}
	}
}
