package interleave

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// ErrNoHooks is returned when the binary was built without -tags
// gmpcheck_hooks, so the queue code has no yield points to control.
var ErrNoHooks = errors.New("interleave: the run queues' yield points are compiled out of this binary; build or test with -tags gmpcheck_hooks")

// GlobalObj is the Obj of a Step that acquires the global queue's lock.
const GlobalObj = -1

// Step is one atomic step of an execution: Actor performs the access Op on
// queue Obj that it was paused before, then runs on, without touching shared
// memory, to its next yield point or to the end of its script.
type Step struct {
	Actor int
	Call  int // the call the access belongs to: its index among the actor's calls (-1 for a Join)
	Op    impl.Op
	Obj   int // queue index, or GlobalObj
}

// CallRecord is one call of a script as it happened: what it returned, and
// the positions in Execution.Steps of its first and last atomic access,
// which bound its linearization point.
type CallRecord struct {
	Actor int
	Index int // among the actor's calls, in the order it made them
	Call  Call
	Own   int // the actor's queue
	First int
	Last  int
	Done  bool // it returned (false if the execution was cut or panicked)

	G       spec.GID   // Get, Steal, StealNext: the G returned (NoG for none)
	Inherit bool       // Get: inheritTime
	Gs      []spec.GID // Drain: the Gs, in order
	Empty   bool       // Empty: the answer
	// Batch is, for Steal and StealNext, every G the steal took from the
	// victim, head first: those it published on the thief's ring, then G.
	Batch []spec.GID
}

// ActorPanic is a panic raised in an actor, by the queue code or the
// scenario.
type ActorPanic struct {
	Actor int
	Value string
	Stack string
}

// Execution is one run of a scenario under one schedule.
type Execution struct {
	Scenario *Scenario
	Steps    []Step
	// Enabled[i] is the set of actors (bit per actor) that could have taken
	// step i: those not finished and not waiting in a Join.
	Enabled []uint16
	Calls   []CallRecord // actor by actor, each in the order made

	// Final is every local queue's content after all actors finished, and
	// FinalGlobal the global queue's; valid when Complete.
	Final       []spec.LocalQueue
	FinalGlobal spec.GlobalQueue

	// Pending is, for each actor that had not finished when the execution
	// stopped early, the step it was paused before (Actor -1 for the others).
	Pending []Step

	Complete bool        // every actor finished its script
	Panic    *ActorPanic // the first panic, which ended the execution
	Livelock int         // an actor that ran alone SoloLimit steps without finishing, else -1
	Cut      bool        // stopped at MaxSteps: neither a pass nor a failure
}

// Schedule is the sequence of actors that took the steps.
func (e *Execution) Schedule() Schedule {
	s := make(Schedule, len(e.Steps))
	for i, st := range e.Steps {
		s[i] = st.Actor
	}
	return s
}

// Chooser picks the actor that takes step pos among enabled (a bit per
// actor, never zero); last is the actor that took the previous step (-1 at
// the start). An error ends the execution.
type Chooser func(pos int, enabled uint16, last int) (int, error)

// RunOptions bound one execution.
type RunOptions struct {
	// MaxSteps cuts an execution that is still running after this many
	// steps (0: DefaultMaxSteps). A cut execution is inconclusive.
	MaxSteps int
	// SoloLimit is how many steps in a row an actor may take while every
	// other actor has finished (0: DefaultSoloLimit). Alone, nothing can
	// change the values it reads, so a correct queue operation finishes in
	// a few dozen steps; one that does not is spinning forever.
	SoloLimit int
	// Backend is the queue code run (nil: impl's Runq and GlobalRunq,
	// which need -tags gmpcheck_hooks).
	Backend Backend

	track *stateTracker // the StateCache reduction's view of the states
}

// Defaults for RunOptions.
const (
	DefaultMaxSteps  = 5000
	DefaultSoloLimit = 500
)

type message struct {
	actor int
	done  bool
	op    impl.Op
	obj   int
	call  int
}

// abortSignal is the panic that unwinds a parked actor when its execution
// ends early. No queue code holds a lock at a yield point, so unwinding
// leaves nothing locked (and the queues are thrown away).
type abortSignal struct{}

type runner struct {
	sc       *Scenario
	b        Backend
	events   chan message
	resume   []chan bool
	running  int   // the actor holding the baton
	cur      []int // per actor: the index of the call it is in (written by the actor)
	records  [][]CallRecord
	panics   []*ActorPanic
	finished []bool // per actor: it has finished (written by the controller)
	fresh    []int  // per actor: the fresh Gs it has put
}

// choice is the explorer's richer Chooser: it also sees the step each actor
// is paused before (Actor -1 for finished ones).
type choice func(pos int, enabled uint16, last int, pending []Step) (int, error)

// Run executes sc once, asking choose who takes each step.
func Run(sc *Scenario, choose Chooser, opt RunOptions) (*Execution, error) {
	return run(sc, func(pos int, enabled uint16, last int, _ []Step) (int, error) { return choose(pos, enabled, last) }, opt)
}

func run(sc *Scenario, choose choice, opt RunOptions) (*Execution, error) {
	if opt.Backend == nil && !impl.HooksEnabled() {
		return nil, ErrNoHooks
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = DefaultMaxSteps
	}
	if opt.SoloLimit <= 0 {
		opt.SoloLimit = DefaultSoloLimit
	}
	r, err := newRunner(sc, opt.Backend)
	if err != nil {
		return nil, err
	}
	return r.run(choose, opt)
}

func newRunner(sc *Scenario, b Backend) (*runner, error) {
	if b == nil {
		b = &implBackend{}
	}
	n := len(sc.Actors)
	r := &runner{
		sc:       sc,
		b:        b,
		events:   make(chan message),
		resume:   make([]chan bool, n),
		cur:      make([]int, n),
		records:  make([][]CallRecord, n),
		panics:   make([]*ActorPanic, n),
		finished: make([]bool, n),
		fresh:    make([]int, n),
	}
	if err := b.Reset(sc.Queues, sc.Cap); err != nil {
		return nil, err
	}
	// Fill the queues before the yield points are installed: the initial
	// state is not part of the interleaving.
	for i, in := range sc.Init {
		for _, g := range in.Ring {
			b.Put(i, g, false)
		}
		if in.RunNext != spec.NoG {
			b.Put(i, in.RunNext, true)
		}
	}
	for _, g := range sc.Global {
		b.GlobalPut(g)
	}
	if err := b.SetYield(r.yield); err != nil {
		return nil, err
	}
	for i := range sc.Actors {
		r.resume[i] = make(chan bool)
	}
	return r, nil
}

// yield runs on the actor holding the baton: it reports the access it is
// about to make and parks until the controller picks it again.
func (r *runner) yield(op impl.Op, obj int) {
	a := r.running
	r.events <- message{actor: a, op: op, obj: obj, call: r.cur[a]}
	if !<-r.resume[a] {
		panic(abortSignal{})
	}
}

func (r *runner) actor(a int) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(abortSignal); !ok {
				r.panics[a] = &ActorPanic{Actor: a, Value: fmt.Sprint(v), Stack: string(debug.Stack())}
			}
		}
		r.events <- message{actor: a, done: true}
	}()
	if !<-r.resume[a] {
		return
	}
	r.exec(a, r.sc.Actors[a].Script)
}

// exec runs script as actor a, and reports whether a Return ended it.
func (r *runner) exec(a int, script []Call) bool {
	for _, c := range script {
		switch c.Kind {
		case Loop:
			for round := 1; ; round++ {
				if r.exec(a, c.Body) {
					return true
				}
				if (c.Times > 0 && round >= c.Times) || (c.Cond != 0 && !r.holds(a, c.Cond)) {
					break
				}
				if round >= MaxLoopRounds {
					panic(fmt.Sprintf("scenario %s: a loop of actor %d is still going after %d rounds", r.sc.Name, a, round))
				}
			}
		case If:
			if r.holds(a, c.Cond) && r.exec(a, c.Body) {
				return true
			}
		case Return:
			return true
		case Join:
			r.cur[a] = -1
			r.events <- message{actor: a, op: OpJoin, obj: c.Q, call: -1}
			if !<-r.resume[a] {
				panic(abortSignal{})
			}
		default:
			k := len(r.records[a])
			if (c.Kind == Put || c.Kind == PutNext) && c.G == spec.NoG {
				r.fresh[a]++
				c.G = spec.GID(FreshGBase*(a+1) + r.fresh[a])
			}
			r.records[a] = append(r.records[a], CallRecord{Actor: a, Index: k, Call: c, Own: r.sc.Actors[a].Queue, First: -1, Last: -1})
			r.cur[a] = k
			r.perform(&r.records[a][k], c)
		}
	}
	return false
}

// holds reports whether cond holds of actor a's latest queue call.
func (r *runner) holds(a int, cond Cond) bool {
	some := false
	if n := len(r.records[a]); n > 0 {
		switch c := &r.records[a][n-1]; c.Call.Kind {
		case Get, Steal, StealNext:
			some = c.G != spec.NoG
		case Drain:
			some = len(c.Gs) > 0
		case Empty:
			some = !c.Empty
		}
	}
	return some == (cond == Some)
}

func gid(g *impl.G) spec.GID {
	if g == nil {
		return spec.NoG
	}
	return spec.GID(g.ID())
}

func (r *runner) perform(rec *CallRecord, c Call) {
	own := rec.Own
	switch c.Kind {
	case Put, PutNext:
		r.b.Put(own, c.G, c.Kind == PutNext)
	case Get:
		rec.G, rec.Inherit = r.b.Get(own)
	case Drain:
		rec.Gs = append(rec.Gs, r.b.Drain(own)...)
	case Steal, StealNext:
		// The Gs published on the thief's ring are those there after the
		// steal and not before. Reading the ring without yield points is
		// safe here, before the steal's first atomic step and after its
		// last: this actor holds the baton, so every other one is parked.
		// (A chained thief may take Gs that were there before, never the
		// ones published by the steal's last step.)
		before := map[spec.GID]bool{}
		_, ring := r.b.Contents(own)
		for _, g := range ring {
			before[g] = true
		}
		rec.G = r.b.Steal(own, c.Q, c.Kind == StealNext)
		if rec.G != spec.NoG {
			_, ring = r.b.Contents(own)
			for _, g := range ring {
				if !before[g] {
					rec.Batch = append(rec.Batch, g)
				}
			}
			rec.Batch = append(rec.Batch, rec.G)
		}
	case Empty:
		rec.Empty = r.b.Empty(c.Q)
	}
	rec.Done = true
}

func (r *runner) run(choose choice, opt RunOptions) (*Execution, error) {
	n := len(r.sc.Actors)
	ex := &Execution{Scenario: r.sc, Livelock: -1}
	pending := make([]message, n)
	var done uint16
	// receive takes the message of the actor that holds the baton.
	receive := func() {
		m := <-r.events
		if m.done {
			done |= 1 << m.actor
			r.finished[m.actor] = true
		}
		pending[m.actor] = m
	}
	all := uint16(1)<<n - 1
	steps := make([]Step, n)
	pendingSteps := func() []Step {
		for a, m := range pending {
			steps[a] = Step{Actor: -1}
			if done&(1<<a) == 0 {
				steps[a] = Step{Actor: a, Call: m.call, Op: m.op, Obj: m.obj}
			}
		}
		return steps
	}
	abort := func() {
		ex.Pending = slices.Clone(pendingSteps())
		for a := range n {
			if done&(1<<a) == 0 {
				r.running = a
				r.resume[a] <- false
				receive()
			}
		}
	}
	for a := range n {
		go r.actor(a)
	}
	// Run every actor to its first yield point: what comes before is local.
	for a := range n {
		r.running = a
		r.resume[a] <- true
		receive()
	}
	track := opt.track
	if track != nil {
		mem, ok := r.b.(memoryReader)
		if !ok {
			abort()
			return ex, fmt.Errorf("interleave: backend %T cannot show its memory", r.b)
		}
		track.mem = mem
		track.start(r)
	}
	var err error
	last, solo := -1, 0
	for pos := 0; ; pos++ {
		if p := r.firstPanic(); p != nil {
			ex.Panic = p
			abort()
			break
		}
		enabled := all &^ done
		for a, m := range pending {
			if enabled&(1<<a) != 0 && m.op == OpJoin && done&(1<<m.obj) == 0 {
				enabled &^= 1 << a // waiting for an actor that has not finished
			}
		}
		if done == all {
			ex.Complete = true
			break
		}
		if enabled == 0 {
			abort()
			err = fmt.Errorf("interleave: scenario %s: every actor left waits in a join", r.sc.Name)
			break
		}
		if pos >= opt.MaxSteps {
			ex.Cut = true
			abort()
			break
		}
		var p int
		p, err = choose(pos, enabled, last, pendingSteps())
		if err == nil && (p < 0 || p >= n || enabled&(1<<p) == 0) {
			err = fmt.Errorf("interleave: step %d: actor %d cannot move (runnable: %s)", pos, p, maskString(enabled))
		}
		if err != nil {
			abort()
			break
		}
		if enabled == 1<<p && p == last {
			solo++
			if solo >= opt.SoloLimit {
				ex.Livelock = p
				abort()
				break
			}
		} else {
			solo = 0
		}
		m := pending[p]
		ex.Steps = append(ex.Steps, Step{Actor: p, Call: m.call, Op: m.op, Obj: m.obj})
		ex.Enabled = append(ex.Enabled, enabled)
		if m.call >= 0 {
			rec := &r.records[p][m.call]
			if rec.First < 0 {
				rec.First = pos
			}
			rec.Last = pos
		}
		if track != nil {
			track.before(p, m)
		}
		r.running = p
		r.resume[p] <- true
		receive()
		if track != nil {
			track.after(r, p)
		}
		last = p
	}
	for a := range n {
		ex.Calls = append(ex.Calls, r.records[a]...)
	}
	if err != nil {
		return ex, err
	}
	if ex.Complete {
		for q := range r.sc.Queues {
			next, ring := r.b.Contents(q)
			ex.Final = append(ex.Final, spec.LocalQueue{Cap: r.sc.Cap, RunNext: next, Ring: ring})
		}
		ex.FinalGlobal.Gs = r.b.GlobalContents()
	}
	return ex, nil
}

func (r *runner) firstPanic() *ActorPanic {
	for _, p := range r.panics {
		if p != nil {
			return p
		}
	}
	return nil
}

func maskString(m uint16) string {
	s := "{"
	for a := range MaxActors {
		if m&(1<<a) != 0 {
			if len(s) > 1 {
				s += ","
			}
			s += fmt.Sprint(a)
		}
	}
	return s + "}"
}
