package viz

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// TLATrace is a counterexample as a TLA+ checker printed it, split into
// its states.
type TLATrace struct {
	States []map[string]tlacheck.Value
	// Loop is, for a lasso, the index of the state the behaviour returns
	// to after the last one; -1 for none.
	Loop int
}

var (
	tlaStateLine = regexp.MustCompile(`^State (\d+)`)
	tlaBackTo    = regexp.MustCompile(`^Back to state (\d+)`)
	tlaVarLine   = regexp.MustCompile(`^(?:/\\ )?[A-Za-z_][A-Za-z0-9_]* = `)
)

// ParseTLATrace splits a trace printed by tla-checker ("State N" blocks of
// "var = value" lines, "--- cycle ---" before a lasso's cycle) or by TLC
// ("State N: <Action>" blocks of "/\ var = value" conjuncts whose values
// may continue on the next lines, "Back to state N" closing a lasso).
func ParseTLATrace(text string) (TLATrace, error) {
	tr := TLATrace{Loop: -1}
	var cur []string
	flush := func() error {
		if cur == nil {
			return nil
		}
		if len(cur) == 0 {
			cur = nil
			return nil
		}
		s, err := tlacheck.ParseAssignments(strings.Join(cur, "\n"))
		if err != nil {
			return fmt.Errorf("state %d: %w", len(tr.States)+1, err)
		}
		tr.States = append(tr.States, s)
		cur = nil
		return nil
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case tlaStateLine.MatchString(t):
			if err := flush(); err != nil {
				return tr, err
			}
			cur = []string{}
		case strings.HasPrefix(t, "--- cycle"):
			if err := flush(); err != nil {
				return tr, err
			}
			tr.Loop = len(tr.States)
		case tlaBackTo.MatchString(t):
			if err := flush(); err != nil {
				return tr, err
			}
			n, _ := strconv.Atoi(tlaBackTo.FindStringSubmatch(t)[1])
			tr.Loop = n - 1
			return tr, tr.check()
		case cur == nil:
		case t == "":
			if err := flush(); err != nil {
				return tr, err
			}
		case tlaVarLine.MatchString(t):
			cur = append(cur, strings.TrimPrefix(t, `/\ `))
		case len(cur) > 0:
			cur[len(cur)-1] += " " + t // a value continued
		}
	}
	if err := flush(); err != nil {
		return tr, err
	}
	return tr, tr.check()
}

func (tr *TLATrace) check() error {
	if len(tr.States) == 0 {
		return errors.New("viz: the trace has no states")
	}
	if tr.Loop >= len(tr.States) {
		tr.Loop = -1
	}
	return nil
}

// names maps the spec's printed names of a status back to the value.
func names[T interface {
	~uint8
	String() string
}](limit int) map[string]T {
	out := map[string]T{}
	for i := 0; i < limit; i++ {
		v := T(i)
		out[v.String()] = v
	}
	return out
}

var (
	gStatusByName = names[spec.GStatus](16)
	pStatusByName = names[spec.PStatus](16)
	mpcByName     = names[spec.MPC](32)
)

// SpecStateFromTLA reads a GMP.tla state (its one variable st) into a spec
// state of the model md, field by field: the Gs' statuses, each P's status,
// schedtick residue, runnext and ring, each M's pc, P, curg, spinning flag
// and scan, the global queue, sched.pidle (IdlePs, top last) and the
// counters. What GMP.tla does not have (the spec's wakep stages) stays
// zero.
func SpecStateFromTLA(md spec.Model, vars map[string]tlacheck.Value) (spec.State, error) {
	s := md.Init()
	b := md.Bounds()
	st, ok := vars["st"]
	if !ok {
		return s, errors.New("viz: not a GMP.tla state (no variable st)")
	}
	var first error
	fail := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	field := func(v tlacheck.Value, name string) tlacheck.Value {
		f, err := v.Field(name)
		fail(err)
		return f
	}
	index := func(v tlacheck.Value, i int) tlacheck.Value {
		e, err := v.Index(int64(i))
		fail(err)
		return e
	}
	gid := func(v tlacheck.Value) spec.GID {
		if v.Kind != tlacheck.VInt || v.Int < 0 || v.Int > int64(s.NumGs()) {
			fail(fmt.Errorf("viz: %s is not a G", v))
			return spec.NoG
		}
		return spec.GID(v.Int)
	}
	boolean := func(v tlacheck.Value) bool { return v.Str == "TRUE" }
	G := field(st, "G")
	for g := 1; g <= s.NumGs(); g++ {
		name := index(G, g).Str
		x, ok := gStatusByName[name]
		if !ok {
			fail(fmt.Errorf("viz: G %d status %q", g, name))
		}
		s.G[g] = x
	}
	P := field(st, "P")
	for p := 0; p < s.NumPs(); p++ {
		pv := index(P, p)
		ps := spec.PState{RunNext: gid(field(pv, "runnext")), SchedTick: uint8(field(pv, "tick").Int)}
		status := field(pv, "status").Str
		x, ok := pStatusByName[status]
		if !ok {
			fail(fmt.Errorf("viz: P %d status %q", p, status))
		}
		ps.Status = x
		ring := field(pv, "ring")
		if len(ring.Elems) > spec.MaxCap {
			fail(fmt.Errorf("viz: P %d ring of %d", p, len(ring.Elems)))
		} else {
			for i, e := range ring.Elems {
				ps.Ring[i] = gid(e)
			}
			ps.N = uint8(len(ring.Elems))
		}
		s.P[p] = ps
	}
	M := field(st, "M")
	for m := 0; m < s.NumMs(); m++ {
		mv := index(M, m)
		pc := field(mv, "pc").Str
		x, ok := mpcByName[pc]
		if !ok {
			fail(fmt.Errorf("viz: M %d pc %q", m, pc))
		}
		ms := spec.MState{PC: x, P: int8(field(mv, "p").Int), CurG: gid(field(mv, "curg")), Spinning: boolean(field(mv, "spinning"))}
		for _, e := range field(mv, "scan").Elems {
			if e.Kind == tlacheck.VInt && e.Int >= 0 && e.Int < int64(b.Ps) {
				ms.Scan |= 1 << e.Int
			}
		}
		s.M[m] = ms
	}
	runq := field(st, "Runq")
	if len(runq.Elems) > spec.MaxGs {
		fail(fmt.Errorf("viz: global queue of %d", len(runq.Elems)))
	} else {
		for i, e := range runq.Elems {
			s.Runq.Gs[i] = gid(e)
		}
		s.Runq.N = uint8(len(runq.Elems))
	}
	s.NPIdle = int8(field(st, "NPIdle").Int)
	// sched.pidle, top last on both sides; the slots past it stay zero.
	s.IdlePs = [spec.MaxPs]int8{}
	pidle := field(st, "Pidle")
	if pidle.Len() > spec.MaxPs {
		fail(fmt.Errorf("viz: sched.pidle of %d", pidle.Len()))
	} else {
		for i := range pidle.Len() {
			e := index(pidle, i+1)
			if e.Kind != tlacheck.VInt || e.Int < 0 || e.Int >= int64(b.Ps) {
				fail(fmt.Errorf("viz: %s on sched.pidle is not a P", e))
				continue
			}
			s.IdlePs[i] = int8(e.Int)
		}
	}
	s.NMSpinning = int8(field(st, "NMSpinning").Int)
	s.NeedSpinning = boolean(field(st, "NeedSpinning"))
	s.SpawnLeft = int8(field(st, "SpawnLeft").Int)
	return s, first
}

// TLAViolation turns a GMP.tla counterexample into a spec.Violation that
// Write draws: each state read by SpecStateFromTLA, each step named by the
// spec's own successor function (the enabled action whose successor has
// the same variables as GMP.tla's next state; steps the spec does not
// take are listed in unnamed, by index, with a placeholder action that
// marks no M or P, so that the page still shows the states: give them a
// label with Page.StepLabels). kind and detail say what the checker
// reported.
func TLAViolation(md spec.Model, tr TLATrace, kind spec.ViolationKind, detail string) (v *spec.Violation, unnamed []int, err error) {
	states := make([]spec.State, len(tr.States))
	for i, vars := range tr.States {
		if states[i], err = SpecStateFromTLA(md, vars); err != nil {
			return nil, nil, fmt.Errorf("state %d: %w", i+1, err)
		}
	}
	t := spec.Trace{Init: states[0], Loop: -1}
	for i := 1; i < len(states); i++ {
		act, ok := stepBetween(md, states[i-1], states[i])
		if !ok {
			unnamed = append(unnamed, i)
		}
		t.Steps = append(t.Steps, spec.TraceStep{Action: act, State: states[i]})
	}
	if tr.Loop >= 0 {
		// The last state steps back to state Loop: add that step, as the
		// explorer's lassos end in a state equal to the one the cycle
		// returns to.
		back := states[tr.Loop]
		act, ok := stepBetween(md, states[len(states)-1], back)
		if !ok {
			unnamed = append(unnamed, len(states))
		}
		t.Steps = append(t.Steps, spec.TraceStep{Action: act, State: back})
		t.Loop = tr.Loop
	}
	return &spec.Violation{Kind: kind, Detail: detail, Trace: t}, unnamed, nil
}

// stepBetween finds the enabled action of from whose successor is to (the
// variables GMP.tla has: tlacheck.SpecKey).
func stepBetween(md spec.Model, from, to spec.State) (spec.Action, bool) {
	want := tlacheck.SpecKey(to)
	for _, a := range md.Enabled(from) {
		next, err := md.Step(from, a)
		if err == nil && tlacheck.SpecKey(next) == want {
			return a, true
		}
	}
	// A placeholder: an external action (no acting M) with no P named.
	return spec.Action{Kind: spec.ActInjectGList, M: -1, P: spec.NoP}, false
}
