package tla

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// TestSyntax parses every module with the community TLA+ grammar
// (tree-sitter-tlaplus) and resolves its names as SANY would: the
// assurance, without TLC, that the modules use no syntax only tla-checker
// accepts and no name TLC would not resolve. It also checks every cfg
// against its module's constants and definitions.
func TestSyntax(t *testing.T) {
	sequentialUnderRace(t)
	dir, err := tlacheck.FindDir(".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := tlacheck.FindModules(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The seeded self-test: a clean module must pass and each broken one
	// must be rejected, for the right reason, or the check proves nothing.
	tmp := t.TempDir()
	const clean = "---- MODULE M ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = IF x < 3 THEN x + 1 ELSE 0\nSpec == Init /\\ [][Next]_x\n====\n"
	type seeded struct {
		text string
		want string // the error kind expected first; "syntax": ERROR or MISSING
	}
	bad := func(def, want string) seeded { return seeded{strings.Replace(clean, "Init == x = 0", def, 1), want} }
	broken := map[string]seeded{
		"not_equal":      bad("Init == x != 0", "syntax"),                  // C's inequality; TLA+ has # and /=
		"dangling_and":   bad("Init == x = 0 /\\", "syntax"),               // a conjunction without its operand
		"if_no_else":     bad("Init == IF x = 0 THEN x = 1", "syntax"),     // IF without ELSE
		"open_except":    bad("Next == x' = [x EXCEPT ![1] = 2", "syntax"), // unbalanced bracket
		"let_without_in": bad("Foo == LET y == 1 y", "syntax"),             // LET without IN
		"semicolon":      bad("Init == x = 0;", "syntax"),                  // statement separator
		"no_end":         {strings.TrimSuffix(clean, "====\n"), "syntax"},
		// tla-checker skips a definition it cannot parse when nothing uses
		// it, so this module passes tla-checker; TLC's parser rejects it.
		"junk_unused": {strings.Replace(clean, "Spec ==", "Junk == x != 5\nSpec ==", 1), "syntax"},
		// Names SANY rejects though the grammar parses them. The first is
		// the one GMP.tla had: -1 is the prefix minus of Integers.
		"negative_without_integers": bad("Init == x = -1", "NEEDS Integers"),
		"len_without_sequences":     bad("Init == x = Len(<<>>)", "UNDEFINED"),
		"concat_without_sequences":  bad("Init == x = 0 /\\ <<1>> \\o <<2>> = <<1, 2>>", "NEEDS Sequences"),
		"undefined_name":            bad("Init == x = y", "UNDEFINED"),
		"forward_reference":         bad("Init == x = Zero\nZero == 0", "UNDEFINED"),
		"recursive_undeclared":      bad("F(n) == IF n = 0 THEN 0 ELSE F(n - 1)\nInit == x = F(1)", "UNDEFINED"),
		"wrong_arity":               bad("F(a) == a\nInit == x = F(1, 2)", "ARITY"),
		"missing_arguments":         bad("F(a) == a\nInit == x = F", "ARITY"),
		"bound_shadows_variable":    bad("Init == \\E x \\in {1} : x = 0", "REDEFINED"),
		"unknown_module":            {strings.Replace(clean, "EXTENDS Naturals", "EXTENDS Naturals, Nonesuch", 1), "MODULE"},
	}
	// Names the check must accept: a declared RECURSIVE operator, a
	// recursive function, a higher-order argument, record fields, bound
	// variables named before their binder, LET.
	const accepted = "---- MODULE A ----\nEXTENDS Integers, Sequences, FiniteSets\nCONSTANT N\nVARIABLE x\n" +
		"RECURSIVE Sum(_)\nSum(n) == IF n = 0 THEN 0 ELSE n + Sum(n - 1)\n" +
		"fact[n \\in Nat] == IF n = 0 THEN 1 ELSE n * fact[n - 1]\n" +
		"Apply(F(_), v) == F(v)\n" +
		"Init == x = [f |-> -1] /\\ x.f = Apply(Sum, N) /\\ Cardinality({<<a, b>> : a \\in 1..2, b \\in {N}}) = 2\n" +
		"Next == x' = [x EXCEPT !.f = LET y == @ + 1 IN y] /\\ Len(<<>> \\o <<1>>) = 1\n" +
		"Spec == Init /\\ [][Next]_x /\\ WF_x(Next)\n====\n"
	write := func(name, text string) string {
		p := filepath.Join(tmp, name+".tla")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := []string{write("clean", clean), write("accepted", accepted)}
	var names []string
	for name := range broken {
		names = append(names, name)
	}
	sort.Strings(names)
	var seededPaths []string
	for _, name := range names {
		seededPaths = append(seededPaths, write(name, broken[name].text))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	all := append(append(append([]string{}, files...), good...), seededPaths...)
	res, err := tlacheck.ParseModules(ctx, dir, all)
	if errors.Is(err, tlacheck.ErrParserNotInstalled) {
		t.Fatal(err) // not a skip: without the parser nothing here is verified
	}
	if err != nil {
		t.Fatal(err)
	}
	modules := map[string]tlacheck.SyntaxResult{}
	for i, r := range res {
		switch {
		case i < len(files):
			if !r.OK {
				t.Errorf("%v", r)
			} else {
				t.Log(r)
			}
			modules[strings.TrimSuffix(filepath.Base(r.File), ".tla")] = r
		case i < len(files)+len(good):
			if !r.OK {
				t.Errorf("self-test: a good module was rejected: %v", r)
			}
		default:
			name := names[i-len(files)-len(good)]
			want := broken[name].want
			switch {
			case r.OK:
				t.Errorf("self-test: %s was accepted", name)
			case want == "syntax" && r.Errors[0].Kind != "ERROR" && !strings.HasPrefix(r.Errors[0].Kind, "MISSING"):
				t.Errorf("self-test: %s: want a syntax error, got %v", name, r)
			case want != "syntax" && r.Errors[0].Kind != want:
				t.Errorf("self-test: %s: want %s, got %v", name, want, r)
			default:
				t.Logf("self-test: %s rejected: %s %q", name, r.Errors[0].Kind, r.Errors[0].Text)
			}
		}
	}
	checkCfgNames(t, modules)
}

// checkCfgNames checks every cfg against its module (CfgProblems), and
// that the check bites on broken copies of a real cfg.
func checkCfgNames(t *testing.T, modules map[string]tlacheck.SyntaxResult) {
	t.Helper()
	_, cfgs := loadCfgs(t)
	for _, c := range cfgs {
		m, ok := modules[c.Module]
		if !ok {
			t.Errorf("%s: module %s was not parsed", c.Name, c.Module)
			continue
		}
		for _, p := range tlacheck.CfgProblems(c, m) {
			t.Error(p)
		}
	}
	var base tlacheck.Cfg
	for _, c := range cfgs {
		if c.Name == "GMP" {
			base = c
		}
	}
	if base.Name == "" {
		t.Fatal("no GMP.cfg for the cfg self-test")
	}
	clone := func() tlacheck.Cfg {
		c := base
		c.Constants = maps.Clone(base.Constants)
		c.Invariants = slices.Clone(base.Invariants)
		c.Properties = slices.Clone(base.Properties)
		return c
	}
	mutants := map[string]func(*tlacheck.Cfg){
		"constant without a value": func(c *tlacheck.Cfg) { delete(c.Constants, "NetpollOn") },
		"undeclared constant":      func(c *tlacheck.Cfg) { c.Constants["Netpoll"] = "FALSE" },
		"undefined invariant":      func(c *tlacheck.Cfg) { c.Invariants = append(c.Invariants, "InvNoSuch") },
		"invariant with arguments": func(c *tlacheck.Cfg) { c.Invariants = append(c.Invariants, "LocalEmpty") },
		"undefined property":       func(c *tlacheck.Cfg) { c.Properties[0] = "NoLostWakeup" },
		"undefined specification":  func(c *tlacheck.Cfg) { c.Spec = "FairSpecification" },
	}
	for name, mutate := range mutants {
		c := clone()
		mutate(&c)
		if p := tlacheck.CfgProblems(c, modules["GMP"]); len(p) == 0 {
			t.Errorf("cfg self-test: %s not reported", name)
		} else {
			t.Logf("cfg self-test: %s", p[0])
		}
	}
}
