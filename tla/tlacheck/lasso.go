package tlacheck

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TLC's counterexamples in the spec's terms.
//
// TLC prints a temporal property's counterexample as a lasso: states
// 1..n, then "Back to state k" (the cycle k..n, k) or a last "State n+1:
// Stuttering". ReplayLasso reads such a trace of a GMP cfg back into the
// executable spec, step by step (each step must be a transition of the
// spec, NM the thread limit), so that TLC's counterexample can be judged
// with the spec's own notions: which G starves on the cycle, and whether
// the cycle is fair as spec's liveness check defines fairness (LassoFair).
// That TLC and the Go explorer agree on a verdict is then shown on TLC's
// own behaviour, not only on the count of states.

var (
	tlcBackTo     = regexp.MustCompile(`(?m)^Back to state (\d+)`)
	tlcStuttering = regexp.MustCompile(`(?m)^State \d+: Stuttering`)
)

// Lasso is a counterexample replayed in the spec: Trace (Loop: the index
// of the first step of the cycle; Stutter: it ends stuttering), and for
// each step every spec action that takes the spec from its state to the
// next (one TLA+ step can satisfy several actions, and discharges the
// fairness of each).
type Lasso struct {
	Trace spec.Trace
	Acts  [][]spec.Action
}

// ReplayLasso replays a TLC counterexample of a temporal property (a
// Result.Trace) in the spec under b.
func ReplayLasso(trace string, b spec.Bounds) (Lasso, error) {
	md, err := spec.NewModel(b)
	if err != nil {
		return Lasso{}, err
	}
	back := -1
	if m := tlcBackTo.FindStringSubmatch(trace); m != nil {
		back, _ = strconv.Atoi(m[1])
	}
	stutter := false
	if loc := tlcStuttering.FindStringIndex(trace); loc != nil {
		stutter = true
		trace = trace[:loc[0]]
	}
	if (back < 0) == !stutter {
		return Lasso{}, errors.New("not a lasso: no \"Back to state\" line and no final stuttering state (or both)")
	}
	vars, err := traceStates(trace)
	if err != nil {
		return Lasso{}, err
	}
	if len(vars) == 0 {
		return Lasso{}, errors.New("no states in the trace")
	}
	if back > len(vars) {
		return Lasso{}, fmt.Errorf("back to state %d of %d", back, len(vars))
	}
	keys := make([]string, len(vars))
	for i, v := range vars {
		if keys[i], err = TLAKey(v, b); err != nil {
			return Lasso{}, fmt.Errorf("state %d: %v", i+1, err)
		}
	}
	cur := md.Init()
	if SpecKey(cur) != keys[0] {
		return Lasso{}, fmt.Errorf("state 1 is not the spec's initial state:\nTLC  %s\nspec %s", keys[0], SpecKey(cur))
	}
	l := Lasso{Trace: spec.Trace{Init: cur, Loop: -1, Stutter: stutter}}
	next := keys[1:]
	if back > 0 {
		next = append(next, keys[back-1]) // the step that closes the cycle
		l.Trace.Loop = back - 1
	}
	for i, want := range next {
		var ns spec.State
		var acts []spec.Action
		for _, a := range md.Enabled(cur) {
			s, err := md.Step(cur, a)
			if err != nil {
				continue // pruned by the M bound (ErrNoIdleM), as in spec.Explore
			}
			if SpecKey(s) == want {
				ns, acts = s, append(acts, a)
			}
		}
		if acts == nil {
			return Lasso{}, fmt.Errorf("step %d (TLC state %d to the next) is no transition of the spec:\nfrom %s\nto   %s", i+1, i+1, SpecKey(cur), want)
		}
		l.Trace.Steps = append(l.Trace.Steps, spec.TraceStep{Action: acts[0], State: ns})
		l.Acts = append(l.Acts, acts)
		cur = ns
	}
	return l, nil
}

// Cycle returns the states a lasso repeats forever: the states of its
// cycle, or the last state when it ends stuttering.
func (l Lasso) Cycle() []spec.State {
	t := l.Trace
	if t.Stutter {
		if len(t.Steps) == 0 {
			return []spec.State{t.Init}
		}
		return []spec.State{t.Steps[len(t.Steps)-1].State}
	}
	var out []spec.State
	for _, st := range t.Steps[t.Loop:] {
		out = append(out, st.State)
	}
	return out
}

// InLocalQueues lists the Gs that are in some P's local run queue (runnext
// or ring) in every state of the lasso's cycle: the Gs it starves in the
// sense of liveness (c), GMP.tla's InLocalQueue.
func (l Lasso) InLocalQueues() []spec.GID {
	cycle := l.Cycle()
	var out []spec.GID
	for g := 1; g <= cycle[0].NumGs(); g++ {
		all := true
		for _, s := range cycle {
			if !inLocalQueue(&s, spec.GID(g)) {
				all = false
				break
			}
		}
		if all {
			out = append(out, spec.GID(g))
		}
	}
	return out
}

func inLocalQueue(s *spec.State, g spec.GID) bool {
	for p := 0; p < s.NumPs(); p++ {
		ps := &s.P[p]
		if ps.RunNext == g {
			return true
		}
		for i := 0; i < int(ps.N); i++ {
			if ps.Ring[i] == g {
				return true
			}
		}
	}
	return false
}

// LassoFair checks that a lasso is a fair behaviour as spec's liveness
// check and GMP.tla's Fairness (and, with slice, TimeSlice) define it:
// every M is out of its schedule loop in some state of the cycle or takes
// a schedule-loop step on it (FairM); every P's Retake is disabled in some
// state of the cycle or taken on it (FairRetake); the clock's TimerTick is
// disabled in some state of the cycle or taken on it (FairTick, trivial
// without timers); with slice, every P is
// idle in some state of the cycle, or is preempted or starts a fresh time
// slice on it. A fresh slice is read off the P's schedtick, which changes
// only then: with SchedTick = 1 it never changes, and LassoFair cannot
// tell, so it refuses (an error, not a verdict). A stuttering lasso takes
// no step: every family must be disabled in its last state. It returns nil
// when the lasso is fair, else which family it is unfair to.
func LassoFair(l Lasso, b spec.Bounds, slice bool) error {
	if slice && b.SchedTick < 2 {
		return errors.New("SchedTick < 2: a fresh time slice leaves no trace in schedtick")
	}
	md, err := spec.NewModel(b)
	if err != nil {
		return err
	}
	cycle := l.Cycle()
	var steps []spec.TraceStep
	var acts [][]spec.Action
	if !l.Trace.Stutter {
		steps, acts = l.Trace.Steps[l.Trace.Loop:], l.Acts[l.Trace.Loop:]
	}
	var problems []string
	for m := 0; m < cycle[0].NumMs(); m++ {
		ok := false
		for _, s := range cycle {
			if !inLoop(s.M[m].PC.String(), tlaWake[s.M[m].Wake]) {
				ok = true
			}
		}
		for _, as := range acts {
			for _, a := range as {
				if schedStep(a.Kind) && int(a.M) == m {
					ok = true
				}
			}
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("m%d stays in its schedule loop and takes no step of it", m))
		}
	}
	tickOff, ticked := false, false
	for _, s := range cycle {
		on := false
		for _, a := range md.Enabled(s) {
			on = on || a.Kind == spec.ActTimerTick
		}
		tickOff = tickOff || !on
	}
	for _, as := range acts {
		for _, a := range as {
			ticked = ticked || a.Kind == spec.ActTimerTick
		}
	}
	if !tickOff && !ticked {
		problems = append(problems, "the clock's TimerTick stays enabled and is not taken")
	}
	for p := 0; p < cycle[0].NumPs(); p++ {
		retakeOff, taken, idle, fresh := false, false, false, false
		for _, s := range cycle {
			on := false
			for _, a := range md.Enabled(s) {
				if (a.Kind == spec.ActRetake || a.Kind == spec.ActRetakeHandoff) && int(a.P) == p {
					on = true
				}
			}
			retakeOff = retakeOff || !on
			idle = idle || s.P[p].Status == spec.PIdle
		}
		prev := cycle[len(cycle)-1]
		for i, st := range steps {
			for _, a := range acts[i] {
				switch {
				case (a.Kind == spec.ActRetake || a.Kind == spec.ActRetakeHandoff) && int(a.P) == p:
					taken = true
				case a.Kind == spec.ActPreempt && int(a.P) == p:
					fresh = true
				}
			}
			if st.State.P[p].SchedTick != prev.P[p].SchedTick {
				fresh = true
			}
			prev = st.State
		}
		if !retakeOff && !taken {
			problems = append(problems, fmt.Sprintf("p%d's Retake (or RetakeHandoff) stays enabled and is not taken", p))
		}
		if slice && !idle && !fresh {
			problems = append(problems, fmt.Sprintf("p%d is never idle, never preempted and starts no fresh time slice", p))
		}
	}
	if len(problems) > 0 {
		return errors.New("unfair: " + strings.Join(problems, "; "))
	}
	return nil
}
