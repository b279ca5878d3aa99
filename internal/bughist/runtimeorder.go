package bughist

import (
	"context"
	"errors"
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The spec's no-P recheck looks at the Ps in any order (a set of Ps
// visited, MState.Scan), a sound abstraction of checkRunqsNoP's walk over
// allp in index order; the reference scheduler walks them in order. Where
// the explorer's shortest counterexample visits a P before a lower one,
// the impl technique replays instead the shortest counterexample that
// keeps allp's order, found by a breadth-first search of the same model
// restricted to those recheck steps: a sub-graph of the spec's, so every
// trace it finds is a spec trace.

// inRuntimeOrder reports whether every recheck step of t visits the lowest
// P its M has not visited yet.
func inRuntimeOrder(t spec.Trace) bool {
	prev := t.Init
	for _, st := range t.Steps {
		if !runtimeOrderStep(&prev, st.Action) {
			return false
		}
		prev = st.State
	}
	return true
}

// runtimeOrderStep reports whether a, taken in s, keeps checkRunqsNoP's
// order: a recheck of a P is of the lowest one its M has not looked at.
func runtimeOrderStep(s *spec.State, a spec.Action) bool {
	switch a.Kind {
	case spec.ActRecheckMiss, spec.ActRecheckFound:
		scan := s.M[a.M].Scan
		for p := 0; p < int(a.P); p++ {
			if scan&(1<<p) == 0 {
				return false
			}
		}
	}
	return true
}

// invariantInRuntimeOrder is the shortest path, on bounds b, from the
// initial state to one that breaks an invariant, through recheck steps in
// allp order only (ctx bounds the search).
func invariantInRuntimeOrder(ctx context.Context, b spec.Bounds) (*spec.Violation, error) {
	md, err := spec.NewModel(b)
	if err != nil {
		return nil, err
	}
	type node struct {
		s      spec.State
		parent int
		a      spec.Action
	}
	init := md.Init()
	nodes := []node{{s: init, parent: -1}}
	seen := map[string]bool{init.Key(): true}
	for i := 0; i < len(nodes); i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s := nodes[i].s
		for _, a := range md.Enabled(s) {
			if !runtimeOrderStep(&s, a) {
				continue
			}
			ns, err := md.Step(s, a)
			if errors.Is(err, spec.ErrNoIdleM) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("%v in\n%v: %w", a, s, err)
			}
			k := ns.Key()
			if seen[k] {
				continue
			}
			seen[k] = true
			nodes = append(nodes, node{s: ns, parent: i, a: a})
			if cerr := md.Check(ns); cerr != nil {
				var steps []spec.TraceStep
				for j := len(nodes) - 1; j > 0; j = nodes[j].parent {
					steps = append(steps, spec.TraceStep{Action: nodes[j].a, State: nodes[j].s})
				}
				for l, r := 0, len(steps)-1; l < r; l, r = l+1, r-1 {
					steps[l], steps[r] = steps[r], steps[l]
				}
				return &spec.Violation{Kind: spec.KindInvariant, Err: cerr, Detail: cerr.Error(),
					Trace: spec.Trace{Init: init, Steps: steps, Loop: -1}}, nil
			}
		}
	}
	return nil, fmt.Errorf("no invariant breaks on %v with the recheck in allp order (%d states)", b, len(nodes))
}
