package interleave

import (
	"fmt"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// CallKind is one queue operation an actor's script can make.
type CallKind uint8

const (
	// Put is runqput(g, next=false) on the actor's own queue.
	Put CallKind = iota + 1
	// PutNext is runqput(g, next=true) on the actor's own queue.
	PutNext
	// Get is runqget on the actor's own queue.
	Get
	// Drain is runqdrain on the actor's own queue.
	Drain
	// Steal is runqsteal from queue Q into the actor's own queue, without
	// runnext.
	Steal
	// StealNext is runqsteal from queue Q with stealRunNext.
	StealNext
	// Empty is runqempty of queue Q; any actor may call it.
	Empty
)

var callNames = [...]string{Put: "put", PutNext: "put-next", Get: "get", Drain: "drain", Steal: "steal", StealNext: "steal-next", Empty: "empty"}

func (k CallKind) String() string {
	if int(k) < len(callNames) && callNames[k] != "" {
		return callNames[k]
	}
	return fmt.Sprintf("CallKind(%d)", uint8(k))
}

// ownerOnly reports whether the call acts on the caller's own queue as its
// owner (only the owning P may put, get and drain).
func (k CallKind) ownerOnly() bool { return k == Put || k == PutNext || k == Get || k == Drain }

// Call is one scripted queue operation.
type Call struct {
	Kind CallKind
	G    spec.GID // the G put, for Put and PutNext
	Q    int      // the victim of Steal/StealNext, the queue read by Empty
}

func (c Call) describe(own int) string {
	switch c.Kind {
	case Put, PutNext:
		return fmt.Sprintf("%v g%d on q%d", c.Kind, c.G, own)
	case Get, Drain:
		return fmt.Sprintf("%v q%d", c.Kind, own)
	case Steal, StealNext:
		return fmt.Sprintf("%v q%d->q%d", c.Kind, c.Q, own)
	case Empty:
		return fmt.Sprintf("empty q%d", c.Q)
	}
	return c.Kind.String()
}

// Actor is one goroutine of a scenario: a P that owns queue Queue (or none,
// -1, for a pure reader) and runs Script in order.
type Actor struct {
	Name   string
	Queue  int
	Script []Call
}

// QueueInit is a queue's content before the actors start: the ring head
// first and the runnext G (NoG for none).
type QueueInit struct {
	Ring    []spec.GID
	RunNext spec.GID
}

// Scenario is a small concurrent test of the run queues: Queues local queues
// of capacity Cap sharing one global queue, pre-filled by Init, and actors
// that run their scripts concurrently.
type Scenario struct {
	Name string
	Doc  string
	Cap  int
	// Queues is the number of local queues, q0..q(Queues-1).
	Queues int
	Init   []QueueInit // per queue; may be shorter than Queues
	Global []spec.GID  // the global queue's initial content
	Actors []Actor
}

// MaxActors bounds a scenario's actors: a schedule names each by one digit.
const MaxActors = 10

// Gs lists every G of the scenario: the initial ones, then those put.
func (s *Scenario) Gs() []spec.GID {
	var out []spec.GID
	for _, in := range s.Init {
		out = append(out, in.Ring...)
		if in.RunNext != spec.NoG {
			out = append(out, in.RunNext)
		}
	}
	out = append(out, s.Global...)
	for _, a := range s.Actors {
		for _, c := range a.Script {
			if c.Kind == Put || c.Kind == PutNext {
				out = append(out, c.G)
			}
		}
	}
	return out
}

// Validate reports what is wrong with a scenario, so a bad one is a clear
// error rather than a panic deep in the queue code.
func (s *Scenario) Validate() error {
	if err := spec.ValidQueueCap(s.Cap); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	if s.Queues < 1 || s.Queues > MaxActors {
		return fmt.Errorf("scenario %s: %d queues, want 1..%d", s.Name, s.Queues, MaxActors)
	}
	if len(s.Init) > s.Queues {
		return fmt.Errorf("scenario %s: %d initial contents for %d queues", s.Name, len(s.Init), s.Queues)
	}
	if len(s.Actors) < 1 || len(s.Actors) > MaxActors {
		return fmt.Errorf("scenario %s: %d actors, want 1..%d", s.Name, len(s.Actors), MaxActors)
	}
	for i, in := range s.Init {
		if len(in.Ring) > s.Cap {
			return fmt.Errorf("scenario %s: q%d starts with %d Gs in a ring of %d", s.Name, i, len(in.Ring), s.Cap)
		}
	}
	seen := map[spec.GID]bool{}
	for _, g := range s.Gs() {
		if g <= spec.NoG {
			return fmt.Errorf("scenario %s: G id %d, want > 0", s.Name, g)
		}
		if seen[g] {
			return fmt.Errorf("scenario %s: g%d appears twice", s.Name, g)
		}
		seen[g] = true
	}
	owner := map[int]string{}
	for _, a := range s.Actors {
		if len(a.Script) == 0 {
			return fmt.Errorf("scenario %s: actor %s has an empty script", s.Name, a.Name)
		}
		if a.Queue >= s.Queues || a.Queue < -1 {
			return fmt.Errorf("scenario %s: actor %s owns q%d of %d queues", s.Name, a.Name, a.Queue, s.Queues)
		}
		if a.Queue >= 0 {
			if o, dup := owner[a.Queue]; dup {
				return fmt.Errorf("scenario %s: q%d owned by both %s and %s (a ring has one producer)", s.Name, a.Queue, o, a.Name)
			}
			owner[a.Queue] = a.Name
		}
		for _, c := range a.Script {
			switch {
			case c.Kind < Put || c.Kind > Empty:
				return fmt.Errorf("scenario %s: actor %s: unknown call %v", s.Name, a.Name, c.Kind)
			case (c.Kind.ownerOnly() || c.Kind == Steal || c.Kind == StealNext) && a.Queue < 0:
				return fmt.Errorf("scenario %s: actor %s owns no queue and cannot %v", s.Name, a.Name, c.Kind)
			case (c.Kind == Steal || c.Kind == StealNext || c.Kind == Empty) && (c.Q < 0 || c.Q >= s.Queues):
				return fmt.Errorf("scenario %s: actor %s: %v of q%d of %d queues", s.Name, a.Name, c.Kind, c.Q, s.Queues)
			case (c.Kind == Steal || c.Kind == StealNext) && c.Q == a.Queue:
				return fmt.Errorf("scenario %s: actor %s steals from its own queue", s.Name, a.Name)
			}
		}
	}
	return nil
}

// String is a one-line summary: actors and their scripts.
func (s *Scenario) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (cap %d", s.Name, s.Cap)
	for i, in := range s.Init {
		if len(in.Ring) > 0 || in.RunNext != spec.NoG {
			fmt.Fprintf(&b, ", q%d=%v", i, spec.LocalQueue{Cap: s.Cap, RunNext: in.RunNext, Ring: in.Ring})
		}
	}
	b.WriteString(")")
	for i, a := range s.Actors {
		fmt.Fprintf(&b, "; %d %s:", i, a.Name)
		for j, c := range a.Script {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString(" " + c.describe(a.Queue))
		}
	}
	return b.String()
}
