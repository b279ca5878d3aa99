package impl

import (
	"errors"

	"github.com/gmpcheck/gmpcheck/spec"
)

// ReadyHandoff is the runtime's direct hand-off (semrelease with handoff,
// as sync.Mutex does in starvation mode): it readies the parked t to run
// next on the caller's P, inheriting the caller's time slice, and yields
// the P to it. The caller goes to the tail of its P's local run queue
// (goyield), not to the global queue as Gosched does, and wakes no M of
// its own: the ready's wakep is the one. It fails, changing nothing, if t
// is not parked.
func (g *G) ReadyHandoff(t Task) error {
	m := g.mustRun("ReadyHandoff")
	gp, ok := t.(*G)
	if !ok || gp == nil || gp.x.s != g.x.s {
		return errors.New("gmpcheck: ReadyHandoff of a goroutine not created by this scheduler")
	}
	if err := g.x.s.readyAs(m, gp, spec.ActReadyHandoff); err != nil {
		return err
	}
	g.yield(reqGoyield)
	return nil
}
