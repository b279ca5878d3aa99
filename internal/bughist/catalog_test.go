package bughist

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The two lists: the catalog, at least 12 golang/go issues, each a variant
// with at least two techniques; and the known bugs outside the model, each
// saying what it needs. Every issue is named once across both, every field
// is filled, and Lookup finds each by name and issue number.
func TestCatalog(t *testing.T) {
	cat, out := Catalog(), Outside()
	if len(cat) < 12 {
		t.Fatalf("%d entries in the catalog, want at least 12", len(cat))
	}
	seen := map[string]bool{}
	issues := map[int]bool{}
	for _, e := range All() {
		if seen[e.Name] || issues[e.Issue] {
			t.Errorf("%s: name or issue %d twice", e.Name, e.Issue)
		}
		seen[e.Name], issues[e.Issue] = true, true
		if e.Name != "hist-"+strconv.Itoa(e.Issue) {
			t.Errorf("%s: want the name hist-%d", e.Name, e.Issue)
		}
		for f, v := range map[string]string{"title": e.Title, "affected": e.Affected, "fixed": e.Fixed,
			"mechanism": e.Mechanism, "cause": e.Cause, "fix": e.Fix, "property": e.Property} {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: no %s", e.Name, f)
			}
		}
		if strings.Contains(e.Cause+e.Fix+e.Fixed+e.Affected, "github.com") {
			t.Errorf("%s: write issues as golang/go#NNNNN, without the host", e.Name)
		}
		got, err := Lookup(strconv.Itoa(e.Issue))
		if err != nil || got.Name != e.Name {
			t.Errorf("Lookup(%d) = %v, %v", e.Issue, got.Name, err)
		}
		if got, err := Lookup(e.Name); err != nil || got.Name != e.Name {
			t.Errorf("Lookup(%s) = %v, %v", e.Name, got.Name, err)
		}
	}
	for _, e := range cat {
		if !e.Expressible() {
			t.Errorf("%s: in the catalog without a variant (an entry the model cannot express belongs in Outside)", e.Name)
			continue
		}
		if e.Needs != "" {
			t.Errorf("%s: a variant and a missing mechanism", e.Name)
		}
		if len(e.Applicable()) < 2 {
			t.Errorf("%s: %v, want at least two techniques", e.Name, e.Applicable())
		}
		// A variant name finds the first entry of that release (go1.13
		// is two bugs); an open bug's variant is go1.26 itself, which
		// names no bug.
		if got, err := Lookup(e.VariantName()); e.Variant.Open {
			if err == nil {
				t.Errorf("Lookup(%s) = %v, want no entry for the unmodified release", e.VariantName(), got.Name)
			}
		} else if err != nil || got.VariantName() != e.VariantName() {
			t.Errorf("Lookup(%s) = %v, %v", e.VariantName(), got.Name, err)
		}
	}
	for _, e := range out {
		if e.Expressible() {
			t.Errorf("%s: outside the model with a variant: move it to the catalog", e.Name)
		}
		if e.Needs == "" || e.Applicable() != nil {
			t.Errorf("%s: outside the model, but says nothing of what it needs or has techniques", e.Name)
		}
	}
	if _, err := Lookup("hist-0"); err == nil {
		t.Error("Lookup of an unknown name succeeded")
	}
}

// A bug outside the model is reproduced as what it is: outside the model,
// exit 1, with the missing mechanism named; no technique runs.
func TestInexpressibleSaysWhy(t *testing.T) {
	for _, e := range Outside() {
		r := Reproduce(context.Background(), e, Options{})
		if r.Verdict != Unexpressed || r.ExitCode() != 1 || len(r.Results) != 0 {
			t.Errorf("%s: %v exit %d with %d results, want outside the model, exit 1, none run", e.Name, r.Verdict, r.ExitCode(), len(r.Results))
		}
		if s := r.Summary(); !strings.Contains(s, "not reproducible") || !strings.Contains(s, "needs "+e.Needs) {
			t.Errorf("%s: summary %q does not say what it needs", e.Name, s)
		}
	}
}

// racedEntry is the one entry TestReproduceExpressible reproduces under
// -race. Every entry runs its techniques in goroutines of their own, but
// the rest is sequential search and replay, which the detector slows
// thirteenfold (29 against 2.2 CPU-s for the package) and checks nothing
// in; hist-38860's explore and impl techniques ask for the same bound, so
// it also takes the shared search's wait (explored).
const racedEntry = "hist-38860"

// Every catalog entry reproduces: the explorer finds the property broken
// and go1.26 passes the same bound; the reference scheduler follows the
// counterexample into the lost wakeup as the variant and leaves it as
// go1.26. GMP.tla's cfg and its go1.26 twin run in the long tier
// (GMPCHECK_LONG=1), under TLC when TLA2TOOLS_JAR names a jar (about three
// minutes for the catalog; .ci/run's TLC section runs it so), else under
// tla-checker (an hour: minutes per LargeTLA cfg); tla/'s tests check the
// variant cfgs themselves.
func TestReproduceExpressible(t *testing.T) {
	techs := []string{TechExplore, TechImpl}
	if os.Getenv("GMPCHECK_LONG") == "1" {
		techs = append(techs, TechTLA)
	}
	for _, e := range Catalog() {
		t.Run(e.Name, func(t *testing.T) {
			if raceEnabled && e.Name != racedEntry {
				t.Skipf("under -race only %s reproduces (the techniques' goroutines and the shared search); the test command's non-race stage runs every entry", racedEntry)
			}
			r := Reproduce(context.Background(), e, Options{Techniques: techs, TLCJar: os.Getenv("TLA2TOOLS_JAR")})
			if r.Verdict != Caught || r.ExitCode() != 0 {
				t.Fatalf("%s", describe(r))
			}
			for _, tr := range r.Results {
				if tr.Verdict == NotRun {
					continue
				}
				// An open bug's cfg has no twin: the explore technique shows
				// that its bound passes every other property instead.
				twinless := e.Variant.Open && tr.Technique == TechTLA
				if !tr.BasePass && !twinless || tr.TraceLen == 0 || !strings.HasPrefix(tr.Trace, "VIOLATION (") && tr.Technique != TechTLA {
					t.Errorf("%s: go1.26 pass %v, trace of %d steps:\n%s", tr.Technique, tr.BasePass, tr.TraceLen, tr.Trace)
				}
				// The tla technique's TraceLen is stepsIn of its trace, so the
				// comparison means something only for the others, whose
				// TraceLen is the violation's own length.
				if n := stepsIn(tr.Trace); tr.Technique != TechTLA && n != tr.TraceLen {
					t.Errorf("%s: the printed trace has %d steps, the result says %d", tr.Technique, n, tr.TraceLen)
				}
			}
			t.Logf("%s (%s)", r.Summary(), r.Elapsed.Round(1e6))
		})
	}
}

func describe(r Report) string {
	s := r.Summary()
	for _, tr := range r.Results {
		s += "\n  " + tr.Technique + ": " + string(tr.Verdict) + ": " + tr.Detail + " | " + tr.BaseDetail
	}
	return s
}

// The go1.26 model on the variants' bounds passes by itself too (the
// reproduction requires it; this names the failure plainly).
func TestGo126PassesDriverBounds(t *testing.T) {
	for _, e := range Catalog() {
		b := e.Variant.Driver
		if b.Ps == 0 {
			continue // no impl technique
		}
		b.Go = spec.Go126
		r, err := explore(context.Background(), b)
		if err != nil || r.Verdict() != "pass" {
			t.Errorf("%s: go1.26 on %v: %v %v", e.Name, b, r, err)
		}
	}
}

// docs/bugs.md has a row per entry, written golang/go#NNNNN with no host:
// the catalog's in its table with the counterexample of each, the others
// in the table of bugs outside the model, after its heading, each ending
// with what it needs.
func TestDocsTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/bugs.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	if strings.Contains(doc, "github.com/golang") {
		t.Error("docs/bugs.md links issues with a host name; write golang/go#NNNNN")
	}
	outside := strings.Index(doc, "\n"+outsideHeading+"\n")
	if outside < 0 {
		t.Fatalf("docs/bugs.md has no heading %q", outsideHeading)
	}
	for _, e := range All() {
		row := "| `" + e.Name + "` | " + e.Link() + " |"
		at := strings.Index(doc, row)
		switch {
		case at < 0:
			t.Errorf("docs/bugs.md has no row %q", row)
		case e.Expressible() && at > outside:
			t.Errorf("docs/bugs.md: %s is in the catalog but its row is among the bugs outside the model", e.Name)
		case !e.Expressible() && at < outside:
			t.Errorf("docs/bugs.md: %s is outside the model but its row is in the catalog's table", e.Name)
		case !e.Expressible():
			line, _, _ := strings.Cut(doc[at:], "\n")
			if !strings.HasSuffix(line, "| "+e.Needs+" |") {
				t.Errorf("docs/bugs.md: %s's row does not end with what it needs (Entry.Needs):\n%s", e.Name, line)
			}
		}
		if e.Expressible() && !strings.Contains(doc, "(variant `"+e.VariantName()+"`)") {
			t.Errorf("docs/bugs.md has no section for %s's variant %s", e.Name, e.VariantName())
		}
	}
}

// outsideHeading is docs/bugs.md's heading of the bugs outside the model.
const outsideHeading = "## Known scheduler bugs outside the model"

// stepsIn counts both trace forms: the explorer's numbered steps and
// tla-checker's State blocks (a 3-step TLA+ trace has States 0 to 3).
func TestStepsIn(t *testing.T) {
	explorer := "VIOLATION (2 steps) invariant: x\n  initial state\n   1. m0: Park\n      G g1:waiting\n   2. m1: Ready(g1)\n"
	tla := "State 0\n  st = [a |-> 1]\nState 1\n  st = [a |-> 2]\nState 2\n  st = [a |-> 3]\nState 3\n  st = [a |-> 4]\n"
	for _, c := range []struct {
		trace string
		want  int
	}{{explorer, 2}, {tla, 3}, {"", 0}} {
		if got := stepsIn(c.trace); got != c.want {
			t.Errorf("stepsIn(%q) = %d, want %d", c.trace, got, c.want)
		}
	}
}
