package bughist

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Replay of a spec counterexample on the reference scheduler.
//
// impl.Driver runs the scheduler's real decision code one step at a time:
// the replay plays every G and sysmon action of the trace itself and, for a
// scheduler step, only says which M steps; the M decides. Each Driver
// command yields the spec actions the impl took (a step and, when it ends in
// wakep, wakep's steps), which must be the trace's next actions, named the
// same. At the end, and in every state of a lasso's cycle played CycleReps
// times, the impl's own state must be the lost wakeup: a runnable G, an idle
// P, and no M spinning or in the no-P recheck. A stutter must also leave
// every M parked or running its G, so nothing in the scheduler moves again.
// A stuck scheduler (spec.KindDeadlock) must end with every M parked and a
// due timer that nobody runs.

// CycleReps is how many times a replay plays a lasso's cycle.
const CycleReps = 3

// ReplayResult is the outcome of one replay.
type ReplayResult struct {
	Go       spec.GoVersion
	Followed bool   // the impl took every action of the trace
	Starved  bool   // and ended (and cycled) in the lost-wakeup state
	Steps    int    // trace actions played (cycle repetitions included)
	At       int    // 1-based index of the trace action where the impl left it (0: none)
	Detail   string // what happened
}

// Caught reports a complete reproduction.
func (r ReplayResult) Caught() bool { return r.Followed && r.Starved }

// playable reports whether impl.Driver can play t: no action of another M
// (or of a G, sysmon or netpoll) between a Wakep and the end of that wakep.
func playable(t spec.Trace) bool {
	waking := int8(-1)
	for _, st := range t.Steps {
		a := st.Action
		switch a.Kind {
		case spec.ActWakep:
			if waking >= 0 {
				return false
			}
			waking = a.M
			continue
		case spec.ActWakepNoP, spec.ActWakepStartM:
			if waking != a.M {
				return false
			}
			waking = -1
			continue
		}
		if waking >= 0 {
			return false
		}
	}
	return waking < 0
}

type replayer struct {
	kind  spec.ViolationKind
	d     *impl.Driver
	slots [spec.MaxGs + 1]*impl.G
	t     spec.Trace
	n     int // actions played
}

// ReplayOnImpl plays t, a counterexample of kind found on bounds b, on an
// impl.Driver configured as release gv.
func ReplayOnImpl(b spec.Bounds, gv spec.GoVersion, t spec.Trace, kind spec.ViolationKind) (ReplayResult, error) {
	res := ReplayResult{Go: gv}
	if !playable(t) {
		return res, fmt.Errorf("the trace steps another actor inside a wakep, which impl.Driver runs to its end at once")
	}
	d, err := impl.NewDriver(impl.Config{Procs: b.Ps, QueueCapacity: b.Cap, SchedTickPeriod: b.SchedTick, Seed: 1, Go: gv})
	if err != nil {
		return res, err
	}
	if b.PollBlock {
		d.UseNetpoll(b.Timers > 0)
	}
	r := &replayer{kind: kind, d: d, t: t}
	r.slots[1] = d.Main()
	// The prefix (and, for a lasso, the first pass of the cycle).
	if i, msg := r.play(0, len(t.Steps), false); msg != "" {
		res.At, res.Detail, res.Steps = i+1, msg, r.n
		return res, nil
	}
	res.Followed = true
	if why := r.starved(); why != "" {
		res.Steps = r.n
		res.Detail = fmt.Sprintf("the impl followed all %d steps but is not %s: %s", len(t.Steps), r.badState(), why)
		return res, nil
	}
	switch {
	case t.Loop >= 0:
		for range CycleReps - 1 {
			if i, msg := r.play(t.Loop, len(t.Steps), true); msg != "" {
				res.Followed, res.At, res.Detail, res.Steps = false, i+1, "in the cycle: "+msg, r.n
				return res, nil
			}
		}
		res.Detail = fmt.Sprintf("the impl followed the %d-step prefix and the cycle %d times; a G stayed runnable next to an idle P with no M spinning or rechecking in every state of the cycle",
			t.Loop, CycleReps)
	case r.kind == spec.KindDeadlock:
		res.Detail = fmt.Sprintf("the impl followed all %d steps and is stuck: every M parked, a timer due and nobody to run it", len(t.Steps))
	case t.Stutter:
		if why := r.allExcused(); why != "" {
			res.Steps = r.n
			res.Detail = "the trace stutters, but in the impl " + why
			return res, nil
		}
		res.Detail = fmt.Sprintf("the impl followed all %d steps and stays there: a G runnable next to an idle P, every M parked or running its G", len(t.Steps))
	default:
		res.Detail = fmt.Sprintf("the impl followed all %d steps into the lost-wakeup state", len(t.Steps))
	}
	res.Starved = true
	res.Steps = r.n
	return res, nil
}

// play plays t.Steps[from:to]. With check, every state reached must be
// starved. It returns the index of the action the impl left the trace at
// and why ("" when it followed).
func (r *replayer) play(from, to int, check bool) (int, string) {
	for i := from; i < to; {
		a := r.t.Steps[i].Action
		prev := r.t.Init
		if i > 0 {
			prev = r.t.Steps[i-1].State
		}
		newG, err := r.d.Apply(a, &r.slots)
		if err != nil {
			return i, fmt.Sprintf("%v: %v", a, err)
		}
		if newG != nil {
			r.mapNewG(newG, prev, r.t.Steps[i].State)
		}
		evs := r.d.Actions()
		if len(evs) == 0 {
			return i, fmt.Sprintf("%v: the impl took no action", a)
		}
		for j, e := range evs {
			got := r.toSpec(e)
			if i+j >= to {
				return i + j, fmt.Sprintf("the impl took %v past the trace's end", got)
			}
			if want := r.t.Steps[i+j].Action; got.String() != want.String() {
				return i + j, fmt.Sprintf("the impl took %v where the trace has %v", got, want)
			}
			r.n++
		}
		i += len(evs)
		if check {
			if why := r.starved(); why != "" {
				return i - 1, "not " + r.badState() + " after it: " + why
			}
		}
	}
	return 0, ""
}

// mapNewG gives the impl's new G the slot the spec allocated: the one that
// went from idle or dead to runnable.
func (r *replayer) mapNewG(g *impl.G, prev, next spec.State) {
	for k := 1; k <= next.NumGs(); k++ {
		if (prev.G[k] == spec.GDead || prev.G[k] == spec.GIdle) && next.G[k] == spec.GRunnable {
			r.slots[k] = g
			return
		}
	}
}

func (r *replayer) gid(id uint64) spec.GID {
	for k, g := range r.slots {
		if g != nil && g.ID() == id {
			return spec.GID(k)
		}
	}
	return spec.NoG
}

// toSpec names an impl action event as the spec does.
func (r *replayer) toSpec(e impl.Event) spec.Action { return e.SpecAction(r.gid) }

// badState names the state the replay must end in.
func (r *replayer) badState() string {
	if r.kind == spec.KindDeadlock {
		return "stuck"
	}
	return "in the lost-wakeup state"
}

// starved says why the impl's state is not the one the violation's kind
// names ("" when it is): the lost wakeup, or for a stuck scheduler stuck.
func (r *replayer) starved() string {
	sn := r.d.Sched().Snapshot()
	if r.kind == spec.KindDeadlock {
		return stuck(sn)
	}
	runnable := false
	for _, g := range sn.Gs {
		if g.Status() == impl.Grunnable {
			runnable = true
		}
	}
	if !runnable {
		return "no G is runnable"
	}
	idle := false
	for _, p := range sn.Ps {
		if p.Status == spec.PIdle {
			idle = true
		}
	}
	if !idle {
		return "no P is idle"
	}
	for m, ms := range sn.Ms {
		if ms.Spinning {
			return fmt.Sprintf("m%d spins", m)
		}
		switch ms.PC {
		case spec.MDropSpin, spec.MRecheck, spec.MRecheckRunqs, spec.MRecheckP:
			return fmt.Sprintf("m%d is in the no-P recheck (%v)", m, ms.PC)
		}
	}
	return ""
}

// allExcused says which M still has a scheduler step to take ("" if none).
func (r *replayer) allExcused() string {
	for m, ms := range r.d.Sched().Snapshot().Ms {
		if ms.PC != spec.MIdle && ms.PC != spec.MRun {
			return fmt.Sprintf("m%d still has a scheduler step to take (%v)", m, ms.PC)
		}
	}
	return ""
}

// stuck says why the impl's state is not a stuck scheduler with a due
// timer ("" when it is): every M parked, no G runnable or running, and a
// timer on some P's heap already due, which no step will run.
func stuck(sn impl.Snapshot) string {
	for m, ms := range sn.Ms {
		if ms.PC != spec.MIdle {
			return fmt.Sprintf("m%d is not parked (%v)", m, ms.PC)
		}
	}
	for _, g := range sn.Gs {
		if st := g.Status(); st == impl.Grunnable || st == impl.Grunning {
			return "a G is runnable or running"
		}
	}
	for _, t := range sn.Timers {
		if t.When <= sn.Now {
			return ""
		}
	}
	return "no timer is due"
}
