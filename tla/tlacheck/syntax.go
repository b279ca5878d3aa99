package tlacheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// The syntax check: tla-checker accepts some text that TLC's parser does
// not, and TLC is not installed here, so every module is also parsed with
// the community TLA+ grammar (tree-sitter-tlaplus, wasm, under
// web-tree-sitter; pinned in package.json) by parse.mjs. A parse with an
// ERROR or MISSING node fails, and so does a name SANY would not resolve
// (parse.mjs lists the kinds: an undefined or forward name, an operator of
// a standard module the module does not EXTEND, a wrong arity, a
// redefinition). CfgProblems checks each cfg against its module's names.
// Levels stay SANY's business (docs/tla.md).

// ErrParserNotInstalled is returned when the grammar or its runtime is
// missing; it says how to install them.
var ErrParserNotInstalled = errors.New("tree-sitter-tlaplus is not installed: run 'npm ci --prefix tla' in the repository root (needs node and npm)")

// A SyntaxError is one node the grammar rejected.
type SyntaxError struct {
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Kind   string `json:"kind"` // "ERROR" or "MISSING <token>"
	Text   string `json:"text"`
}

// A SyntaxResult is the parse of one module.
type SyntaxResult struct {
	File   string        `json:"file"`
	OK     bool          `json:"ok"`
	Errors []SyntaxError `json:"errors"`
	// The module's CONSTANTs and top-level operator definitions (name to
	// arity), from a clean parse.
	Constants   []string       `json:"constants"`
	Definitions map[string]int `json:"definitions"`
}

func (r SyntaxResult) String() string {
	if r.OK {
		return filepath.Base(r.File) + ": syntax ok"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d syntax or name error(s)", filepath.Base(r.File), len(r.Errors))
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "\n  %d:%d %s %q", e.Line, e.Column, e.Kind, firstLineOf(e.Text))
	}
	return b.String()
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// CheckParserInstalled reports ErrParserNotInstalled (wrapped with the
// detail) unless node, the grammar's wasm and web-tree-sitter are present.
func CheckParserInstalled(dir string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("%w: node not found in PATH", ErrParserNotInstalled)
	}
	for _, f := range []string{
		filepath.Join(dir, "node_modules", "@tlaplus", "tree-sitter-tlaplus", "tree-sitter-tlaplus.wasm"),
		filepath.Join(dir, "node_modules", "web-tree-sitter", "web-tree-sitter.wasm"),
	} {
		if !fileExists(f) {
			return fmt.Errorf("%w: %s is missing", ErrParserNotInstalled, f)
		}
	}
	return nil
}

// ParseModules parses each .tla file with parse.mjs.
func ParseModules(ctx context.Context, dir string, files []string) ([]SyntaxResult, error) {
	if err := CheckParserInstalled(dir); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("no modules to parse")
	}
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(dir, "parse.mjs")}, files...)...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("node parse.mjs: %v\n%s", err, stderr.String())
	}
	var out []SyntaxResult
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var r SyntaxResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("parse.mjs output: %v: %s", err, sc.Text())
		}
		out = append(out, r)
	}
	if len(out) != len(files) {
		return nil, fmt.Errorf("parse.mjs reported %d results for %d files", len(out), len(files))
	}
	return out, nil
}

// FindModules returns the .tla files in dir.
func FindModules(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.tla"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no .tla files in %s", dir)
	}
	return files, err
}

// CfgProblems lists what TLC would reject in cfg c, given m, the parse of
// its module: a CONSTANT of the module the cfg gives no value, a value for
// a name the module does not declare as a CONSTANT, and a SPECIFICATION,
// INVARIANT or PROPERTY that is not an operator of the module without
// parameters. (The cfg's own syntax is ParseCfg's.)
func CfgProblems(c Cfg, m SyntaxResult) []string {
	var out []string
	declared := map[string]bool{}
	for _, k := range m.Constants {
		declared[k] = true
		if _, ok := c.Constants[k]; !ok {
			out = append(out, fmt.Sprintf("%s: CONSTANT %s of %s has no value", c.Name, k, c.Module))
		}
	}
	var given []string
	for k := range c.Constants {
		given = append(given, k)
	}
	sort.Strings(given)
	for _, k := range given {
		if !declared[k] {
			out = append(out, fmt.Sprintf("%s: %s is not a CONSTANT of %s", c.Name, k, c.Module))
		}
	}
	check := func(what, name string) {
		arity, ok := m.Definitions[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: %s %s is not defined in %s", c.Name, what, name, c.Module))
		case arity != 0:
			out = append(out, fmt.Sprintf("%s: %s %s takes %d argument(s)", c.Name, what, name, arity))
		}
	}
	if c.Spec == "" {
		out = append(out, c.Name+": no SPECIFICATION")
	} else {
		check("SPECIFICATION", c.Spec)
	}
	for _, n := range c.Invariants {
		check("INVARIANT", n)
	}
	for _, n := range c.Properties {
		check("PROPERTY", n)
	}
	return out
}
