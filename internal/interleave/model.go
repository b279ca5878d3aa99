package interleave

import (
	"fmt"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/linearize"
	"github.com/gmpcheck/gmpcheck/spec"
)

// KindLinearizeModel is a history that linearize's porcupine model of the
// run queue rejects.
const KindLinearizeModel ViolationKind = "linearize-model"

// CheckModel checks a finished execution's history against the porcupine
// model of package linearize, the model the concurrent-history checks of
// the real queue use, as a second opinion beside Check's own search.
//
// That model is one P's local queue (and the global queue its spills go
// to): it has the owner's put, put(next), get and drain, thieves' steals
// from it, and runqempty of it, but no steal into it. So each local queue
// whose owner does not steal is checked on its own, with the calls that
// act on it; a queue whose owner steals (a chained steal's middle thief)
// is left to Check. Each call's window runs from its first to its last
// atomic step, as in Check, and the queue's initial content is put by
// calls that return before any other begins.
//
// It returns nil for an execution that did not complete.
func CheckModel(ex *Execution) *Violation {
	if !ex.Complete {
		return nil
	}
	sc := ex.Scenario
	checker, err := linearize.NewChecker(sc.Cap)
	if err != nil {
		return &Violation{KindLinearizeModel, err.Error(), ex}
	}
	for q := range sc.Queues {
		history, calls, ok := queueHistory(ex, q)
		if !ok || len(calls) == 0 {
			continue
		}
		res, err := checker.Check(history, 0)
		if err != nil {
			return &Violation{KindLinearizeModel, fmt.Sprintf("q%d: %v", q, err), ex}
		}
		if res != porcupine.Ok {
			var b strings.Builder
			fmt.Fprintf(&b, "linearize's model of q%d rejects its history (%v); the calls on q%d (window = first..last atomic step):", q, res, q)
			for _, c := range calls {
				fmt.Fprintf(&b, "\n    %s", describeCall(sc, c))
			}
			return &Violation{KindLinearizeModel, b.String(), ex}
		}
	}
	return nil
}

// queueHistory is the porcupine history of the calls that act on queue q,
// or false when the model cannot express them (q's owner steals into q).
func queueHistory(ex *Execution, q int) ([]porcupine.Operation, []*CallRecord, bool) {
	sc := ex.Scenario
	owner := len(sc.Actors) // the client that puts the initial content
	for a, act := range sc.Actors {
		if act.Queue != q {
			continue
		}
		owner = a
		steals := false
		walk(act.Script, 0, func(c Call, _ int) { steals = steals || c.Kind == Steal || c.Kind == StealNext })
		if steals {
			return nil, nil, false
		}
	}
	var history []porcupine.Operation
	var calls []*CallRecord
	t := int64(1)
	initPut := func(g spec.GID, kind linearize.Kind) {
		history = append(history, linearize.MakeOp(owner, linearize.Input{Kind: kind, G: g}, linearize.Output{}, t, t+1))
		t += 2
	}
	if q < len(sc.Init) {
		for _, g := range sc.Init[q].Ring {
			initPut(g, linearize.KindPut)
		}
		if g := sc.Init[q].RunNext; g != spec.NoG {
			initPut(g, linearize.KindPutNext)
		}
	}
	base := t
	for i := range ex.Calls {
		c := &ex.Calls[i]
		in := linearize.Input{}
		out := linearize.Output{}
		switch k := c.Call.Kind; {
		case c.Own == q && (k == Put || k == PutNext):
			in.Kind, in.G = linearize.KindPut, c.Call.G
			if k == PutNext {
				in.Kind = linearize.KindPutNext
			}
		case c.Own == q && k == Get:
			in.Kind, out.G, out.InheritTime = linearize.KindGet, c.G, c.Inherit
		case c.Own == q && k == Drain:
			in.Kind, out.Gs = linearize.KindDrain, c.Gs
		case c.Call.Q == q && (k == Steal || k == StealNext):
			in.Kind, in.StealRunNext, out.Gs = linearize.KindSteal, k == StealNext, c.Batch
		case c.Call.Q == q && k == Empty:
			in.Kind, out.Empty = linearize.KindEmpty, c.Empty
		default:
			continue
		}
		history = append(history, linearize.MakeOp(c.Actor, in, out, base+2*int64(c.First), base+2*int64(c.Last)+1))
		calls = append(calls, c)
	}
	return history, calls, true
}
