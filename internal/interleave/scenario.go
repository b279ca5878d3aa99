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

	// The control-flow kinds, which make no queue call themselves, so
	// that loom's tests can be written as they are.

	// Loop runs Body Times times, or, with a Cond, again after each round
	// while Cond holds (at most Times rounds if Times > 0, and at most
	// MaxLoopRounds).
	Loop
	// If runs Body when Cond holds.
	If
	// Return ends the actor's script (from inside a Loop or an If too).
	Return
	// Join waits until actor Q has finished its script (a thread's join):
	// what follows runs after everything that actor did.
	Join
)

// Cond is a condition on the result of the actor's latest queue call.
type Cond uint8

const (
	// Some: the latest call got something: a get or steal returned a G, a
	// drain a non-empty batch, or runqempty said the queue was not empty.
	Some Cond = iota + 1
	// None is the opposite of Some (also true before the first call).
	None
)

func (c Cond) String() string {
	switch c {
	case Some:
		return "some"
	case None:
		return "none"
	}
	return fmt.Sprintf("Cond(%d)", uint8(c))
}

// MaxLoopRounds bounds a Loop with a Cond: a scenario whose loop is still
// going after that many rounds panics (a scenario error, reported as the
// execution's panic).
const MaxLoopRounds = 100

// FreshGBase: a Put or PutNext with G 0 puts a new G, the k-th of actor a
// (k from 1) being FreshGBase*(a+1)+k, the same in every execution (as
// loom's tests make a new task in each round of a loop). Explicit Gs must
// be below FreshGBase.
const FreshGBase = 1000

var callNames = [...]string{Put: "put", PutNext: "put-next", Get: "get", Drain: "drain", Steal: "steal", StealNext: "steal-next", Empty: "empty",
	Loop: "loop", If: "if", Return: "return", Join: "join"}

func (k CallKind) String() string {
	if int(k) < len(callNames) && callNames[k] != "" {
		return callNames[k]
	}
	return fmt.Sprintf("CallKind(%d)", uint8(k))
}

// ownerOnly reports whether the call acts on the caller's own queue as its
// owner (only the owning P may put, get and drain).
func (k CallKind) ownerOnly() bool { return k == Put || k == PutNext || k == Get || k == Drain }

// Call is one scripted queue operation, or a control-flow step (Loop, If,
// Return, Join) of the script.
type Call struct {
	Kind CallKind
	G    spec.GID // the G put, for Put and PutNext (0: a fresh G, see FreshGBase)
	Q    int      // the victim of Steal/StealNext, the queue read by Empty, the actor a Join waits for

	Times int    // Loop: the number of rounds (with Cond: the most)
	Cond  Cond   // Loop: go on while it holds; If: run Body when it holds
	Body  []Call // Loop, If
}

// Rounds is a Loop of body run n times.
func Rounds(n int, body ...Call) Call { return Call{Kind: Loop, Times: n, Body: body} }

// While is a Loop of body run again while the latest call got something
// (Cond Some): loom's `while local.pop().is_some() {}` is While(Call{Kind: Get}).
func While(body ...Call) Call { return Call{Kind: Loop, Cond: Some, Body: body} }

// IfNone is an If that runs body when the latest call got nothing.
func IfNone(body ...Call) Call { return Call{Kind: If, Cond: None, Body: body} }

func (c Call) describe(own int) string {
	switch c.Kind {
	case Put, PutNext:
		if c.G == spec.NoG {
			return fmt.Sprintf("%v a new g on q%d", c.Kind, own)
		}
		return fmt.Sprintf("%v g%d on q%d", c.Kind, c.G, own)
	case Get, Drain:
		return fmt.Sprintf("%v q%d", c.Kind, own)
	case Steal, StealNext:
		return fmt.Sprintf("%v q%d->q%d", c.Kind, c.Q, own)
	case Empty:
		return fmt.Sprintf("empty q%d", c.Q)
	case Loop:
		var head string
		switch {
		case c.Cond != 0 && c.Times > 0:
			head = fmt.Sprintf("loop while %v (at most %d)", c.Cond, c.Times)
		case c.Cond != 0:
			head = fmt.Sprintf("loop while %v", c.Cond)
		default:
			head = fmt.Sprintf("loop %d times", c.Times)
		}
		return head + " {" + describeScript(c.Body, own) + " }"
	case If:
		return fmt.Sprintf("if %v {%s }", c.Cond, describeScript(c.Body, own))
	case Join:
		return fmt.Sprintf("join actor %d", c.Q)
	}
	return c.Kind.String()
}

func describeScript(script []Call, own int) string {
	var b strings.Builder
	for j, c := range script {
		if j > 0 {
			b.WriteString(",")
		}
		b.WriteString(" " + c.describe(own))
	}
	return b.String()
}

// walk calls f on every call of script, those in bodies too, with the
// number of enclosing loops.
func walk(script []Call, loops int, f func(c Call, loops int)) {
	for _, c := range script {
		f(c, loops)
		if c.Kind == Loop {
			walk(c.Body, loops+1, f)
		} else {
			walk(c.Body, loops, f)
		}
	}
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
		walk(a.Script, 0, func(c Call, _ int) {
			if (c.Kind == Put || c.Kind == PutNext) && c.G != spec.NoG {
				out = append(out, c.G)
			}
		})
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
		if g <= spec.NoG || g >= FreshGBase {
			return fmt.Errorf("scenario %s: G id %d, want 1..%d", s.Name, g, FreshGBase-1)
		}
		if seen[g] {
			return fmt.Errorf("scenario %s: g%d appears twice", s.Name, g)
		}
		seen[g] = true
	}
	owner := map[int]string{}
	joins := make([][]int, len(s.Actors))
	for i, a := range s.Actors {
		if len(a.Script) == 0 {
			return fmt.Errorf("scenario %s: actor %s has an empty script", s.Name, a.Name)
		}
		var bad error
		walk(a.Script, 0, func(c Call, loops int) {
			if bad != nil {
				return
			}
			bad = s.validateCall(a, i, c, loops)
			if c.Kind == Join {
				joins[i] = append(joins[i], c.Q)
			}
		})
		if bad != nil {
			return bad
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
	}
	// Joins must not wait in a circle.
	state := make([]int, len(s.Actors)) // 0 new, 1 on the path, 2 done
	var visit func(a int) bool
	visit = func(a int) bool {
		state[a] = 1
		for _, b := range joins[a] {
			if state[b] == 1 || (state[b] == 0 && !visit(b)) {
				return false
			}
		}
		state[a] = 2
		return true
	}
	for a := range s.Actors {
		if state[a] == 0 && !visit(a) {
			return fmt.Errorf("scenario %s: actors join each other in a circle (actor %s)", s.Name, s.Actors[a].Name)
		}
	}
	return nil
}

func (s *Scenario) validateCall(a Actor, self int, c Call, loops int) error {
	switch {
	case c.Kind < Put || c.Kind > Join:
		return fmt.Errorf("scenario %s: actor %s: unknown call %v", s.Name, a.Name, c.Kind)
	case (c.Kind.ownerOnly() || c.Kind == Steal || c.Kind == StealNext) && a.Queue < 0:
		return fmt.Errorf("scenario %s: actor %s owns no queue and cannot %v", s.Name, a.Name, c.Kind)
	case (c.Kind == Steal || c.Kind == StealNext || c.Kind == Empty) && (c.Q < 0 || c.Q >= s.Queues):
		return fmt.Errorf("scenario %s: actor %s: %v of q%d of %d queues", s.Name, a.Name, c.Kind, c.Q, s.Queues)
	case (c.Kind == Steal || c.Kind == StealNext) && c.Q == a.Queue:
		return fmt.Errorf("scenario %s: actor %s steals from its own queue", s.Name, a.Name)
	case (c.Kind == Put || c.Kind == PutNext) && c.G != spec.NoG && loops > 0:
		return fmt.Errorf("scenario %s: actor %s puts g%d inside a loop: give G 0 (a fresh G each round)", s.Name, a.Name, c.G)
	case c.Kind == Loop && (c.Times < 0 || (c.Times == 0 && c.Cond == 0)):
		return fmt.Errorf("scenario %s: actor %s: a loop needs Times > 0 or a Cond", s.Name, a.Name)
	case (c.Kind == Loop || c.Kind == If) && len(c.Body) == 0:
		return fmt.Errorf("scenario %s: actor %s: %v with an empty body", s.Name, a.Name, c.Kind)
	case c.Kind == If && c.Cond == 0:
		return fmt.Errorf("scenario %s: actor %s: if without a Cond", s.Name, a.Name)
	case c.Cond > None:
		return fmt.Errorf("scenario %s: actor %s: unknown condition %v", s.Name, a.Name, c.Cond)
	case c.Kind != Loop && c.Kind != If && (len(c.Body) > 0 || c.Cond != 0):
		return fmt.Errorf("scenario %s: actor %s: %v has a body or condition", s.Name, a.Name, c.Kind)
	case c.Kind == Join && (c.Q < 0 || c.Q >= len(s.Actors) || c.Q == self):
		return fmt.Errorf("scenario %s: actor %s joins actor %d (of %d, not itself)", s.Name, a.Name, c.Q, len(s.Actors))
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
		fmt.Fprintf(&b, "; %d %s:%s", i, a.Name, describeScript(a.Script, a.Queue))
	}
	return b.String()
}
