package mutate

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/internal/procgroup"
)

// A Schema is one package's operator mutants compiled into one build
// (schema.go). The files are written only to a temporary directory and
// reach the go command through an overlay.
type Schema struct {
	Pkg   string            // package directory, slash path from the module root ("impl")
	Files map[string][]byte // rewritten files by slash path from the module root, the generated helper file included
	// IDs maps each mutant in the schema to its switch value (MutantEnv).
	IDs map[string]int
	// Fallback maps each mutant of the package that is not in the schema
	// to the reason; the harness judges those on a per-mutant overlay.
	Fallback map[string]string
	// Builds is how many compilations it took to find a schema that builds.
	Builds int

	names map[int]string // switch value -> mutant ID
}

// schemaHelperName is the generated file's name in the package directory
// (it does not exist on disk; the overlay adds it).
const schemaHelperName = "zz_gmpcheck_mutant_schema.go"

// schemaTags are the build tag sets the schema must compile under: the
// techniques build the packages with and without the instrumented hooks.
var schemaTags = []string{"", "gmpcheck_hooks"}

// BuildSchema rewrites the files of package pkg (a directory under root)
// that ms mutate, so that every mutant of ms that can be is behind the
// switch, and compiles the result under every tag set of schemaTags; a
// mutant on a line the compiler rejects leaves the schema for the overlay
// path (Fallback), and the rest is compiled again. ms must all be operator
// mutants of pkg.
func BuildSchema(ctx context.Context, root, pkg string, ms []Mutant) (*Schema, error) {
	files, info, tpkg, pkgName, err := typecheck(ctx, root, pkg)
	if err != nil {
		return nil, err
	}
	s := &Schema{Pkg: pkg, Files: map[string][]byte{}, IDs: map[string]int{}, Fallback: map[string]string{}, names: map[int]string{}}
	byFile := map[string][]Mutant{}
	for _, m := range ms {
		if m.Kind != KindOperator || path.Dir(m.File) != pkg {
			return nil, fmt.Errorf("schema of %s: mutant %s is not an operator mutant of the package", pkg, m.ID)
		}
		s.IDs[m.ID] = len(s.IDs) + 1
		s.names[s.IDs[m.ID]] = m.ID
		byFile[m.File] = append(byFile[m.File], m)
	}
	var sfs []*schemaFile
	for file, fms := range byFile {
		sf := files[file]
		if sf == nil {
			for _, m := range fms {
				s.Fallback[m.ID] = "not a file of the package's default build"
			}
			continue
		}
		for id, why := range sf.placeSites(fms, s.IDs, info, tpkg) {
			s.Fallback[id] = why
		}
		sfs = append(sfs, sf)
	}
	for id := range s.Fallback {
		delete(s.IDs, id)
	}
	helper := path.Join(pkg, schemaHelperName)
	for {
		for _, sf := range sfs {
			s.Files[sf.path] = sf.render(func(a schemaAlt) bool { return a.id != 0 && s.in(a.id) })
		}
		s.Files[helper] = schemaHelperFile(pkgName)
		s.Builds++
		bad, err := s.compile(ctx, root)
		if err != nil {
			return nil, err
		}
		if len(bad) == 0 {
			return s, nil
		}
		dropped := 0
		drop := func(site *schemaSite, why string) {
			for _, a := range site.alts {
				if id := s.idName(a.id); id != "" && s.in(a.id) {
					s.Fallback[id] = why
					delete(s.IDs, id)
					dropped++
				}
			}
		}
		for _, sf := range sfs {
			for _, line := range bad[sf.path] {
				hit := false
				for _, site := range sf.sites {
					if line >= site.lines[0] && line <= site.lines[1] && s.live(site) {
						drop(site, fmt.Sprintf("the schema does not compile at line %d", line))
						hit = true
					}
				}
				if hit {
					continue
				}
				// An error outside every site: a function whose loop
				// gained a break is no longer terminated by it ("missing
				// return" at its closing brace). Its break/continue
				// sites go to the overlay.
				lo, hi := sf.funcAround(line)
				for _, site := range sf.sites {
					if site.kind == siteBranch && site.lines[0] >= lo && site.lines[1] <= hi && s.live(site) {
						drop(site, fmt.Sprintf("the schema does not compile at line %d (the enclosing function's end)", line))
					}
				}
			}
		}
		if dropped == 0 || s.Builds >= 8 {
			return nil, fmt.Errorf("schema of %s does not compile, and no mutant site explains it: %v", pkg, bad)
		}
	}
}

// live reports whether any of site's mutants is still in the schema.
func (s *Schema) live(site *schemaSite) bool {
	for _, a := range site.alts {
		if s.in(a.id) {
			return true
		}
	}
	return false
}

// in reports whether switch value id is still in the schema.
func (s *Schema) in(id int) bool {
	_, ok := s.IDs[s.names[id]]
	return ok
}

func (s *Schema) idName(id int) string { return s.names[id] }

// Overlay writes the schema's files and an overlay naming them into dir
// and returns the overlay's path.
func (s *Schema) Overlay(root, dir string) (string, error) {
	repl := map[string]string{}
	names := make([]string, 0, len(s.Files))
	for f := range s.Files {
		names = append(names, f)
	}
	sort.Strings(names)
	for i, f := range names {
		out := filepath.Join(dir, fmt.Sprintf("schema%d_%s", i, path.Base(f)))
		if err := os.WriteFile(out, s.Files[f], 0o644); err != nil {
			return "", err
		}
		repl[filepath.Join(root, filepath.FromSlash(f))] = out
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": repl})
	if err != nil {
		return "", err
	}
	ov := filepath.Join(dir, "schema-overlay.json")
	return ov, os.WriteFile(ov, data, 0o644)
}

// overlayName is the module file that Overlay wrote as base.
func (s *Schema) overlayName(base string) (string, bool) {
	names := make([]string, 0, len(s.Files))
	for f := range s.Files {
		names = append(names, f)
	}
	sort.Strings(names)
	for i, f := range names {
		if base == fmt.Sprintf("schema%d_%s", i, path.Base(f)) {
			return f, true
		}
	}
	return "", false
}

var compileErrRE = regexp.MustCompile(`(?m)^(?:\./)?([^\s:]+\.go):(\d+):(\d+): `)

// compile builds the package on the schema's overlay under every tag set
// and returns the lines (by file) the compiler rejected.
func (s *Schema) compile(ctx context.Context, root string) (map[string][]int, error) {
	tmp, err := os.MkdirTemp("", "gmpcheck-schema-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ov, err := s.Overlay(root, tmp)
	if err != nil {
		return nil, err
	}
	bad := map[string][]int{}
	for _, tags := range schemaTags {
		args := []string{"build", "-o", os.DevNull, "-overlay", ov, "-gcflags=-e"}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		args = append(args, "./"+s.Pkg)
		cmd := exec.CommandContext(ctx, "go", args...)
		procgroup.KillOnCancel(cmd)
		cmd.Dir = root
		msg, err := cmd.CombinedOutput()
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		found := false
		for _, m := range compileErrRE.FindAllStringSubmatch(string(msg), -1) {
			file := filepath.ToSlash(m[1])
			if f, ok := s.overlayName(path.Base(file)); ok {
				file = f
			} else if filepath.IsAbs(m[1]) {
				if rel, err := filepath.Rel(root, m[1]); err == nil {
					file = filepath.ToSlash(rel)
				}
			}
			if !strings.Contains(file, "/") {
				file = path.Join(s.Pkg, file)
			}
			line, _ := strconv.Atoi(m[2])
			bad[file] = append(bad[file], line)
			found = true
		}
		if !found {
			return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, lastLines(string(msg), 10))
		}
	}
	return bad, nil
}

// typecheck parses and type-checks pkg's files of the default build; the
// imports come from their export data ('go list -export').
func typecheck(ctx context.Context, root, pkg string) (map[string]*schemaFile, *types.Info, *types.Package, string, error) {
	list := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "go", append([]string{"list"}, args...)...)
		procgroup.KillOnCancel(cmd)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			return "", fmt.Errorf("go list %s: %v\n%s", strings.Join(args, " "), err, lastLines(msg, 10))
		}
		return string(out), nil
	}
	self, err := list("-f", "{{.ImportPath}}\t{{.Name}}\t{{join .GoFiles \",\"}}", "./"+pkg)
	if err != nil {
		return nil, nil, nil, "", err
	}
	parts := strings.Split(strings.TrimSpace(self), "\t")
	if len(parts) != 3 {
		return nil, nil, nil, "", fmt.Errorf("go list ./%s: %q", pkg, self)
	}
	deps, err := list("-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", "./"+pkg)
	if err != nil {
		return nil, nil, nil, "", err
	}
	export := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(deps), "\n") {
		p, e, _ := strings.Cut(l, "\t")
		export[p] = e
	}
	fset := token.NewFileSet()
	files := map[string]*schemaFile{}
	var asts []*ast.File
	for _, name := range strings.Split(parts[2], ",") {
		rel := path.Join(pkg, name)
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, nil, nil, "", err
		}
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, nil, "", err
		}
		files[rel] = &schemaFile{path: rel, src: src, fset: fset, file: f, tf: fset.File(f.Pos())}
		asts = append(asts, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(p string) (io.ReadCloser, error) {
		e := export[p]
		if e == "" {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(e)
	})
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: imp}
	tpkg, err := conf.Check(parts[0], fset, asts, info)
	if err != nil {
		return nil, nil, nil, "", fmt.Errorf("type-checking %s: %v", pkg, err)
	}
	if obj := tpkg.Scope().Lookup(schemaPrefix + "ant"); obj != nil {
		return nil, nil, nil, "", fmt.Errorf("%s already declares %s: the schema's names would clash", pkg, obj.Name())
	}
	return files, info, tpkg, parts[1], nil
}
