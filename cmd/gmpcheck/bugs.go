package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/bughist"
)

// bugs: Go's scheduler bug history (internal/bughist), listed or reproduced
// one entry at a time with the explorer, GMP.tla and the reference
// scheduler; the logic is in the package.

func init() {
	registerCommand(command{
		name:    "bugs",
		summary: "list Go's scheduler bug history, or reproduce one bug with the checks (go1.26 must pass them)",
		run:     runBugs,
	})
}

func runBugs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bugs", "[flags] [NAME]",
		`Without NAME: the catalog of real Go scheduler bugs (golang/go issues) that the
model expresses, each reproduced by 'gmpcheck bugs NAME': number, title, affected
and fixed releases, mechanism, the techniques that check it, the variant; then the
known scheduler bugs outside the model, each with what the model needs to express
it (docs/bugs.md).

With NAME (hist-45867, 45867, or a variant such as go1.19): reproduce it. Every
applicable technique runs on the bug's variant and must catch it, and go1.26 must
pass the same check: explore (spec.Explore, liveness, Ms as the thread limit),
tla (GMP.tla's cfg: with -tlc through TLC, else through tla-checker's graph and
the Go liveness check, minutes on the larger cfgs; the go1.26 twin is the cfg with
GoVersion = 126) and impl (the
reference scheduler, impl.Driver, replays the explorer's counterexample: as the
variant it must follow it into the lost wakeup, as go1.26 leave it). The techniques,
and each checker's runs on the variant and the twin, run at once; "engine:" names
what checked each. The counterexamples are printed as the explorer prints them.
Exit 0 when every technique caught the bug and go1.26 passed, 1 when one did not or
the bug is outside the model (nothing is checked; what it needs is named), 3 when
cut short.`)
	run := fs.String("run", "", "only the techniques matching this regular expression ("+strings.Join(bughist.Techniques, ", ")+")")
	tlaDirFlag := fs.String("dir", "", "the tla directory (default: tla/ in the current directory or a parent, else the copy built into the binary)")
	jar := fs.String("tlc", os.Getenv("TLA2TOOLS_JAR"), "tla2tools.jar: check the cfgs with TLC instead of tla-checker (default $TLA2TOOLS_JAR)")
	quiet := fs.Bool("q", false, "no counterexamples, only each technique's verdict")
	fs.addTimeout(10*time.Minute, "time limit")
	name, args := splitBugName(fs.FlagSet, args)
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	re, err := compileRun(*run)
	if err != nil {
		return usageError(stderr, "bugs", "%v", err)
	}
	out := newOutput(fs, stdout, stderr)
	if name == "" {
		if *run != "" {
			return usageError(stderr, "bugs", "-run selects techniques of a reproduction: give a NAME")
		}
		return listBugs(out)
	}
	e, err := bughist.Lookup(name)
	if err != nil {
		return usageError(stderr, "bugs", "%v", err)
	}
	opt := bughist.Options{TLADir: *tlaDirFlag, TLCJar: *jar, Log: out.human}
	if re != nil {
		opt.Techniques = []string{}
		for _, t := range e.Applicable() {
			if re.MatchString(t) {
				opt.Techniques = append(opt.Techniques, t)
			}
		}
		if e.Expressible() && len(opt.Techniques) == 0 {
			return usageError(stderr, "bugs", "-run %q matches none of %s's techniques (%s)", *run, e.Name, strings.Join(e.Applicable(), ", "))
		}
	}
	ctx, cancel := withTimeout(ctx, fs.timeout)
	defer cancel()
	w := out.human
	fmt.Fprintf(w, "bugs: %s: %s %q\n", e.Name, e.Link(), e.Title)
	fmt.Fprintf(w, "  affected: %s\n  fixed:    %s\n  mechanism: %s\n", e.Affected, e.Fixed, e.Mechanism)
	rep := bughist.Reproduce(ctx, e, opt)
	for _, t := range rep.Results {
		fields := map[string]any{"bug": e.Name, "technique": t.Technique, "engine": t.Engine, "verdict": string(t.Verdict),
			"detail": t.Detail, "bounds": t.Bounds, "trace_steps": t.TraceLen, "seconds": t.Elapsed.Seconds(),
			"go126_pass": t.BasePass, "go126_detail": t.BaseDetail, "go126_seconds": t.BaseElapsed.Seconds()}
		if !*quiet {
			fields["trace"] = t.Trace
		}
		out.row("technique", fields)
		fmt.Fprintf(w, "\n%s: %s", t.Technique, strings.ToUpper(string(t.Verdict)))
		if t.Verdict == bughist.NotRun {
			fmt.Fprintln(w)
			continue
		}
		fmt.Fprintf(w, " (%s)\n", t.Elapsed.Round(time.Millisecond))
		if t.Engine != "" {
			fmt.Fprintf(w, "  engine: %s\n", t.Engine)
		}
		if t.Bounds != "" {
			fmt.Fprintf(w, "  bounds: %s\n", t.Bounds)
		}
		fmt.Fprintf(w, "  %s\n", t.Detail)
		if t.BaseDetail != "" {
			fmt.Fprintf(w, "  %s (%s)\n", t.BaseDetail, t.BaseElapsed.Round(time.Millisecond))
		}
		if t.Trace != "" && !*quiet {
			fmt.Fprintf(w, "  counterexample (%d steps):\n%s\n", t.TraceLen, strings.TrimRight(t.Trace, "\n"))
		}
	}
	fmt.Fprintf(w, "\n%s\n", rep.Summary())
	v := fail
	switch rep.Verdict {
	case bughist.Caught:
		v = pass
	case bughist.Inconclusive:
		v = inconclusive
		if why := interrupted(ctx); why != "" {
			fmt.Fprintf(w, "bugs: stopped early (%s)\n", why)
		}
	}
	fmt.Fprintf(w, "bugs: %v\n", v)
	return out.result(v, rep.Summary(), map[string]any{"bug": e.Name, "issue": e.Issue,
		"expressible": e.Expressible(), "needs": e.Needs, "seconds": rep.Elapsed.Seconds()})
}

// splitBugName takes the one positional argument, NAME, from before or
// after the flags (parse rejects positional arguments).
func splitBugName(fs *flag.FlagSet, args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	n := len(args)
	if n == 0 || strings.HasPrefix(args[n-1], "-") {
		return "", args
	}
	if n >= 2 && strings.HasPrefix(args[n-2], "-") {
		prev := strings.TrimLeft(args[n-2], "-")
		if prev == "" { // "--": what follows is positional
			return args[n-1], args[:n-2]
		}
		if !strings.Contains(prev, "=") {
			if f := fs.Lookup(prev); f != nil {
				if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
					return "", args // the flag's value
				}
			}
		}
	}
	return args[n-1], args[:n-1]
}

// listBugs prints the catalog as a table, then the known bugs outside the
// model with what each needs (and a JSON row per entry: kind "bug" for
// the catalog's, "outside" for the others).
func listBugs(out *output) int {
	cat, outside := bughist.Catalog(), bughist.Outside()
	tw := tabwriter.NewWriter(out.human, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tISSUE\tVERSIONS\tMECHANISM\tTECHNIQUES\tVARIANT\tTITLE")
	for _, e := range cat {
		variant := e.VariantName()
		if e.Variant.Open {
			variant += " (open)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.Link(), e.Versions, e.Area, strings.Join(e.Applicable(), ","), variant, e.Title)
		out.row("bug", map[string]any{"name": e.Name, "issue": e.Issue, "related": e.Related, "title": e.Title,
			"versions": e.Versions, "affected": e.Affected, "fixed": e.Fixed, "mechanism": e.Mechanism, "area": e.Area,
			"cause": e.Cause, "fix": e.Fix, "property": e.Property, "techniques": e.Applicable(),
			"expressible": true, "variant": e.VariantName()})
	}
	tw.Flush()
	fmt.Fprintf(out.human, "\nknown scheduler bugs outside the model (not reproduced: 'gmpcheck bugs NAME' exits 1), and what each needs:\n")
	tw = tabwriter.NewWriter(out.human, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tISSUE\tVERSIONS\tMECHANISM\tTITLE")
	for _, e := range outside {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, e.Link(), e.Versions, e.Area, e.Title)
		out.row("outside", map[string]any{"name": e.Name, "issue": e.Issue, "related": e.Related, "title": e.Title,
			"versions": e.Versions, "affected": e.Affected, "fixed": e.Fixed, "mechanism": e.Mechanism, "area": e.Area,
			"cause": e.Cause, "fix": e.Fix, "property": e.Property, "expressible": false, "needs": e.Needs})
	}
	tw.Flush()
	for _, e := range outside {
		fmt.Fprintf(out.human, "  %s needs %s\n", e.Name, e.Needs)
	}
	summary := fmt.Sprintf("%d bugs in the catalog, each reproduced by 'gmpcheck bugs NAME'; %d known bugs outside the model", len(cat), len(outside))
	fmt.Fprintf(out.human, "\nbugs: %s\n", summary)
	return out.result(pass, summary, map[string]any{"entries": len(cat), "expressible": len(cat), "outside": len(outside)})
}
