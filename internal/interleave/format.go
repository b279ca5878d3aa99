package interleave

import (
	"fmt"
	"io"
	"strings"

	"github.com/gmpcheck/gmpcheck/impl"
)

// ReplayCommand is the command line that runs ex's schedule again; for a
// scenario that is not a built-in one (a generated one), it says so.
func ReplayCommand(ex *Execution) string {
	if b, err := Lookup(ex.Scenario.Name); err != nil || b.String() != ex.Scenario.String() {
		return fmt.Sprintf("(scenario %q is not built in: re-run the failing test input; its schedule is %s)", ex.Scenario.Name, ex.Schedule())
	}
	bug := ""
	if b := impl.ActiveBug(); b != impl.NoBug {
		bug = " -bug " + string(b)
	}
	return fmt.Sprintf("go run -tags gmpcheck_hooks ./cmd/gmpcheck interleave -scenario %s%s -replay %s", ex.Scenario.Name, bug, ex.Schedule())
}

// WriteTrace prints an execution step by step: who moved, in which call,
// making which access to which queue; then each call's result.
func WriteTrace(w io.Writer, ex *Execution) {
	sc := ex.Scenario
	fmt.Fprintf(w, "scenario %v\n", sc)
	fmt.Fprintf(w, "schedule %s (%d steps)\n", ex.Schedule(), len(ex.Steps))
	width := 0
	for _, a := range sc.Actors {
		width = max(width, len(a.Name))
	}
	for i, s := range ex.Steps {
		a := sc.Actors[s.Actor]
		obj := "global"
		if s.Obj != GlobalObj {
			obj = fmt.Sprintf("q%d", s.Obj)
		}
		call, op := "", s.Op.String()
		if c := ex.record(s.Actor, s.Call); c != nil {
			call = c.Call.describe(a.Queue)
		}
		if s.Op == OpJoin {
			call, op, obj = fmt.Sprintf("join actor %d", s.Obj), "join", ""
		}
		fmt.Fprintf(w, "  %4d  %d %-*s  %-22s %-12s %s\n", i, s.Actor, width, a.Name, call, op, obj)
	}
	fmt.Fprintln(w, "calls (window = first..last atomic step):")
	for i := range ex.Calls {
		c := &ex.Calls[i]
		if !c.Done {
			fmt.Fprintf(w, "    %s (did not return)\n", describeCall(sc, c))
			continue
		}
		fmt.Fprintf(w, "    %s\n", describeCall(sc, c))
	}
	if ex.Complete {
		var qs []string
		for i, q := range ex.Final {
			qs = append(qs, fmt.Sprintf("q%d %v", i, q))
		}
		fmt.Fprintf(w, "final: %s; global %v\n", strings.Join(qs, "; "), ex.FinalGlobal.Gs)
	}
}

// Report is a failure's full account: what was violated, the steps that
// led there, and the command that replays them.
func (v *Violation) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "VIOLATION (%s): %s\n", v.Kind, v.Msg)
	if bug := impl.ActiveBug(); bug != impl.NoBug {
		fmt.Fprintf(&b, "seeded bug active: %s\n", bug)
	}
	WriteTrace(&b, v.Exec)
	if v.Exec.Panic != nil {
		fmt.Fprintf(&b, "panic stack of actor %d:\n%s\n", v.Exec.Panic.Actor, v.Exec.Panic.Stack)
	}
	fmt.Fprintf(&b, "replay: %s\n", ReplayCommand(v.Exec))
	return b.String()
}
