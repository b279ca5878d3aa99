package bughist

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// docCounterexamples are docs/bugs.md's counterexample blocks, in the
// document's order: each the explorer's printout for one catalog entry on
// its explore bound (Variant.Explore), which for the entries with an impl
// technique is also the bound whose trace the impl replays. Every block
// takes milliseconds to explore, the largest hist-52934's 160,000 states.
var docCounterexamples = []string{
	"hist-45867", "hist-55160", "hist-63555", "hist-10573", "hist-10618", "hist-10958", "hist-13546",
	"hist-23098", "hist-28979", "hist-38860", "hist-46524", "hist-52934",
}

// docStep is a numbered step of a printed trace, or a lasso's marker line.
var docStep = regexp.MustCompile(`^\s+(\d+\. |-- )`)

// docBlock is one fenced block of docs/bugs.md that holds a trace.
type docBlock struct {
	line  int // 1-based line of its first trace line
	lines []string
}

// docTraceBlocks returns the fenced blocks that hold a counterexample:
// those opening with "VIOLATION (" or with a numbered step (the impl's
// traces, actions only).
func docTraceBlocks(doc string) []docBlock {
	var out []docBlock
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
			j++
		}
		if j > i+1 && (strings.HasPrefix(lines[i+1], "VIOLATION (") || docStep.MatchString(lines[i+1])) {
			out = append(out, docBlock{line: i + 2, lines: lines[i+1 : j]})
		}
		i = j
	}
	return out
}

// inDocForm is trace printed the way block prints it. A block with no
// state lines (indented six spaces) shows the actions only; a block that
// does not open with the VIOLATION line shows the numbered steps and the
// lasso's markers only; a block that ends with "tla: NOT RUN" is copied
// from 'gmpcheck bugs -run explore NAME', which prints that line after the
// explore technique's counterexample.
func inDocForm(trace string, block []string) []string {
	full := false
	for _, l := range block {
		if strings.HasPrefix(l, "      ") {
			full = true
		}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(trace, "\n"), "\n") {
		switch {
		case !full && strings.HasPrefix(l, "      "):
		case !strings.HasPrefix(block[0], "VIOLATION (") && !docStep.MatchString(l):
		default:
			out = append(out, l)
		}
	}
	if n := len(block); n >= 2 && block[n-1] == "tla: NOT RUN" && block[n-2] == "" {
		out = append(out, "", "tla: NOT RUN")
	}
	return out
}

// exploredAlready is the result of search k if this process has completed
// it.
func exploredAlready(k exploreKey) (spec.Result, bool) {
	explored.Lock()
	x := explored.m[k]
	explored.Unlock()
	if x == nil {
		return spec.Result{}, false
	}
	select {
	case <-x.done:
		return x.r, x.conclusive()
	default:
		return spec.Result{}, false
	}
}

// docs/bugs.md's counterexamples are what the explorer prints now: every
// block, in its own form (with or without states), equals the current
// counterexample of its entry's bound, so a change to the model that
// changes a trace fails here until the block (and the prose around it,
// which names steps by number) is brought up to date.
func TestDocsCounterexamples(t *testing.T) {
	b, err := os.ReadFile("../../docs/bugs.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := docTraceBlocks(string(b))
	if len(blocks) != len(docCounterexamples) {
		t.Fatalf("docs/bugs.md has %d counterexample blocks, docCounterexamples names %d: keep the list in the document's order", len(blocks), len(docCounterexamples))
	}
	for i, name := range docCounterexamples {
		blk := blocks[i]
		e, err := Lookup(name)
		if err != nil || !e.Expressible() {
			t.Fatalf("docCounterexamples[%d]: %s is not a catalog entry (%v)", i, name, err)
		}
		va := e.Variant
		k := exploreKey{b: va.Explore, local: va.LocalStarvation}
		k.b.Go = va.Go
		r, ok := exploredAlready(k)
		if !ok {
			if r, err = exploreWith(context.Background(), k); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		v := broken(r, va.Kind)
		if v == nil {
			t.Errorf("docs/bugs.md:%d: %s on %v: no %v to compare with (%v)", blk.line, name, k.b, va.Kind, r)
			continue
		}
		want := inDocForm(printViolation(v), blk.lines)
		if got := blk.lines; strings.Join(got, "\n") != strings.Join(want, "\n") {
			at := 0
			for at < len(got) && at < len(want) && got[at] == want[at] {
				at++
			}
			g, w := "(end of block)", "(end of trace)"
			if at < len(got) {
				g = got[at]
			}
			if at < len(want) {
				w = want[at]
			}
			t.Errorf("docs/bugs.md:%d: %s's counterexample (%v) is stale at line %d:\n  doc: %s\n  now: %s\nthe block as the explorer prints it now:\n%s",
				blk.line, name, k.b, blk.line+at, g, w, strings.Join(want, "\n"))
		}
	}
}
