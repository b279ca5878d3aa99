package tla

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// The cross-check of GMP.tla against the executable spec: for a GMP cfg,
// the state graph tla-checker explores (exported as DOT) must be the graph
// of spec's Model under the same bounds, state for state and edge for edge.
//
// The mapping (docs/tla.md): a TLA+ state st maps to the spec.State with
//
//	st.G[g]          ↔ State.G[g].String()            (g in 1..NG)
//	st.P[p].status   ↔ State.P[p].Status.String()     (p in 0..NP-1)
//	st.P[p].tick     ↔ State.P[p].SchedTick
//	st.P[p].runnext  ↔ State.P[p].RunNext
//	st.P[p].ring     ↔ State.P[p].Ring[:N]
//	st.M[m].pc       ↔ State.M[m].PC.String()         (m in 0..NM-1)
//	st.M[m].p        ↔ State.M[m].P                   (-1 = NoP in both)
//	st.M[m].curg     ↔ State.M[m].CurG
//	st.M[m].spinning ↔ State.M[m].Spinning
//	st.Runq          ↔ State.Runq.Gs[:N]
//	st.NPIdle, st.NMSpinning, st.SpawnLeft ↔ the fields of the same names
//
// and both sides are rendered to the same canonical string. Edges are the
// distinct (from, to) pairs with from ≠ to: the TLA+ module's Terminated
// stutters in the terminal states the spec accepts, and a spec step that
// would need an M beyond the bound is not taken on either side.

// boundsFromCfg reads the GMP constants of a cfg into spec.Bounds.
func boundsFromCfg(c tlacheck.Cfg) (spec.Bounds, error) {
	num := func(name string) (int, error) {
		v, ok := c.Constants[name]
		if !ok {
			return 0, fmt.Errorf("%s: constant %s missing", c.Name, name)
		}
		return strconv.Atoi(v)
	}
	boolean := func(name string) (bool, error) {
		switch c.Constants[name] {
		case "TRUE":
			return true, nil
		case "FALSE":
			return false, nil
		}
		return false, fmt.Errorf("%s: constant %s = %q, want TRUE or FALSE", c.Name, name, c.Constants[name])
	}
	var b spec.Bounds
	var errs []error
	for _, f := range []struct {
		name string
		dst  *int
	}{{"NP", &b.Ps}, {"NM", &b.Ms}, {"NG", &b.Gs}, {"Cap", &b.Cap}, {"Spawn", &b.Spawn}, {"SchedTick", &b.SchedTick}} {
		n, err := num(f.name)
		errs = append(errs, err)
		*f.dst = n
	}
	var err error
	b.Syscalls, err = boolean("Syscalls")
	errs = append(errs, err)
	b.Netpoll, err = boolean("Netpoll")
	errs = append(errs, err)
	b.Bug, err = spec.ParseBug(strings.Trim(c.Constants["Bug"], `"`))
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return spec.Bounds{}, err
	}
	return b, b.Validate()
}

// specKey renders a spec.State canonically.
func specKey(s spec.State) string {
	var b strings.Builder
	b.WriteString("G")
	for g := 1; g <= s.NumGs(); g++ {
		b.WriteString(" " + s.G[g].String())
	}
	for p := 0; p < s.NumPs(); p++ {
		ps := s.P[p]
		fmt.Fprintf(&b, "|P%d %s %d %d %v", p, ps.Status, ps.SchedTick, ps.RunNext, ps.Ring[:ps.N])
	}
	for m := 0; m < s.NumMs(); m++ {
		ms := s.M[m]
		fmt.Fprintf(&b, "|M%d %s %d %d %v", m, ms.PC, ms.P, ms.CurG, ms.Spinning)
	}
	fmt.Fprintf(&b, "|Runq %v|%d %d %d", s.Runq.Gs[:s.Runq.N], s.NPIdle, s.NMSpinning, s.SpawnLeft)
	return b.String()
}

// tlaKey renders a GMP.tla state (its variable st) in specKey's format.
func tlaKey(vars map[string]tlacheck.Value, b spec.Bounds) (string, error) {
	st, ok := vars["st"]
	if !ok || len(vars) != 1 {
		return "", fmt.Errorf("want exactly one variable st, got %d variables", len(vars))
	}
	var out strings.Builder
	var first error
	field := func(v tlacheck.Value, name string) tlacheck.Value {
		f, err := v.Field(name)
		if err != nil && first == nil {
			first = err
		}
		return f
	}
	index := func(v tlacheck.Value, i int) tlacheck.Value {
		e, err := v.Index(int64(i))
		if err != nil && first == nil {
			first = err
		}
		return e
	}
	gids := func(v tlacheck.Value) string {
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = strconv.FormatInt(e.Int, 10)
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	boolStr := func(v tlacheck.Value) string {
		if v.Str == "TRUE" {
			return "true"
		}
		return "false"
	}
	out.WriteString("G")
	G := field(st, "G")
	for g := 1; g <= b.Gs; g++ {
		out.WriteString(" " + index(G, g).Str)
	}
	P := field(st, "P")
	for p := 0; p < b.Ps; p++ {
		ps := index(P, p)
		fmt.Fprintf(&out, "|P%d %s %d %d %s", p, field(ps, "status").Str, field(ps, "tick").Int,
			field(ps, "runnext").Int, gids(field(ps, "ring")))
	}
	M := field(st, "M")
	for m := 0; m < b.Ms; m++ {
		ms := index(M, m)
		fmt.Fprintf(&out, "|M%d %s %d %d %s", m, field(ms, "pc").Str, field(ms, "p").Int,
			field(ms, "curg").Int, boolStr(field(ms, "spinning")))
	}
	fmt.Fprintf(&out, "|Runq %s|%d %d %d", gids(field(st, "Runq")), field(st, "NPIdle").Int,
		field(st, "NMSpinning").Int, field(st, "SpawnLeft").Int)
	return out.String(), first
}

// specGraph explores the spec model with its exported API and returns the
// canonical keys of its states and its distinct non-loop edges.
func specGraph(ctx context.Context, b spec.Bounds) (states map[string]bool, edges map[[2]string]bool, err error) {
	md, err := spec.NewModel(b)
	if err != nil {
		return nil, nil, err
	}
	init := md.Init()
	states = map[string]bool{specKey(init): true}
	edges = map[[2]string]bool{}
	queue := []spec.State{init}
	for len(queue) > 0 {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		s := queue[0]
		queue = queue[1:]
		from := specKey(s)
		for _, a := range md.Enabled(s) {
			ns, err := md.Step(s, a)
			if errors.Is(err, spec.ErrNoIdleM) {
				continue // pruned by the M bound, as in spec.Explore
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", from, err)
			}
			to := specKey(ns)
			if to != from {
				edges[[2]string{from, to}] = true
			}
			if !states[to] {
				states[to] = true
				queue = append(queue, ns)
			}
		}
	}
	return states, edges, nil
}

// crossCheck compares the DOT graph of a GMP cfg with the spec's graph and
// with spec.Explore's distinct-state count. On the smallest cfg it also
// shows that the comparison bites: the same graph against the spec with a
// seeded bug (gosched-local) must differ.
func crossCheck(t *testing.T, c tlacheck.Cfg, dotPath string) {
	t.Helper()
	b, err := boundsFromCfg(c)
	if err != nil {
		t.Fatal(err)
	}
	summary, err := graphDiff(dotPath, b)
	if err != nil {
		t.Errorf("cross-check with the spec: %v", err)
		return
	}
	t.Log(summary)
	if c.Name == "GMP" {
		mutant := b
		mutant.Bug = spec.BugGoschedLocal
		if _, err := graphDiff(dotPath, mutant); err == nil {
			t.Errorf("cross-check self-test: GMP.tla's graph matched the spec with bug %v", mutant.Bug)
		} else {
			t.Logf("cross-check self-test: against the %v spec it reports: %v", mutant.Bug, firstLine(err.Error()))
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// graphDiff returns a one-line summary when the DOT graph and the spec's
// graph under b are equal, else an error describing the difference.
func graphDiff(dotPath string, b spec.Bounds) (string, error) {
	g, err := tlacheck.ReadDOT(dotPath)
	if err != nil {
		return "", fmt.Errorf("reading tla-checker's state graph: %v", err)
	}
	tlaStates := map[string]bool{}
	keys := make([]string, len(g.States))
	for i, vars := range g.States {
		k, err := tlaKey(vars, b)
		if err != nil {
			return "", fmt.Errorf("state s%d: %v", i, err)
		}
		keys[i] = k
		tlaStates[k] = true
	}
	var problems []string
	if len(tlaStates) != len(g.States) {
		problems = append(problems, fmt.Sprintf("the DOT graph maps %d states to %d distinct spec states", len(g.States), len(tlaStates)))
	}
	tlaEdges := map[[2]string]bool{}
	for _, e := range g.Edges {
		if keys[e.From] != keys[e.To] {
			tlaEdges[[2]string{keys[e.From], keys[e.To]}] = true
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfgTimeout)
	defer cancel()
	goStates, goEdges, err := specGraph(ctx, b)
	if err != nil {
		return "", err
	}
	res, err := spec.Explore(ctx, b, spec.Options{})
	if err != nil {
		return "", err
	}
	if res.Distinct != len(goStates) {
		problems = append(problems, fmt.Sprintf("spec.Explore found %d distinct states, the exported Model API %d", res.Distinct, len(goStates)))
	}
	diff := func(what string, a, b map[string]bool) {
		var only []string
		for k := range a {
			if !b[k] {
				only = append(only, k)
			}
		}
		if len(only) > 0 {
			sort.Strings(only)
			problems = append(problems, fmt.Sprintf("%d states %s, e.g.\n  %s", len(only), what, strings.Join(only[:min(3, len(only))], "\n  ")))
		}
	}
	diff("reached by GMP.tla but not by the spec", tlaStates, goStates)
	diff("reached by the spec but not by GMP.tla", goStates, tlaStates)
	var missing, extra []string
	for e := range goEdges {
		if !tlaEdges[e] {
			missing = append(missing, e[0]+"\n  -> "+e[1])
		}
	}
	for e := range tlaEdges {
		if !goEdges[e] {
			extra = append(extra, e[0]+"\n  -> "+e[1])
		}
	}
	if len(missing)+len(extra) > 0 {
		sort.Strings(missing)
		sort.Strings(extra)
		msg := fmt.Sprintf("edges: %d only in the spec, %d only in GMP.tla", len(missing), len(extra))
		if len(missing) > 0 {
			msg += "\n  spec only: " + missing[0]
		}
		if len(extra) > 0 {
			msg += "\n  GMP.tla only: " + extra[0]
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 {
		return "", errors.New(strings.Join(problems, "\n"))
	}
	return fmt.Sprintf("%v: GMP.tla and spec agree: %d states, %d edges (spec.Explore: %d states, %d transitions, %d pruned by the M bound)",
		b, len(tlaStates), len(tlaEdges), res.Distinct, res.Transitions, res.Pruned), nil
}

// TestKeyMapping checks the two renderings on the initial state, without
// any checker: a mismatch here would make every cross-check fail.
func TestKeyMapping(t *testing.T) {
	b := spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2}
	md, err := spec.NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	const label = `st=[G |-> <<"running", "idle">>, M |-> (0 :> [curg |-> 1, p |-> 0, pc |-> "run", spinning |-> false] @@ 1 :> [curg |-> 0, p |-> -1, pc |-> "idle", spinning |-> false] @@ 2 :> [curg |-> 0, p |-> -1, pc |-> "idle", spinning |-> false]), NMSpinning |-> 0, NPIdle |-> 1, P |-> (0 :> [ring |-> <<>>, runnext |-> 0, status |-> "running", tick |-> 0] @@ 1 :> [ring |-> <<>>, runnext |-> 0, status |-> "idle", tick |-> 0]), Runq |-> <<>>, SpawnLeft |-> 1]`
	vars, err := tlacheck.ParseAssignments(label)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tlaKey(vars, b)
	if err != nil {
		t.Fatal(err)
	}
	if want := specKey(md.Init()); got != want {
		t.Errorf("initial state:\nTLA+ %s\nspec %s", got, want)
	}
	// A different state must not map to the same key.
	other := strings.Replace(label, `SpawnLeft |-> 1`, `SpawnLeft |-> 0`, 1)
	vars, _ = tlacheck.ParseAssignments(other)
	if k, _ := tlaKey(vars, b); k == got {
		t.Error("two different states rendered alike")
	}
}
