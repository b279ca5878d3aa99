package mutate

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// prepareSchemata builds the mutant schema of every package that ms has
// operator mutants in, under dir, and runs each technique those mutants'
// areas use on the schema's binaries with no mutant on: the schema must
// pass what the unmutated tree passes. A technique that fails there (a
// test that counts allocations, say) judges the package's mutants on
// per-mutant overlay builds instead; a schema that cannot be built sends
// all its mutants to the overlay path. Every choice is logged.
func (r *Runner) prepareSchemata(ctx context.Context, dir string, ms []Mutant) {
	byPkg := map[string][]Mutant{}
	areas := map[string]map[Area]bool{}
	for _, m := range ms {
		if m.Kind != KindOperator || m.Area == AreaTLA {
			continue
		}
		pkg := path.Dir(m.File)
		byPkg[pkg] = append(byPkg[pkg], m)
		if areas[pkg] == nil {
			areas[pkg] = map[Area]bool{}
		}
		areas[pkg][m.Area] = true
	}
	pkgs := make([]string, 0, len(byPkg))
	for p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	r.schemas = map[string]*schemaRun{}
	for _, pkg := range pkgs {
		if ctx.Err() != nil {
			return
		}
		s, err := BuildSchema(ctx, r.opt.Root, pkg, byPkg[pkg])
		if err != nil {
			fmt.Fprintf(r.opt.Log, "schema %s: %v: its %d mutants run on their own overlays\n", pkg, err, len(byPkg[pkg]))
			continue
		}
		pdir := filepath.Join(dir, strings.ReplaceAll(pkg, "/", "_"))
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			fmt.Fprintf(r.opt.Log, "schema %s: %v\n", pkg, err)
			continue
		}
		ov, err := s.Overlay(r.opt.Root, pdir)
		if err != nil {
			fmt.Fprintf(r.opt.Log, "schema %s: %v\n", pkg, err)
			continue
		}
		sr := &schemaRun{s: s, b: &builder{r: r, dir: pdir, overlay: ov}, bad: map[string]string{}}
		fmt.Fprintf(r.opt.Log, "schema %s: %d of %d mutants in one build (%d compilations), %d on their own overlays\n",
			pkg, len(s.IDs), len(byPkg[pkg]), s.Builds, len(s.Fallback))
		seen := map[string]bool{}
		for _, a := range Areas {
			if !areas[pkg][a] {
				continue
			}
			for _, t := range r.opt.Plan(a) {
				if seen[t.Name] || t.TLA != "" || !r.ran[t.Name] || r.bad[t.Name] != "" {
					continue
				}
				seen[t.Name] = true
				tr := r.runGo(ctx, sr.b, t, true, filepath.Join(r.opt.Root, "tla"))
				if ctx.Err() != nil {
					return
				}
				verdict := "pass"
				if tr.Outcome != "survived" {
					verdict = tr.Outcome
					sr.bad[t.Name] = tr.Outcome + ": " + strings.Join(tr.Tests, ",") + " " + firstLine(tr.Detail)
				}
				fmt.Fprintf(r.opt.Log, "schema %s baseline %-15s %-9s %6.1fs %s\n", pkg, t.Name, verdict, tr.Elapsed.Seconds(), firstLine(tr.Detail))
			}
		}
		for t, why := range sr.bad {
			fmt.Fprintf(r.opt.Log, "schema %s: technique %s fails with no mutant on (%s): it judges this package's mutants on their own overlays\n", pkg, t, why)
		}
		r.schemas[pkg] = sr
	}
}
