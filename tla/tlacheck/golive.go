package tlacheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Temporal cfgs without TLC.
//
// tla-checker 0.9.0 explores GMP.tla soundly but checks temporal properties
// as if every action were strongly fair (docs/tla.md), so its verdict on a
// PROPERTY is not evidence. The Go explorer's liveness check (spec.Explore
// with Options.Liveness) is exact for weak fairness on a finite graph, and
// docs/tla.md argues property for property that GMP.tla's temporal formulas
// and fairness say what spec's checks say. What remains to be shown is that
// the two work on the same graph. GoLiveness does, for one temporal cfg:
//
//  1. tla-checker explores the cfg without its PROPERTY lines and with
//     Spec (Init /\ [][Next]_st) for FairSpec (so the invariants and the
//     deadlock check still run) and exports the graph;
//  2. that graph is compared with the spec's under the cfg's bounds: same
//     states, same edges labelled with their fairness class and agent
//     (CompareGMPGraph); a graph too large for tla-checker to export
//     (DOTFits: GMP_np3) is held to the spec's by its distinct-state count
//     alone, and TLC's dump of it shows the rest where TLC runs;
//  3. spec.Explore checks liveness on those bounds (with property (c)
//     when the cfg lists NoLocalStarvation: ExploreOptions), and its
//     verdict is mapped to the cfg's properties (LivenessProperty).
//
// The Result's Tool is ToolGoLiveness, so no report can mistake it for
// tla-checker's or TLC's own verdict on the formulas.

// ToolGoLiveness names the method in Results and reports.
const ToolGoLiveness = "tla-checker graph + Go liveness"

// LivenessProperty maps spec's liveness violations to GMP.tla's property
// names.
var LivenessProperty = map[spec.ViolationKind]string{
	spec.KindWorkConservation: "WorkConservation",
	spec.KindGlobalStarvation: "NoGlobalStarvation",
	spec.KindLocalStarvation:  "NoLocalStarvation",
	spec.KindSTWStuck:         "STWCompletes",
	spec.KindTimerStuck:       "TimerRuns",
	spec.KindNetpollUnwatched: "NetpollWatched",
}

// livenessOrder is the order spec.Explore checks the properties in: it
// stops at the first violation, so a later property is unchecked then.
var livenessOrder = []spec.ViolationKind{spec.KindWorkConservation, spec.KindSTWStuck, spec.KindTimerStuck,
	spec.KindNetpollUnwatched, spec.KindGlobalStarvation, spec.KindLocalStarvation}

// ExploreOptions are the spec.Explore options whose liveness check stands
// for c's temporal properties: FairSpec's fairness with NM as the thread
// limit, and property (c), local-queue starvation, which is not one of the
// explorer's default checks (Go 1.26 fails it), only when c lists
// NoLocalStarvation. With (c) the explorer goes on past a violation
// (Options.All), so that (c) is judged even where (b) fails first: without
// asynchronous preemption (GoVersion = 113) both may fail, and a cfg that
// lists (c) alone asks about (c) alone.
func ExploreOptions(c Cfg) spec.Options {
	local := contains(c.Properties, LivenessProperty[spec.KindLocalStarvation])
	return spec.Options{Liveness: c.Temporal(), ThreadLimit: true, LocalStarvation: local, All: local}
}

// GoLiveness checks a temporal GMP cfg by the method above. The Result's
// States are tla-checker's; its Message says what each step found. A
// difference between the graphs is Outcome Error (the method does not
// apply), a run cut short is Timeout. dot, if not empty, keeps the exported
// graph there (else it goes to a temporary file).
func GoLiveness(ctx context.Context, dir string, c Cfg, dot string) (Result, error) {
	res := Result{Tool: ToolGoLiveness}
	if c.Module != "GMP" {
		return res, fmt.Errorf("%s: temporal properties of %s have no Go counterpart (only GMP.tla mirrors spec/)", c.Name, c.Module)
	}
	for _, p := range c.Properties {
		if !knownProperty(p) {
			return res, fmt.Errorf("%s: property %s has no counterpart in spec's liveness checks", c.Name, p)
		}
	}
	if c.Spec != "FairSpec" {
		// The Go explorer assumes FairSpec's fairness; under another
		// specification its verdict would not be the formulas'.
		return res, fmt.Errorf("%s: SPECIFICATION %s: a temporal GMP cfg must check FairSpec, the fairness spec's liveness check assumes", c.Name, c.Spec)
	}
	b, err := BoundsFromCfg(c)
	if err != nil {
		return res, err
	}
	fits := DOTFits(ctx, c)
	switch {
	case !fits:
		dot = ""
	case dot == "":
		tmp, err := os.MkdirTemp("", "gmpcheck-live-")
		if err != nil {
			return res, err
		}
		defer os.RemoveAll(tmp)
		dot = filepath.Join(tmp, c.Name+".dot")
	}
	tc, err := RunChecker(ctx, dir, c, RunOptions{DOT: dot, SafetySpec: "Spec"})
	if err != nil {
		return res, err
	}
	res.States, res.Elapsed = tc.States, tc.Elapsed
	if tc.Outcome != Pass {
		// An invariant, a deadlock, a limit or a time-out: that is the
		// verdict; liveness is not reached (as in TLC).
		tc.Tool = ToolGoLiveness
		tc.Message = "tla-checker (properties not evaluated): " + tc.Message
		return tc, nil
	}
	var how string // how the two graphs were shown the same
	if fits {
		cmp, err := CompareGMPGraph(ctx, dot, b)
		if ctx.Err() != nil {
			return timedOut(res, ctx), nil
		}
		if errors.Is(err, ErrGraphsDiffer) {
			res.Outcome = Error
			res.Message = "the Go explorer's liveness cannot stand for GMP.tla's properties: " + err.Error()
			return res, nil
		}
		if err != nil {
			return res, err
		}
		how = cmp.String()
	}
	live, err := spec.Explore(ctx, b, ExploreOptions(c))
	if err != nil {
		return res, err
	}
	if ctx.Err() != nil {
		return timedOut(res, ctx), nil
	}
	res.Elapsed += live.Elapsed
	if !fits {
		if why := countDiffers(tc.States, live); why != "" {
			res.Outcome = Error
			res.Message = "the Go explorer's liveness cannot stand for GMP.tla's properties: " + why
			return res, nil
		}
		how = notExported(tc.States)
	}
	steps := fmt.Sprintf("tla-checker: %d states, invariants and deadlock ok; %s; spec.Explore liveness", tc.States, how)
	v := live.Violation
	if v != nil && LivenessProperty[v.Kind] != "" && len(live.Violations) > 0 {
		// Options.All: the first violated property the cfg lists, if any;
		// every property was checked, so the listed ones hold otherwise.
		listed := false
		for _, g := range live.Violations {
			if contains(c.Properties, LivenessProperty[g.Kind]) {
				v, listed = g.First, true
				break
			}
		}
		if !listed && live.Complete && live.Liveness {
			res.Outcome = Pass
			res.Message = fmt.Sprintf("%s: %s violated (%s); the cfg's properties hold (every property checked)", steps, LivenessProperty[v.Kind], v.Detail)
			return res, nil
		}
	}
	switch {
	case v == nil && live.Complete && live.Liveness:
		res.Outcome = Pass
		res.Message = steps + ": pass (liveness by the Go explorer on the identical graph)"
	case v == nil:
		res.Outcome = Limit
		res.Message = steps + ": incomplete"
	case LivenessProperty[v.Kind] == "":
		// A safety violation the tla-checker run did not see: the models
		// disagree after all.
		res.Outcome = Error
		res.Message = fmt.Sprintf("%s: %s, which tla-checker did not report", steps, v.Kind)
		res.Trace = v.String()
	default:
		name := LivenessProperty[v.Kind]
		res.Trace = v.String()
		res.Message = fmt.Sprintf("%s: %s violated (%s)", steps, name, v.Detail)
		if contains(c.Properties, name) {
			res.Outcome, res.Name = Property, name
			break
		}
		// The violated property is not one the cfg asks about. The ones
		// checked before it held; the ones after it were not checked.
		var unchecked []string
		after := false
		for _, k := range livenessOrder {
			if k == v.Kind {
				after = true
				continue
			}
			if after && contains(c.Properties, LivenessProperty[k]) {
				unchecked = append(unchecked, LivenessProperty[k])
			}
		}
		if len(unchecked) > 0 {
			res.Outcome = Limit
			res.Message += "; not checked after it: " + strings.Join(unchecked, ", ")
		} else {
			res.Outcome = Pass
			res.Trace = ""
			res.Message += "; the cfg's properties, checked before it, hold"
		}
	}
	return res, nil
}

func knownProperty(name string) bool {
	for _, p := range LivenessProperty {
		if p == name {
			return true
		}
	}
	return false
}

func timedOut(res Result, ctx context.Context) Result {
	res.Outcome = Timeout
	res.Message = "time limit reached: " + ctx.Err().Error()
	return res
}
