package interleave

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// ViolationKind says which check an execution failed.
type ViolationKind string

const (
	KindPanic           ViolationKind = "panic"
	KindLivelock        ViolationKind = "livelock"
	KindConservation    ViolationKind = "conservation"
	KindLinearizability ViolationKind = "linearizability"
)

// Violation is a failed check of one execution.
type Violation struct {
	Kind ViolationKind
	Msg  string
	Exec *Execution
}

func (v *Violation) Error() string { return fmt.Sprintf("%s: %s", v.Kind, v.Msg) }

// Check runs the checks on a finished execution and returns the first
// failure, or nil: a panic, a livelock, conservation, linearizability
// against spec/ (this package's search, see lin.go), and the same history
// against linearize's porcupine model (CheckModel). A cut execution
// (Exec.Cut) has no violation but did not pass either: the caller counts it
// as inconclusive.
func Check(ex *Execution) *Violation {
	switch {
	case ex.Panic != nil:
		return &Violation{KindPanic, fmt.Sprintf("%s panicked: %s", actorName(ex.Scenario, ex.Panic.Actor), ex.Panic.Value), ex}
	case ex.Livelock >= 0:
		return &Violation{KindLivelock, fmt.Sprintf("%s took %d steps alone without finishing its call", actorName(ex.Scenario, ex.Livelock), DefaultSoloLimit), ex}
	case !ex.Complete:
		return nil
	}
	if msg := conservation(ex); msg != "" {
		return &Violation{KindConservation, msg, ex}
	}
	if msg := linearizable(ex); msg != "" {
		return &Violation{KindLinearizability, msg, ex}
	}
	return CheckModel(ex)
}

func actorName(sc *Scenario, a int) string {
	if a >= 0 && a < len(sc.Actors) {
		return fmt.Sprintf("actor %d (%s)", a, sc.Actors[a].Name)
	}
	return fmt.Sprintf("actor %d", a)
}

// conservation checks that every G of the scenario was taken exactly once:
// returned by a get or a steal, in a drain's batch, or still in some queue
// at the end; and that nothing else (a nil, a G from nowhere) came out.
func conservation(ex *Execution) string {
	where := map[spec.GID][]string{}
	add := func(g spec.GID, place string) { where[g] = append(where[g], place) }
	for _, c := range ex.Calls {
		who := fmt.Sprintf("%s of %s", c.Call.describe(c.Own), ex.Scenario.Actors[c.Actor].Name)
		switch c.Call.Kind {
		case Get, Steal, StealNext:
			if c.G != spec.NoG {
				add(c.G, who)
			}
		case Drain:
			for _, g := range c.Gs {
				add(g, who)
			}
		}
	}
	for i, q := range ex.Final {
		if q.RunNext != spec.NoG {
			add(q.RunNext, fmt.Sprintf("q%d's runnext", i))
		}
		for _, g := range q.Ring {
			add(g, fmt.Sprintf("q%d's ring", i))
		}
	}
	for _, g := range ex.FinalGlobal.Gs {
		add(g, "the global queue")
	}
	var problems []string
	known := map[spec.GID]bool{}
	for _, g := range ex.gs() {
		known[g] = true
		switch n := len(where[g]); n {
		case 1:
		case 0:
			problems = append(problems, fmt.Sprintf("g%d was lost (taken by no one, in no queue)", g))
		default:
			problems = append(problems, fmt.Sprintf("g%d was taken %d times: %s", g, n, strings.Join(where[g], "; ")))
		}
	}
	var strays []spec.GID
	for g := range where {
		if !known[g] {
			strays = append(strays, g)
		}
	}
	sort.Slice(strays, func(i, j int) bool { return strays[i] < strays[j] })
	for _, g := range strays {
		name := fmt.Sprintf("g%d", g)
		if g == spec.NoG {
			name = "a nil G"
		}
		problems = append(problems, fmt.Sprintf("%s came out of %s", name, strings.Join(where[g], "; ")))
	}
	return strings.Join(problems, "; ")
}

// lstate is the spec's view of all the queues of a scenario.
type lstate struct {
	locals []spec.LocalQueue
	glob   spec.GlobalQueue
}

func (s lstate) with(i int, q spec.LocalQueue) lstate {
	locals := slices.Clone(s.locals)
	locals[i] = q
	return lstate{locals, s.glob}
}

func (s lstate) key() string {
	var b strings.Builder
	for _, q := range s.locals {
		b.WriteString(q.Key())
		b.WriteByte('/')
	}
	b.WriteString(s.glob.Key())
	return b.String()
}

func (s lstate) equal(o lstate) bool {
	for i := range s.locals {
		if !s.locals[i].Equal(o.locals[i]) {
			return false
		}
	}
	return s.glob.Equal(o.glob)
}

// gs lists every G of the execution: the scenario's initial ones, then
// those its calls put (fresh Gs included).
func (e *Execution) gs() []spec.GID {
	var out []spec.GID
	for _, in := range e.Scenario.Init {
		out = append(out, in.Ring...)
		if in.RunNext != spec.NoG {
			out = append(out, in.RunNext)
		}
	}
	out = append(out, e.Scenario.Global...)
	for _, c := range e.Calls {
		if c.Call.Kind == Put || c.Call.Kind == PutNext {
			out = append(out, c.Call.G)
		}
	}
	return out
}

// record is actor's call number index.
func (e *Execution) record(actor, index int) *CallRecord {
	for i := range e.Calls {
		if c := &e.Calls[i]; c.Actor == actor && c.Index == index {
			return c
		}
	}
	return nil
}
