// Package tlacheck runs gmpcheck's TLA+ models: it finds the .tla/.cfg
// pairs under tla/, reads what each cfg expects, runs the wasm checker
// tla-checker under node (and TLC when a tla2tools.jar is given), and turns
// their output into one Result that the test and the gmpcheck command judge
// the same way.
package tlacheck

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A Cfg is one TLC-style model configuration beside its module: Module.cfg
// or Module_variant.cfg next to Module.tla.
//
// Besides TLC's directives a cfg carries gmpcheck's expectations in comment
// lines, which both checkers ignore:
//
//	\* expect: pass                  every invariant and property holds
//	\* expect: NoLossNoDup           this invariant or property must fail
//	\* expect: Deadlock              the checker must report a deadlock
//	\* states: 28371                 distinct states of a passing run (optional)
//
// Seeded-bug cfgs (Module_bug_name.cfg) must expect a failure. A cfg with
// PROPERTY lines is temporal: TLC checks its properties; without TLC they
// are checked by the Go explorer on the state graph tla-checker exports,
// once that graph is shown equal to the spec's (golive.go).
type Cfg struct {
	Path       string   // the .cfg file
	Module     string   // the module it configures
	Name       string   // file name without .cfg, e.g. RunQueue_bug_cas_store
	Expect     string   // "pass", "Deadlock", or an invariant/property name
	States     int      // expected distinct states when Expect is pass; 0: not pinned
	Invariants []string // INVARIANT(S) names, in order
	Properties []string // PROPERTY(IES) names, in order
	Spec       string   // the SPECIFICATION formula's name, if any
	// Constants holds the CONSTANTS given one per line as "Name = value",
	// the value as written (e.g. "2", "TRUE", "\"none\"", "{t1, t2}").
	Constants map[string]string
}

// ModulePath is the .tla file the cfg configures.
func (c Cfg) ModulePath() string { return filepath.Join(filepath.Dir(c.Path), c.Module+".tla") }

// IsBug reports whether the cfg is a seeded bug (its name has "_bug_").
func (c Cfg) IsBug() bool { return strings.Contains(c.Name, "_bug_") }

// Temporal reports whether the cfg checks temporal properties.
func (c Cfg) Temporal() bool { return len(c.Properties) > 0 }

// ExpectPass reports whether the cfg must pass.
func (c Cfg) ExpectPass() bool { return c.Expect == "pass" }

// ExpectKind says which kind of failure the expectation names:
// "invariant", "property", "deadlock" or "" for pass.
func (c Cfg) ExpectKind() string {
	switch {
	case c.Expect == "pass":
		return ""
	case c.Expect == "Deadlock":
		return "deadlock"
	case contains(c.Properties, c.Expect):
		return "property"
	default:
		return "invariant"
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ParseCfg reads a cfg file: the module it belongs to (from its name), the
// expectation comments and the invariant and property lists. It rejects a
// cfg without an expectation, a bug cfg expecting pass, an expected name the
// cfg does not check, and a liveness expectation the checkers could not
// attribute (a violated property is named only when it is the only one).
func ParseCfg(path string) (Cfg, error) {
	base := filepath.Base(path)
	if !strings.HasSuffix(base, ".cfg") {
		return Cfg{}, fmt.Errorf("%s: not a .cfg file", path)
	}
	c := Cfg{Path: path, Name: strings.TrimSuffix(base, ".cfg")}
	c.Module, _, _ = strings.Cut(c.Name, "_")
	if _, err := os.Stat(c.ModulePath()); err != nil {
		return Cfg{}, fmt.Errorf("%s: no module %s.tla beside it", path, c.Module)
	}
	f, err := os.Open(path)
	if err != nil {
		return Cfg{}, err
	}
	defer f.Close()
	var section string
	sc := bufio.NewScanner(f)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, `\*`); ok {
			key, val, ok := strings.Cut(strings.TrimSpace(rest), ":")
			if !ok {
				continue
			}
			val = strings.TrimSpace(val)
			switch strings.TrimSpace(key) {
			case "expect":
				if c.Expect != "" {
					return Cfg{}, fmt.Errorf("%s:%d: second expect line", path, lineNo)
				}
				if val == "" || strings.ContainsAny(val, " \t") {
					return Cfg{}, fmt.Errorf("%s:%d: expect wants one word (pass, Deadlock or a name), got %q", path, lineNo, val)
				}
				c.Expect = val
			case "checker":
				return Cfg{}, fmt.Errorf("%s:%d: the checker line is gone: temporal cfgs are checked by TLC or by the Go explorer on tla-checker's graph (docs/tla.md)", path, lineNo)
			case "states":
				n, err := strconv.Atoi(val)
				if err != nil || n <= 0 {
					return Cfg{}, fmt.Errorf("%s:%d: states wants a positive count, got %q", path, lineNo, val)
				}
				c.States = n
			}
			continue
		}
		if line == "" {
			continue
		}
		if section == "const" {
			if name, val, ok := strings.Cut(line, "="); ok && len(strings.Fields(name)) == 1 {
				if c.Constants == nil {
					c.Constants = map[string]string{}
				}
				c.Constants[strings.TrimSpace(name)] = strings.TrimSpace(val)
				continue
			}
		}
		for _, word := range strings.Fields(line) {
			if strings.HasPrefix(word, `\*`) {
				break
			}
			switch word {
			case "INVARIANT", "INVARIANTS":
				section = "inv"
				continue
			case "PROPERTY", "PROPERTIES":
				section = "prop"
				continue
			case "CONSTANT", "CONSTANTS":
				section = "const"
				continue
			case "SPECIFICATION":
				section = "spec"
				continue
			case "INIT", "NEXT", "SYMMETRY",
				"CHECK_DEADLOCK", "CONSTRAINT", "CONSTRAINTS", "ACTION_CONSTRAINT",
				"ACTION_CONSTRAINTS", "VIEW", "ALIAS", "POSTCONDITION":
				section = ""
				continue
			}
			switch section {
			case "inv":
				c.Invariants = append(c.Invariants, word)
			case "prop":
				c.Properties = append(c.Properties, word)
			case "spec":
				c.Spec = word
				section = ""
			}
		}
	}
	if err := sc.Err(); err != nil {
		return Cfg{}, err
	}
	switch {
	case c.Expect == "":
		return Cfg{}, fmt.Errorf(`%s: no "\* expect:" line`, path)
	case c.IsBug() && c.Expect == "pass":
		return Cfg{}, fmt.Errorf("%s: a seeded-bug cfg must expect a failure", path)
	case c.Expect != "pass" && c.Expect != "Deadlock" &&
		!contains(c.Invariants, c.Expect) && !contains(c.Properties, c.Expect):
		return Cfg{}, fmt.Errorf("%s: expects %s to fail, but checks no such invariant or property", path, c.Expect)
	case c.ExpectKind() == "property" && len(c.Properties) != 1:
		return Cfg{}, fmt.Errorf("%s: a cfg expecting property %s to fail must list it as its only PROPERTY (tla-checker does not name the violated one)", path, c.Expect)
	case c.States != 0 && c.Expect != "pass":
		return Cfg{}, fmt.Errorf("%s: a states count is only meaningful for a passing cfg", path)
	}
	return c, nil
}

// cfgKeywords are the words that start a section of a TLC cfg.
var cfgKeywords = map[string]bool{
	"CONSTANT": true, "CONSTANTS": true, "INVARIANT": true, "INVARIANTS": true,
	"PROPERTY": true, "PROPERTIES": true, "SPECIFICATION": true, "INIT": true,
	"NEXT": true, "SYMMETRY": true, "CHECK_DEADLOCK": true, "CONSTRAINT": true,
	"CONSTRAINTS": true, "ACTION_CONSTRAINT": true, "ACTION_CONSTRAINTS": true,
	"VIEW": true, "ALIAS": true, "POSTCONDITION": true,
}

// SafetyCfg returns the cfg text without its PROPERTY/PROPERTIES sections
// (the keyword and the names after it, up to the next keyword) and, if spec
// is not empty, with the SPECIFICATION's formula replaced by spec (the same
// Init and Next without the fairness conjuncts: the reachable graph is the
// same). Comments and everything else stay.
func SafetyCfg(text, spec string) string {
	var out []string
	inProp, afterSpec := false, false
	for _, line := range strings.SplitAfter(text, "\n") {
		code, comment, hasComment := strings.Cut(line, `\*`)
		var kept []string
		changed := false
		for _, word := range strings.Fields(code) {
			if cfgKeywords[word] {
				inProp = word == "PROPERTY" || word == "PROPERTIES"
			} else if afterSpec && spec != "" {
				word, changed = spec, true
			}
			afterSpec = word == "SPECIFICATION"
			if !inProp {
				kept = append(kept, word)
			}
		}
		switch {
		case !changed && len(kept) == len(strings.Fields(code)):
			out = append(out, line) // untouched
		case len(kept) > 0 || hasComment:
			l := strings.Join(kept, " ")
			if hasComment {
				l += ` \*` + strings.TrimRight(comment, "\n")
			}
			out = append(out, l+"\n")
		}
	}
	return strings.Join(out, "")
}

// FindCfgs returns every cfg in dir, sorted by name.
func FindCfgs(dir string) ([]Cfg, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.cfg"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no .cfg files in %s", dir)
	}
	sort.Strings(paths)
	var out []Cfg
	for _, p := range paths {
		c, err := ParseCfg(p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// FindDir locates the repository's tla directory: dir itself if it holds
// run.mjs, else the first ancestor of dir with a tla/run.mjs.
func FindDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fileExists(filepath.Join(abs, "run.mjs")) && fileExists(filepath.Join(abs, "package.json")) {
		return abs, nil
	}
	for d := abs; ; d = filepath.Dir(d) {
		if fileExists(filepath.Join(d, "tla", "run.mjs")) {
			return filepath.Join(d, "tla"), nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no tla/run.mjs in %s or any parent directory", abs)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
