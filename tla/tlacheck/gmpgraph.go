package tlacheck

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The cross-check of GMP.tla against the executable spec: for a GMP cfg,
// the state graph tla-checker explores (exported as DOT) must be the graph
// of spec's Model under the same bounds, state for state and labelled edge
// for labelled edge. This is what lets the Go explorer's liveness check on
// the spec's graph stand for the temporal properties of GMP.tla (golive.go).
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
//	st.M[m].scan     ↔ State.M[m].Scan                (set of Ps ↔ bit mask)
//	st.M[m].wake     ↔ State.M[m].Wake                ("none", "pending", "cas")
//	st.M[m].inj      ↔ State.M[m].Inj
//	st.M[m].lockedg  ↔ State.M[m].LockedG
//	st.M[m].nextp    ↔ State.M[m].NextP - 1       (NoP = -1 ↔ 0, none)
//	st.M[m].tainted  ↔ State.M[m].Tainted
//	st.M[m].victim   ↔ State.M[m].Victim - 1          (NoP = -1 ↔ 0, none)
//	st.M[m].oldp     ↔ State.M[m].OldP - 1            (NoP = -1 ↔ 0, none)
//	st.M[m].yield    ↔ State.M[m].Yield
//	st.M[m].snapps   ↔ State.M[m].SnapPs                (0: every P slot)
//	st.Runq          ↔ State.Runq.Gs[:N]
//	st.Pidle         ↔ State.IdlePs[:NPIdle]          (sched.pidle, top last in both)
//	st.NPIdle, st.NMSpinning, st.NeedSpinning, st.SpawnLeft ↔ the fields of the same names
//	st.RetakeP       ↔ State.RetakeP - 1              (NoP = -1 ↔ 0, sysmon holds none)
//	st.GCWaiting, st.StopWait, st.STWLeft, st.NilRead ↔ the fields of the same names
//	st.STWPhase      ↔ State.STW                      ("none", "stopping", "wakep", "grown")
//	st.Procs         ↔ State.Procs                    (NP without Bounds.STW, where State.Procs is 0)
//	st.M[m].wasspinning, .polluntil, .checked, .inherit ↔ State.M[m].WasSpinning, PollUntil, Checked, Inherit
//	st.LastPoll, st.PollUntil ↔ the fields of the same names
//	st.TimerP[g]     ↔ State.TimerP[g] - 1            (NoP = -1 ↔ 0, no timer)
//	st.TimerWhen[g]  ↔ State.TimerWhen[g]
//
// (the poller's and the timers' fields are read from GMP.tla only with
// Bounds.PollBlock; without it they are constant there and zero in the
// spec, and are rendered as zero), and both sides are rendered to the
// same canonical string.
//
// An edge is (from, to, action, agent) with from ≠ to. The action is the
// label tla-checker gives a transition, the name of the GMP.tla action it
// came through (Next's table by pc keeps each step an operator call of its
// own, so that the labels are the actions' own names); on the spec side it is the action kind's name, which GMP.tla
// uses for the same action (TestOneVocabulary).
// The agent is what the fairness conditions are indexed by: the M of a
// schedule-loop or wakep step (FairM: spec's ActGlobal61..ActWakepNoP,
// StartLockedM and StopLockedM among them, and the poller's and timers'
// M steps ActNetpollBlock..ActCheckTimersNoP),
// the P of a Preempt, Retake or RetakeHandoff (FairRetake,
// TimeSlice), -1 for the rest. The spec knows the agent from the action's
// parameters; on the TLA+ side it is read off the transition
// (attributeTLA). Self-loops are left out: the TLA+ module's Terminated
// stutters in the terminal states the spec accepts, and a stutter step
// discharges no fairness condition (<<A>>_st). The spec must have none
// (checked). A spec step whose startm would need an M beyond the bound
// (spec.ErrNoIdleM) is not taken on either side: NM is the thread limit.

// schedStep reports whether k is a step of an M's schedule loop or of its
// wakep (the disjuncts of GMP.tla's SchedStep(m): spec's
// ActGlobal61..ActWakepNoP, and the blocking poller's and the timers' M
// steps ActNetpollBlock..ActCheckTimersNoP).
func schedStep(k spec.ActionKind) bool {
	return k >= spec.ActGlobal61 && k <= spec.ActWakepNoP || k >= spec.ActNetpollBlock && k <= spec.ActCheckTimersNoP
}

// SchedStepKinds lists the kinds GMP.tla's SchedStep(m) must have, one
// disjunct each: the actions FairM is about.
func SchedStepKinds() []spec.ActionKind {
	var out []spec.ActionKind
	for k := spec.ActionKind(0); k <= spec.ActTimerTick; k++ {
		if schedStep(k) {
			out = append(out, k)
		}
	}
	return out
}

// inLoop reports whether an M at pc, at wake stage wake (GMP.tla's names),
// is in its schedule loop or in wakep (GMP.tla's InLoop: every pc but idle,
// run, lockedwait and netpoll, or a wake stage but none), where its
// fairness family is enabled: the negation of spec's MState.excused.
func inLoop(pc, wake string) bool {
	return pc != spec.MIdle.String() && pc != spec.MRun.String() && pc != spec.MLockedWait.String() &&
		pc != spec.MNetpoll.String() || wake != tlaWake[spec.WakeNone]
}

// tlaPhase names the stopper's phases as GMP.tla does (st.STWPhase).
var tlaPhase = [...]string{spec.STWNone: "none", spec.STWStopping: "stopping", spec.STWWakep: "wakep", spec.STWGrown: "grown"}

// tlaWake names the wake stages as GMP.tla does.
var tlaWake = [...]string{spec.WakeNone: "none", spec.WakePending: "pending", spec.WakeCAS: "cas"}

// schedLabels are the TLA+ names of the schedule-loop and wakep steps.
var schedLabels = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range SchedStepKinds() {
		m[k.String()] = true
	}
	return m
}()

const (
	labelPreempt       = "Preempt"
	labelRetake        = "Retake"
	labelRetakeHandoff = "RetakeHandoff"
	labelTerm          = "Terminated"
)

// labelStartLockedM is the one schedule step that changes a second M that
// may be in its loop: the locked M, when it has not parked yet, gets the P
// in its nextp.
var labelStartLockedM = spec.ActStartLockedM.String()

// specLabel is the TLA+ label of a spec action and the agent fairness
// indexes it by.
func specLabel(a spec.Action) (string, int) {
	switch {
	case schedStep(a.Kind):
		return a.Kind.String(), int(a.M)
	case a.Kind == spec.ActPreempt || a.Kind == spec.ActRetake || a.Kind == spec.ActRetakeHandoff:
		return a.Kind.String(), int(a.P)
	}
	return a.Kind.String(), -1
}

// BoundsFromCfg reads the GMP constants of a cfg into spec.Bounds. The Bug
// constant must name a spec.Bug (GMP.tla uses the same names).
func BoundsFromCfg(c Cfg) (spec.Bounds, error) {
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
	b.Netpoll, err = boolean("NetpollOn")
	errs = append(errs, err)
	b.InjectList, err = boolean("InjectList")
	errs = append(errs, err)
	b.SyscallBlock, err = boolean("SyscallBlock")
	errs = append(errs, err)
	b.LockOSThread, err = boolean("LockOSThreadOn")
	errs = append(errs, err)
	b.NoPark, err = boolean("NoPark")
	errs = append(errs, err)
	b.Goyield, err = boolean("GoyieldOn")
	errs = append(errs, err)
	b.STW, err = boolean("STW")
	errs = append(errs, err)
	b.ProcResize, err = boolean("ProcResize")
	errs = append(errs, err)
	b.PollBlock, err = boolean("PollBlock")
	errs = append(errs, err)
	n, err := num("NTimers")
	errs = append(errs, err)
	b.Timers = n
	b.Bug, err = spec.ParseBug(strings.Trim(c.Constants["Bug"], `"`))
	errs = append(errs, err)
	switch v := c.Constants["GoVersion"]; v {
	case "126":
		b.Go = spec.Go126
	case "122":
		b.Go = spec.Go122
	case "121":
		b.Go = spec.Go121
	case "119":
		b.Go = spec.Go119
	case "117":
		b.Go = spec.Go117dev
	case "115":
		b.Go = spec.Go115
	case "113":
		b.Go = spec.Go113
	case "111":
		b.Go = spec.Go111
	case "110":
		b.Go = spec.Go110dev
	case "105":
		b.Go = spec.Go15dev
	case "104":
		b.Go = spec.Go14
	default:
		errs = append(errs, fmt.Errorf("%s: constant GoVersion = %q, want one of %s", c.Name, v, strings.Join(GoVersionValues, ", ")))
	}
	if err := errors.Join(errs...); err != nil {
		return spec.Bounds{}, err
	}
	return b, b.Validate()
}

// GoVersionValues are the values of GMP.tla's GoVersion, each a release
// of spec.GoVersion: 126 Go126, 122 Go122, 121 Go121, 119 Go119, 117
// Go117dev, 115 Go115, 113 Go113, 111 Go111, 110 Go110dev, 105 Go15dev,
// 104 Go14.
var GoVersionValues = []string{"126", "122", "121", "119", "117", "115", "113", "111", "110", "105", "104"}

// SpecKey renders a spec.State canonically.
func SpecKey(s spec.State) string {
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
		var scan []int
		for p := 0; p < s.NumPs(); p++ {
			if ms.Scan&(1<<p) != 0 {
				scan = append(scan, p)
			}
		}
		if ms.Scan>>s.NumPs() != 0 {
			scan = append(scan, -1) // a bit past the Ps: no TLA+ state has it
		}
		wake := "?"
		if int(ms.Wake) < len(tlaWake) {
			wake = tlaWake[ms.Wake]
		}
		fmt.Fprintf(&b, "|M%d %s %d %d %v %v %s %d %d %d %v %v %d %v %v %d %d %v %d", m, ms.PC, ms.P, ms.CurG, ms.Spinning, scan, wake, ms.Inj,
			ms.LockedG, int(ms.NextP)-1, ms.Tainted, ms.WasSpinning, ms.PollUntil, ms.Checked, ms.Inherit, int(ms.Victim)-1, int(ms.OldP)-1, ms.Yield, ms.SnapPs)
	}
	fmt.Fprintf(&b, "|Runq %v|%d %d %v %d %d", s.Runq.Gs[:s.Runq.N], s.NPIdle, s.NMSpinning, s.NeedSpinning, s.SpawnLeft, int(s.RetakeP)-1)
	n := min(max(int(s.NPIdle), 0), len(s.IdlePs))
	pidle := make([]int, n)
	for i := range pidle {
		pidle[i] = int(s.IdlePs[i])
	}
	for _, p := range s.IdlePs[n:] {
		if p != 0 {
			pidle = append(pidle, -1) // an entry past npidle: no TLA+ state has it
			break
		}
	}
	fmt.Fprintf(&b, "|Pidle %v", pidle)
	procs := int(s.Procs)
	if procs == 0 {
		procs = s.NumPs() // no Bounds.STW: gomaxprocs is every P
	}
	phase := "?"
	if int(s.STW) < len(tlaPhase) {
		phase = tlaPhase[s.STW]
	}
	fmt.Fprintf(&b, "|STW %v %d %s %d %d %v", s.GCWaiting, s.StopWait, phase, s.STWLeft, procs, s.NilRead)
	fmt.Fprintf(&b, "|Poll %v %d", s.LastPoll, s.PollUntil)
	for g := 1; g <= s.NumGs(); g++ {
		fmt.Fprintf(&b, " %d:%d", int(s.TimerP[g])-1, s.TimerWhen[g])
	}
	return b.String()
}

// tlaM is one M of a GMP.tla state, for attributing transitions.
type tlaM struct {
	pc       string
	p, curg  int64
	spinning bool
	scan     string
	wake     string
	nextp    int64
	// findRunnable's locals (Bounds.PollBlock; zero otherwise).
	wasSpinning, checked, inherit bool
	pollUntil                     int64
}

// TLAKey renders a GMP.tla state (its variable st) in SpecKey's format.
func TLAKey(vars map[string]Value, b spec.Bounds) (string, error) {
	k, _, err := tlaState(vars, b)
	return k, err
}

// tlaView is what attributing a transition reads of a GMP.tla state: its
// Ms, and the P sysmon holds between Retake and RetakeHandoff (NoP: none).
type tlaView struct {
	ms      []tlaM
	retakeP int64
}

func tlaState(vars map[string]Value, b spec.Bounds) (string, tlaView, error) {
	st, ok := vars["st"]
	if !ok || len(vars) != 1 {
		return "", tlaView{}, fmt.Errorf("want exactly one variable st, got %d variables", len(vars))
	}
	var out strings.Builder
	var first error
	field := func(v Value, name string) Value {
		f, err := v.Field(name)
		if err != nil && first == nil {
			first = err
		}
		return f
	}
	index := func(v Value, i int) Value {
		e, err := v.Index(int64(i))
		if err != nil && first == nil {
			first = err
		}
		return e
	}
	// scan renders a set of Ps as SpecKey renders the bit mask.
	scan := func(v Value) string {
		if v.Kind != VSet && first == nil {
			first = fmt.Errorf("scan %s is not a set", v)
		}
		ps := make([]int, len(v.Elems))
		for i, e := range v.Elems {
			ps[i] = int(e.Int)
			if e.Kind != VInt || e.Int < 0 || int(e.Int) >= b.Ps {
				ps[i] = -1
			}
		}
		sort.Ints(ps)
		if len(ps) > 0 && ps[0] == -1 {
			ps = append(ps[1:], -1)
		}
		return fmt.Sprint(ps)
	}
	gids := func(v Value) string {
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = strconv.FormatInt(e.Int, 10)
		}
		return "[" + strings.Join(parts, " ") + "]"
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
	ms := make([]tlaM, b.Ms)
	for m := 0; m < b.Ms; m++ {
		mv := index(M, m)
		ms[m] = tlaM{pc: field(mv, "pc").Str, p: field(mv, "p").Int, curg: field(mv, "curg").Int,
			spinning: field(mv, "spinning").Str == "TRUE", scan: scan(field(mv, "scan")), wake: field(mv, "wake").Str,
			nextp: field(mv, "nextp").Int}
		if b.PollBlock {
			ms[m].wasSpinning, ms[m].pollUntil = field(mv, "wasspinning").Str == "TRUE", field(mv, "polluntil").Int
			ms[m].checked, ms[m].inherit = field(mv, "checked").Str == "TRUE", field(mv, "inherit").Str == "TRUE"
		}
		fmt.Fprintf(&out, "|M%d %s %d %d %v %s %s %d %d %d %v %v %d %v %v %d %d %v %d", m, ms[m].pc, ms[m].p, ms[m].curg, ms[m].spinning, ms[m].scan, ms[m].wake,
			field(mv, "inj").Int, field(mv, "lockedg").Int, field(mv, "nextp").Int, field(mv, "tainted").Str == "TRUE",
			ms[m].wasSpinning, ms[m].pollUntil, ms[m].checked, ms[m].inherit, field(mv, "victim").Int, field(mv, "oldp").Int, field(mv, "yield").Str == "TRUE", field(mv, "snapps").Int)
	}
	retakeP := field(st, "RetakeP").Int
	fmt.Fprintf(&out, "|Runq %s|%d %d %v %d %d", gids(field(st, "Runq")), field(st, "NPIdle").Int,
		field(st, "NMSpinning").Int, field(st, "NeedSpinning").Str == "TRUE", field(st, "SpawnLeft").Int, retakeP)
	// sched.pidle, a sequence (top last): a tuple, or a function on 1..n.
	pidle := field(st, "Pidle")
	if pidle.Kind != VTuple && pidle.Kind != VFunc && first == nil {
		first = fmt.Errorf("field Pidle %s is not a sequence", pidle)
	}
	ps := make([]int, pidle.Len())
	for i := range ps {
		e := index(pidle, i+1)
		ps[i] = int(e.Int)
		if e.Kind != VInt || e.Int < 0 || int(e.Int) >= b.Ps {
			ps[i] = -2 // not a P: no spec state has it
		}
	}
	fmt.Fprintf(&out, "|Pidle %v", ps)
	fmt.Fprintf(&out, "|STW %v %d %s %d %d %v", field(st, "GCWaiting").Str == "TRUE", field(st, "StopWait").Int,
		field(st, "STWPhase").Str, field(st, "STWLeft").Int, field(st, "Procs").Int, field(st, "NilRead").Str == "TRUE")
	if b.PollBlock {
		fmt.Fprintf(&out, "|Poll %v %d", field(st, "LastPoll").Str == "TRUE", field(st, "PollUntil").Int)
		tp, tw := field(st, "TimerP"), field(st, "TimerWhen")
		for g := 1; g <= b.Gs; g++ {
			fmt.Fprintf(&out, " %d:%d", index(tp, g).Int, index(tw, g).Int)
		}
	} else {
		out.WriteString("|Poll false 0")
		for g := 1; g <= b.Gs; g++ {
			out.WriteString(" -1:0")
		}
	}
	return out.String(), tlaView{ms, retakeP}, first
}

// attributeTLA finds the agent of a GMP.tla transition from its two states:
//   - a schedule-loop or wakep step of M m: the one M in its schedule loop
//     or in wakep (InLoop) whose record changes (WakepStartM starts another
//     M, but that one was idle); for StartLockedM, the one M that leaves pc
//     startlocked (the locked M it hands its P to may be in its loop too,
//     at the top of schedule, and then gains nextp);
//   - Preempt(p): the M whose G is preempted goes from run to sched; p is
//     its P;
//   - Retake(p): the M in a syscall loses its P p.
//
// A transition that fits no agent, or more than one, is an error: the
// attribution (and with it the cross-check) would be unsound.
func attributeTLA(label string, from, to []tlaM) (int, error) {
	var cands []int
	for m := range from {
		a, b := from[m], to[m]
		switch {
		case label == labelStartLockedM:
			if a.pc == spec.MStartLocked.String() && b.pc != a.pc {
				cands = append(cands, m)
			}
		case schedLabels[label]:
			if inLoop(a.pc, a.wake) && a != b {
				cands = append(cands, m)
			}
		case label == labelPreempt:
			if a.pc == "run" && b.pc == "sched" {
				cands = append(cands, int(a.p))
			}
		case label == labelRetake:
			if a.pc == "run" && a.p >= 0 && b.p < 0 {
				cands = append(cands, int(a.p))
			}
		default:
			return -1, nil
		}
	}
	if len(cands) != 1 {
		return -1, fmt.Errorf("%s transition attributable to %d agents %v, want exactly one", label, len(cands), cands)
	}
	return cands[0], nil
}

// edge is one labelled transition between canonical states.
type edge struct {
	from, to string
	action   string
	agent    int
}

func (e edge) String() string {
	who := ""
	switch {
	case schedLabels[e.action]:
		who = fmt.Sprintf("(m%d)", e.agent)
	case e.action == labelPreempt || e.action == labelRetake || e.action == labelRetakeHandoff:
		who = fmt.Sprintf("(p%d)", e.agent)
	}
	return fmt.Sprintf("%s%s\n    %s\n -> %s", e.action, who, e.from, e.to)
}

// SpecGraph is the spec model's reachable graph, explored through its
// exported API, with what the fairness comparison needs.
type SpecGraph struct {
	States map[string]bool
	Edges  map[edge]bool
	// SelfLoops counts spec steps that leave the state unchanged (none
	// expected: they would discharge fairness in the spec but not in TLA+).
	SelfLoops int
	// PrunedOnly counts (state, M) pairs where the M is in its schedule
	// loop but every step it has needs an M beyond the bound, and (state,
	// P) pairs where RetakeHandoff is enabled but pruned. In such states TLA+'s
	// ENABLED <<SchedStep(m)>>_st (or Retake) is false while the spec's
	// fairness family counts as enabled; GMP.tla's fairness is written the
	// spec's way (docs/tla.md), so these do not change a verdict, they are
	// reported.
	PrunedOnly int
}

// Labels is the set of action labels on g's edges: the names the labelled
// comparison checks.
func (g *SpecGraph) Labels() map[string]bool {
	out := map[string]bool{}
	for e := range g.Edges {
		out[e.action] = true
	}
	return out
}

// ExploreSpecGraph explores spec's Model under b breadth-first.
func ExploreSpecGraph(ctx context.Context, b spec.Bounds) (*SpecGraph, error) {
	md, err := spec.NewModel(b)
	if err != nil {
		return nil, err
	}
	init := md.Init()
	g := &SpecGraph{States: map[string]bool{SpecKey(init): true}, Edges: map[edge]bool{}}
	queue := []spec.State{init}
	for len(queue) > 0 {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		s := queue[0]
		queue = queue[1:]
		from := SpecKey(s)
		schedOK := map[int]bool{}
		for _, a := range md.Enabled(s) {
			label, agent := specLabel(a)
			ns, err := md.Step(s, a)
			if errors.Is(err, spec.ErrNoIdleM) {
				if a.Kind == spec.ActRetakeHandoff {
					g.PrunedOnly++
				}
				continue // pruned by the M bound, as in spec.Explore
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v: %v", from, a, err)
			}
			to := SpecKey(ns)
			if to == from {
				g.SelfLoops++
				continue
			}
			if schedStep(a.Kind) {
				schedOK[agent] = true
			}
			g.Edges[edge{from, to, label, agent}] = true
			if !g.States[to] {
				g.States[to] = true
				queue = append(queue, ns)
			}
		}
		for m := 0; m < s.NumMs(); m++ {
			if inLoop(s.M[m].PC.String(), tlaWake[s.M[m].Wake]) && !schedOK[m] {
				g.PrunedOnly++
			}
		}
	}
	return g, nil
}

// Comparison summarises an equal pair of graphs.
type Comparison struct {
	Bounds spec.Bounds
	States int // distinct states (equal on both sides)
	Edges  int // distinct labelled edges (equal on both sides)
	// Unlabelled: the edges were compared as (from, to) pairs, without
	// action or agent (TLC's graph, CompareTLCGraph).
	Unlabelled bool
	Explored   int   // spec.Explore's distinct count (equal too)
	Trans      int64 // spec.Explore's (state, action) pairs
	Pruned     int64 // of which pruned by the M bound
	PrunedOnly int   // see SpecGraph.PrunedOnly
}

func (c Comparison) String() string {
	kind := "labelled edges"
	if c.Unlabelled {
		kind = "edges (unlabelled)"
	}
	s := fmt.Sprintf("GMP.tla and spec agree: %d states, %d %s (spec.Explore: %d states, %d transitions, %d pruned by the M bound)",
		c.States, c.Edges, kind, c.Explored, c.Trans, c.Pruned)
	if c.PrunedOnly > 0 {
		s += fmt.Sprintf("; %d (state, M/P) pairs whose fair steps are all pruned", c.PrunedOnly)
	}
	return s
}

// ErrGraphsDiffer wraps every difference CompareGMPGraph finds.
var ErrGraphsDiffer = errors.New("GMP.tla's state graph differs from the spec's")

// CompareGMPGraph compares the DOT graph tla-checker exported for a GMP cfg
// with spec's graph under b, and with spec.Explore's distinct count. A
// difference is an error wrapping ErrGraphsDiffer; other errors mean the
// comparison could not be made.
func CompareGMPGraph(ctx context.Context, dotPath string, b spec.Bounds) (Comparison, error) {
	g, err := ReadDOT(dotPath)
	if err != nil {
		return Comparison{}, fmt.Errorf("reading tla-checker's state graph: %v", err)
	}
	return compareGraph(ctx, g, b)
}

func compareGraph(ctx context.Context, g *Graph, b spec.Bounds) (Comparison, error) {
	tlaStates := map[string]bool{}
	keys := make([]string, len(g.States))
	views := make([]tlaView, len(g.States))
	for i, vars := range g.States {
		k, v, err := tlaState(vars, b)
		if err != nil {
			return Comparison{}, fmt.Errorf("state s%d: %v", i, err)
		}
		keys[i], views[i] = k, v
		tlaStates[k] = true
	}
	var problems []string
	if len(tlaStates) != len(g.States) {
		problems = append(problems, fmt.Sprintf("the DOT graph maps %d states to %d distinct spec states", len(g.States), len(tlaStates)))
	}
	tlaEdges := map[edge]bool{}
	for _, e := range g.Edges {
		if keys[e.From] == keys[e.To] {
			if e.Label != labelTerm {
				problems = append(problems, fmt.Sprintf("GMP.tla has a %s self-loop (only Terminated may stutter):\n  %s", e.Label, keys[e.From]))
			}
			continue
		}
		agent, err := attributeTLA(e.Label, views[e.From].ms, views[e.To].ms)
		if e.Label == labelRetakeHandoff {
			// sysmon's handoffp changes no M of its own: its agent is
			// the P it held.
			agent, err = int(views[e.From].retakeP), nil
			if agent < 0 {
				err = fmt.Errorf("a RetakeHandoff from a state where sysmon holds no P")
			}
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("s%d -> s%d: %v", e.From, e.To, err))
			continue
		}
		tlaEdges[edge{keys[e.From], keys[e.To], e.Label, agent}] = true
	}
	return compareWithSpec(ctx, b, tlaStates, tlaEdges, true, problems)
}

// compareWithSpec compares a TLA+ checker's states and edges with spec's
// graph under b and with spec.Explore's distinct count, adding to the
// problems already found on the TLA+ side. Unlabelled, the spec's edges
// are compared as (from, to) pairs, the form unlabelledEdge gives.
func compareWithSpec(ctx context.Context, b spec.Bounds, tlaStates map[string]bool, tlaEdges map[edge]bool, labelled bool, problems []string) (Comparison, error) {
	sg, err := ExploreSpecGraph(ctx, b)
	if err != nil {
		return Comparison{}, err
	}
	res, err := spec.Explore(ctx, b, spec.Options{})
	if err != nil {
		return Comparison{}, err
	}
	if ctx.Err() != nil {
		return Comparison{}, ctx.Err()
	}
	if res.Distinct != len(sg.States) {
		problems = append(problems, fmt.Sprintf("spec.Explore found %d distinct states, the exported Model API %d", res.Distinct, len(sg.States)))
	}
	if sg.SelfLoops > 0 {
		problems = append(problems, fmt.Sprintf("the spec has %d steps that leave the state unchanged", sg.SelfLoops))
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
	diff("reached by GMP.tla but not by the spec", tlaStates, sg.States)
	diff("reached by the spec but not by GMP.tla", sg.States, tlaStates)
	specEdges := sg.Edges
	if !labelled {
		specEdges = make(map[edge]bool, len(sg.Edges))
		for e := range sg.Edges {
			specEdges[unlabelledEdge(e.from, e.to)] = true
		}
	}
	var missing, extra []string
	for e := range specEdges {
		if !tlaEdges[e] {
			missing = append(missing, e.String())
		}
	}
	for e := range tlaEdges {
		if !specEdges[e] {
			extra = append(extra, e.String())
		}
	}
	if len(missing)+len(extra) > 0 {
		sort.Strings(missing)
		sort.Strings(extra)
		kind := "labelled edges"
		if !labelled {
			kind = "edges"
		}
		msg := fmt.Sprintf("%s: %d only in the spec, %d only in GMP.tla", kind, len(missing), len(extra))
		if len(missing) > 0 {
			msg += "\n  spec only: " + missing[0]
		}
		if len(extra) > 0 {
			msg += "\n  GMP.tla only: " + extra[0]
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 {
		return Comparison{}, fmt.Errorf("%w: %s", ErrGraphsDiffer, strings.Join(problems, "\n"))
	}
	return Comparison{Bounds: b, States: len(tlaStates), Edges: len(tlaEdges), Unlabelled: !labelled, Explored: res.Distinct,
		Trans: res.Transitions, Pruned: res.Pruned, PrunedOnly: sg.PrunedOnly}, nil
}
