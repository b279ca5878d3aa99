package impl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// HistoryReleases are the releases the impl follows only to reproduce a
// bug of Go's history (internal/bughist): each differs from Go 1.26 in the
// one change that caused the bug, and gets to it on some traces.
var HistoryReleases = []spec.GoVersion{spec.Go15dev, spec.Go14, spec.Go110dev, spec.Go111, spec.Go117dev}

// releaseThrows is, for each history release that throws where its bug
// shows, the runtime's throw (or fault): the impl must throw that, not
// some other failure, at that step.
var releaseThrows = map[spec.GoVersion]string{
	spec.Go15dev:  "spinning with local work",
	spec.Go110dev: "nil pointer dereference",
	spec.Go117dev: "stoplockedm: inconsistent locking",
}

// noPEvent is the rule an action event's P follows: an M that holds no P
// before its action and after it reports none (-1).
func noPEvent(e Event, before, after *spec.State) error {
	if e.Kind != EvAction || e.M < 0 || int(e.M) >= before.NumMs() {
		return nil
	}
	if before.M[e.M].P == spec.NoP && after.M[e.M].P == spec.NoP && e.P != -1 {
		return fmt.Errorf("m%d holds no P, yet its %v event names p%d", e.M, e.Action, e.P)
	}
	return nil
}

// ReleaseRun is the outcome of CheckReleaseAgainstSpec.
type ReleaseRun struct {
	Steps int // actions compared
	// Broke is the spec invariant the trace reached (its bug), "" if none:
	// the trace stops there, as the runtime's did, with the impl in the
	// same state or throwing the runtime's throw at that step.
	Broke string
}

// CheckReleaseAgainstSpec is CheckAgainstSpec for a release of
// HistoryReleases: random bounds with the mechanism its change lives in,
// and a random trace on both sides, compared state for state until the
// spec's state breaks an invariant, which is where the release's bug
// shows. There the runtime threw or went on in a broken state; the impl
// must have reached the same state, or thrown the runtime's throw at that
// step (releaseThrows): where it throws, some step of the same M must take
// the spec to a broken state. Every action event's P is checked too
// (noPEvent).
func CheckReleaseAgainstSpec(c Chooser, gv spec.GoVersion, steps int) (ReleaseRun, error) {
	b := drawBounds(c)
	b.Go = gv
	switch gv {
	case spec.Go14:
		b.STW, b.ProcResize = true, true
	case spec.Go110dev:
		// The nil slot needs a growth while a spinning M that dropped its
		// P starts its walk: few Ps and Gs, so that Ms spin and drop.
		b.STW, b.ProcResize = true, true
		b.Ps, b.Gs, b.Spawn, b.Netpoll, b.InjectList = 2, 1+c.Intn(2, "gs110"), c.Intn(2, "spawn110"), false, false
	case spec.Go111:
		// mexit's newm takes the exiting slot only with no M idle and
		// the thread limit reached: few Ms.
		b.LockOSThread, b.InjectList = true, false
		b.Ms = b.Ps + c.Intn(2, "ms")
	case spec.Go117dev:
		b.Syscalls, b.LockOSThread, b.InjectList = true, true, false
	case spec.Go15dev:
		b.Syscalls = true
	default:
		return ReleaseRun{}, fmt.Errorf("impl: %v is not a history release", gv)
	}
	r, err := newSpecRunLimited(b, gv, uint64(c.Intn(1<<30, "seed")))
	if err != nil {
		return ReleaseRun{}, err
	}
	var run ReleaseRun
	r.seen = func(spec.Action) { run.Steps++ }
	for range steps {
		if err := r.md.Check(r.st); err != nil {
			run.Broke = err.Error()
			return run, nil
		}
		a, err := r.pick(c)
		if err == nil {
			err = r.applyRecover(a)
		}
		var threw implThrew
		isThrow := errors.As(err, &threw)
		switch {
		case err == nil:
			continue
		case errors.Is(err, errPruned), isThrow && strings.Contains(threw.msg, "-thread limit"):
			return run, nil // the spec's M bound, which the impl's MaxMs is
		case errors.As(err, new(errGap)):
			return run, nil // a gap of the spec's abstraction: the trace is cut
		case isThrow && releaseThrows[gv] != "" && strings.Contains(threw.msg, releaseThrows[gv]):
			if why := r.breaksOnSomeStep(a, threw); why != "" {
				run.Broke = why
				return run, nil
			}
		}
		return run, fmt.Errorf("bounds %v: %w", b, err)
	}
	return run, nil
}

// breaksOnSomeStep says which invariant some spec step of the actor of
// picked, the action during which the impl threw, breaks ("" if none
// does): the impl threw where the spec reaches the bug. (For a scheduler
// step the impl chooses among the M's spec steps, such as which P a
// recheck looks at; a G, sysmon or stopper action is picked's alone.)
func (r *specRun) breaksOnSomeStep(picked spec.Action, threw error) string {
	for _, a := range r.md.Enabled(r.st) {
		if a.M != picked.M || (a.M == spec.NoP && a != picked) {
			continue
		}
		ns, err := r.md.Step(r.st, a)
		if err != nil {
			continue
		}
		if cerr := r.md.Check(ns); cerr != nil {
			return fmt.Sprintf("%v (the impl threw: %v; the spec's %v breaks it)", cerr, threw, a)
		}
	}
	return ""
}
