package spec

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Options tune one exploration; the zero value checks invariants and
// deadlocks only, without a state limit.
type Options struct {
	// Liveness runs the SCC-based checks of work conservation and global-queue
	// starvation on the explored graph (after the BFS, if it completed without
	// a safety violation).
	Liveness bool
	// MaxStates stops the search after this many distinct states (0: no
	// limit). A search cut short is incomplete, never a pass.
	MaxStates int
	// Progress, if set, receives a line about once a second.
	Progress io.Writer
	// ThreadLimit takes Bounds.Ms as the modelled runtime's thread limit
	// (sched.maxmcount, debug.SetMaxThreads): a startm that needs an M past
	// it is the runtime's fatal "thread exhaustion", which ends the
	// behaviour. Without it the M bound is only the model's, the cut
	// transitions are behaviours of the runtime left unexplored, and a
	// liveness verdict over a cut graph is inconclusive.
	ThreadLimit bool
}

// ViolationKind says which check failed.
type ViolationKind uint8

const (
	KindInvariant        ViolationKind = iota + 1 // Check failed
	KindDeadlock                                  // stuck: no action enabled, live Gs not all waiting
	KindStepError                                 // Step failed (e.g. M bound exhausted)
	KindWorkConservation                          // liveness (a)
	KindGlobalStarvation                          // liveness (b)
)

var kindNames = [...]string{"", "invariant", "deadlock", "step error", "work conservation (lost wakeup)", "global-queue starvation"}

func (k ViolationKind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return "ViolationKind(" + strconv.Itoa(int(k)) + ")"
}

// Violation is a failed check with its counterexample.
type Violation struct {
	Kind   ViolationKind
	Err    error  // the InvariantError or step error, if any
	Detail string // one line: what went wrong
	Trace  Trace
}

func (v *Violation) String() string {
	return fmt.Sprintf("%s: %s\n%s", v.Kind, v.Detail, v.Trace.String())
}

// TraceStep is one action and the state after it.
type TraceStep struct {
	Action Action
	State  State
}

// Trace is a counterexample: the initial state, then one step per action.
// For a liveness violation it is a lasso: Steps[Loop:] is a cycle that
// returns to the state before Steps[Loop] (Loop < 0: no cycle); Stutter means
// the behaviour stays in the last state forever instead.
type Trace struct {
	Init    State
	Steps   []TraceStep
	Loop    int
	Stutter bool
}

// Len is the number of actions in the trace (prefix and cycle).
func (t Trace) Len() int { return len(t.Steps) }

// Actions lists the trace's actions.
func (t Trace) Actions() []Action {
	out := make([]Action, len(t.Steps))
	for i, st := range t.Steps {
		out[i] = st.Action
	}
	return out
}

func indent(s string) string { return "      " + strings.ReplaceAll(s, "\n", "\n      ") }

// String prints the trace action by action with the state after each step.
func (t Trace) String() string {
	var b strings.Builder
	b.WriteString("  initial state:\n" + indent(t.Init.String()) + "\n")
	for i, st := range t.Steps {
		if i == t.Loop {
			b.WriteString("  -- cycle: the steps below repeat forever --\n")
		}
		fmt.Fprintf(&b, "  %2d. %v\n%s\n", i+1, st.Action, indent(st.State.String()))
	}
	if t.Loop >= 0 && t.Loop < len(t.Steps) {
		b.WriteString("  -- back to the state before the cycle --\n")
	}
	if t.Stutter {
		b.WriteString("  -- stays in this state forever: no fair action is enabled --\n")
	}
	return b.String()
}

// Result is the outcome of Explore.
type Result struct {
	Bounds      Bounds
	Distinct    int   // distinct reachable states visited
	Transitions int64 // (state, enabled action) pairs stepped
	Depth       int   // BFS depth of the deepest state
	Done        int   // terminal states where every G has exited
	Deadlocks   int   // terminal states where live Gs all wait (program deadlock, netpoll off)
	// Pruned counts (state, action) pairs cut because startm found no idle
	// M and the runtime would have created one (newm) past the Ms bound.
	// MLimited counts states whose every action was cut. No finite Ms bound
	// avoids cuts once Ps >= 2 (docs/spec.md, "M creation").
	Pruned      int64
	MLimited    int
	ThreadLimit bool // Options.ThreadLimit: the cuts are the runtime's thread exhaustion
	Complete    bool // the whole reachable graph was explored (no limit, no cancel, no violation)
	Liveness    bool // the liveness checks ran (and passed, if Violation is nil)
	Violation   *Violation
	Elapsed     time.Duration
	BFSElapsed  time.Duration
	HeapBytes   uint64 // live heap after the search, with its visited set
}

// StatesPerSec is the BFS rate in distinct states per second.
func (r Result) StatesPerSec() float64 {
	if r.BFSElapsed <= 0 {
		return 0
	}
	return float64(r.Distinct) / r.BFSElapsed.Seconds()
}

// Verdict is "pass", "fail" or "incomplete". A liveness pass over a graph
// cut by the M bound is incomplete unless the bound is the modelled
// runtime's thread limit: a lost wakeup that needs one more M could hide in
// the cut part.
func (r Result) Verdict() string {
	switch {
	case r.Violation != nil:
		return "fail"
	case !r.Complete, r.LivenessCut():
		return "incomplete"
	}
	return "pass"
}

// LivenessCut reports a liveness check that found no violation on a graph
// that the M bound cut (and ThreadLimit is off): inconclusive.
func (r Result) LivenessCut() bool {
	return r.Liveness && r.Violation == nil && r.Pruned > 0 && !r.ThreadLimit
}

func (r Result) String() string {
	cut := fmt.Sprintf("%d cut by the M bound", r.Pruned)
	switch {
	case r.Pruned > 0 && r.ThreadLimit:
		cut = fmt.Sprintf("%d ending in thread exhaustion at the thread limit Ms=%d", r.Pruned, r.Bounds.Ms)
	case r.LivenessCut():
		cut += ": liveness inconclusive (the runtime would create an M; raise -ms or take it as the thread limit)"
	}
	return fmt.Sprintf("%s: %d distinct states, %d transitions (%s), depth %d, %d done, %d program deadlocks, liveness=%v, %.2fs (%.0f states/s), heap %.1f MiB",
		r.Verdict(), r.Distinct, r.Transitions, cut, r.Depth, r.Done, r.Deadlocks, r.Liveness,
		r.Elapsed.Seconds(), r.StatesPerSec(), float64(r.HeapBytes)/(1<<20))
}

// graph is the explored state graph: every state's canonical key, its BFS
// parent, and the index from key to state number. Edges are not stored; they
// are recomputed from the keys when needed (traces, liveness).
type graph struct {
	md     Model
	proto  State
	seen   *visited
	parent []uint32
}

func (g *graph) state(i uint32) State { return decodeKey(&g.proto, g.seen.key(i)) }

func (g *graph) len() int { return g.seen.len() }

// Explore runs a breadth-first search over every state reachable from
// Model.Init under the bounds, checking the invariants in each state and
// classifying terminal states; with opt.Liveness it then checks the two
// liveness properties on the graph. The error is non-nil only for invalid
// bounds; a failed check is Result.Violation.
func Explore(ctx context.Context, b Bounds, opt Options) (Result, error) {
	md, err := NewModel(b)
	if err != nil {
		return Result{}, err
	}
	return exploreModel(ctx, md, opt), nil
}

func exploreModel(ctx context.Context, md Model, opt Options) Result {
	start := time.Now()
	g, res := bfs(ctx, md, opt)
	res.BFSElapsed = time.Since(start)
	if opt.Liveness && res.Complete && res.Violation == nil {
		if v := checkLiveness(ctx, g); v != nil {
			res.Violation = v
		}
		res.Liveness = ctx.Err() == nil
		if ctx.Err() != nil {
			res.Complete = false
		}
	}
	res.Elapsed = time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HeapBytes = ms.HeapAlloc
	runtime.KeepAlive(g)
	return res
}

func bfs(ctx context.Context, md Model, opt Options) (*graph, Result) {
	res := Result{Bounds: md.b, ThreadLimit: opt.ThreadLimit}
	init := md.Init()
	g := &graph{md: md, proto: init, seen: newVisited()}
	g.seen.lookupOrInsert(init.AppendKey(nil))
	g.parent = append(g.parent, 0)
	if err := md.check(&init); err != nil {
		res.Distinct = 1
		res.Violation = &Violation{Kind: KindInvariant, Err: err, Detail: err.Error(), Trace: g.trace(0, nil)}
		return g, res
	}
	var (
		acts      []Action
		buf       []byte
		levelEnd  = 1
		lastPrint = time.Now()
	)
	for i := 0; i < g.len(); i++ {
		if i == levelEnd {
			res.Depth++
			levelEnd = g.len()
		}
		if i&4095 == 0 {
			if ctx.Err() != nil {
				res.Distinct = g.len()
				return g, res
			}
			if opt.Progress != nil && time.Since(lastPrint) > time.Second {
				lastPrint = time.Now()
				fmt.Fprintf(opt.Progress, "explore: %d states, %d queued, depth %d\n", g.len(), g.len()-i, res.Depth)
			}
		}
		s := g.state(uint32(i))
		acts = md.appendEnabled(acts[:0], &s)
		if len(acts) == 0 {
			switch terminalKind(&md, &s) {
			case termDone:
				res.Done++
			case termProgramDeadlock:
				res.Deadlocks++
			default:
				res.Distinct = g.len()
				res.Violation = &Violation{Kind: KindDeadlock,
					Detail: "no action is enabled but runnable or running Gs remain (stuck scheduler)",
					Trace:  g.trace(uint32(i), nil)}
				res.Violation.Trace.Stutter = true
				return g, res
			}
			continue
		}
		taken := 0
		for _, a := range acts {
			ns := s
			_, err := md.step(&ns, a)
			if err == ErrNoIdleM {
				res.Pruned++
				continue
			}
			taken++
			res.Transitions++
			if err != nil {
				res.Distinct = g.len()
				t := g.trace(uint32(i), nil)
				t.Steps = append(t.Steps, TraceStep{a, ns})
				res.Violation = &Violation{Kind: KindStepError, Err: err, Detail: err.Error(), Trace: t}
				return g, res
			}
			buf = ns.AppendKey(buf[:0])
			if g.seen.full(len(buf)) {
				res.Distinct = g.len()
				return g, res
			}
			id, isNew := g.seen.lookupOrInsert(buf)
			if !isNew {
				continue
			}
			g.parent = append(g.parent, uint32(i))
			if err := md.check(&ns); err != nil {
				res.Distinct = g.len()
				res.Depth = g.depth(id)
				res.Violation = &Violation{Kind: KindInvariant, Err: err, Detail: err.Error(), Trace: g.trace(id, nil)}
				return g, res
			}
		}
		if taken == 0 {
			res.MLimited++
		}
		if opt.MaxStates > 0 && g.len() >= opt.MaxStates {
			res.Distinct = g.len()
			return g, res
		}
	}
	res.Distinct = g.len()
	res.Complete = true
	return g, res
}

type terminal uint8

const (
	termDone terminal = iota
	termProgramDeadlock
	termStuck
)

// terminalKind classifies a state with no enabled action.
func terminalKind(md *Model, s *State) terminal {
	live, waiting := 0, 0
	for g := 1; g <= int(s.nG); g++ {
		switch s.G[g] {
		case GIdle, GDead:
		case GWaiting:
			live++
			waiting++
		default:
			live++
		}
	}
	switch {
	case live == 0:
		return termDone
	case live == waiting && !md.b.Netpoll:
		return termProgramDeadlock
	}
	return termStuck
}

func (g *graph) depth(id uint32) int {
	d := 0
	for id != 0 {
		id = g.parent[id]
		d++
	}
	return d
}

// path returns the state numbers from the initial state to id.
func (g *graph) path(id uint32) []uint32 {
	var rev []uint32
	for {
		rev = append(rev, id)
		if id == 0 {
			break
		}
		id = g.parent[id]
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// edge finds the first enabled action (in Enabled order) leading from state
// `from` to state `to`; with want set, an action of that kind, M and P is
// preferred (a liveness cycle names the edge that makes it fair).
func (g *graph) edge(from, to uint32, want *Action) (Action, State) {
	s := g.state(from)
	target := g.seen.key(to)
	var buf []byte
	var first *TraceStep
	for _, a := range g.md.appendEnabled(nil, &s) {
		ns := s
		if _, err := g.md.step(&ns, a); err != nil {
			continue
		}
		buf = ns.AppendKey(buf[:0])
		if !bytes.Equal(buf, target) {
			continue
		}
		if want == nil || (a.Kind == want.Kind && a.M == want.M && a.P == want.P) {
			return a, ns
		}
		if first == nil {
			first = &TraceStep{a, ns}
		}
	}
	if first != nil {
		return first.Action, first.State
	}
	panic("spec: no edge between two states of a path")
}

// cycleStep is one step of a liveness cycle: the state reached and,
// optionally, the action that must be shown.
type cycleStep struct {
	to   uint32
	want *Action
}

// trace is the shortest path to id followed by the steps of cycle.
func (g *graph) trace(id uint32, cycle []cycleStep) Trace {
	p := g.path(id)
	t := Trace{Init: g.state(0), Loop: -1}
	for i := 1; i < len(p); i++ {
		a, s := g.edge(p[i-1], p[i], nil)
		t.Steps = append(t.Steps, TraceStep{a, s})
	}
	if len(cycle) > 0 {
		t.Loop = len(t.Steps)
		prev := id
		for _, c := range cycle {
			a, s := g.edge(prev, c.to, c.want)
			t.Steps = append(t.Steps, TraceStep{a, s})
			prev = c.to
		}
	}
	return t
}
