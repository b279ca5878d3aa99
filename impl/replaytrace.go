package impl

import (
	"errors"
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TraceReplay is the outcome of ReplayTrace.
type TraceReplay struct {
	// Followed counts the trace's actions the impl took, in order, each
	// leaving the impl in the state the spec reached by it.
	Followed int
	// Left says why the impl left the trace at action Followed+1 (""
	// when it took every action).
	Left string
	// Threw is the impl's throw (its panic) that left the trace, "" if it
	// left otherwise or not at all: a release's bug may make the impl
	// throw where the runtime did.
	Threw string
	// Final is the impl's state after the actions it followed, in the
	// spec's terms (impl.Driver's snapshot mapped as CheckAgainstSpec maps
	// it): where the impl followed the whole trace, it is the trace's last
	// state, so the spec's invariants judge the impl's own state.
	Final spec.State
}

// ReplayTrace plays t, a trace of the spec model on bounds b (the release
// b.Go), on a Driver following release implGo, as CheckAgainstSpec plays a
// random trace: the trace's G, sysmon, netpoll and stopper actions are
// played on the impl, and for a scheduler step the impl says what the M
// does. Every action the impl takes must be the trace's next one, and
// after it the impl's state must be the spec's. With implGo = b.Go this
// reproduces a counterexample on the running scheduler; with another
// release it shows where that release leaves the trace.
//
// A wakep runs to its end inside the Driver step that calls it, so a trace
// that steps another actor inside a wakep is left at that point.
func ReplayTrace(b spec.Bounds, implGo spec.GoVersion, t spec.Trace) (TraceReplay, error) {
	r, err := newSpecRunLimited(b, implGo, 1)
	if err != nil {
		return TraceReplay{}, err
	}
	var took []spec.Action
	r.seen = func(a spec.Action) { took = append(took, a) }
	res := TraceReplay{Final: r.st}
	for res.Followed < len(t.Steps) {
		took = took[:0]
		err := r.applyRecover(t.Steps[res.Followed].Action)
		for j, a := range took {
			i := res.Followed + j
			if i >= len(t.Steps) {
				res.Left = fmt.Sprintf("the impl took %v past the trace's end", a)
				return res, nil
			}
			if want := t.Steps[i].Action; a.String() != want.String() {
				res.Followed = i
				res.Left = fmt.Sprintf("the impl took %v where the trace has %v", a, want)
				return res, nil
			}
		}
		if err != nil {
			// The Driver step as a whole is not followed: its actions
			// were the trace's, but the spec refused one or the states
			// differ after it.
			if errors.Is(err, errPruned) {
				err = fmt.Errorf("the spec's M bound cut the impl's step")
			}
			var threw implThrew
			if errors.As(err, &threw) {
				res.Threw = threw.msg
			}
			res.Left = err.Error()
			return res, nil
		}
		res.Followed += len(took)
		res.Final = r.st
	}
	return res, nil
}

// implThrew is a throw of the impl during the Driver step of action at:
// its panic on a broken assumption, as the runtime's throw (or fault).
type implThrew struct {
	at  spec.Action
	msg string
}

func (e implThrew) Error() string { return fmt.Sprintf("the impl threw at %v: %s", e.at, e.msg) }

// applyRecover is apply with the scheduler's own throws returned as an
// implThrew: a release's bug may make the impl throw where the runtime
// did.
func (r *specRun) applyRecover(a spec.Action) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = implThrew{a, fmt.Sprint(p)}
		}
	}()
	return r.apply(a)
}

// newSpecRunLimited is newSpecRun with the spec's M slots as the impl's
// thread limit (Config.MaxMs): where the spec has no idle slot left, a
// newm inside mexit takes the exiting M's slot, and so must the impl's.
func newSpecRunLimited(b spec.Bounds, implGo spec.GoVersion, seed uint64) (*specRun, error) {
	cfg := Config{Procs: b.Ps, QueueCapacity: b.Cap, SchedTickPeriod: b.SchedTick, Seed: seed, Go: implGo, MaxMs: b.Ms}
	return newSpecRunCfg(b, cfg, spec.BugNone)
}
