package spec

import (
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
	//
	// A search cut short by a limit (MaxStates, MaxMemory, the context's
	// deadline) still runs them, as TLC checks liveness on the part of the
	// state graph found so far: on the states discovered before the cut,
	// with the edges among them. A violation found there is one of the whole
	// graph (a strongly connected set of discovered states is strongly
	// connected in the whole graph, and a state's enabled actions, which
	// decide fairness and stuttering, are its own); finding none proves
	// nothing about the rest, and the verdict stays incomplete
	// (Result.LivenessPartial). So that the check has time and memory
	// left after a cut, with a deadline the search stops at bfsShare of
	// the time left, and with MaxMemory it stops while the liveness
	// arrays and the next chunk's growth still fit under the bound. For
	// the same reason the search, as it grows, checks liveness on the
	// part found so far (periodicLiveness), and stops at a violation there.
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
	// LocalStarvation adds liveness property (c): no fair behaviour keeps
	// a G in the local run queues (some P's runnext or ring) forever,
	// under the same fairness as (b), time slices included. It is not
	// part of the default checks: Go 1.26 fails it (docs/spec.md).
	LocalStarvation bool
	// Workers is the number of goroutines expanding states (0: GOMAXPROCS),
	// and classifying them and computing their edges for the liveness
	// pass. The search is level-synchronous and merges in the sequential
	// order, so every count and counterexample is the same for any number.
	Workers int
	// Fingerprint keeps a 64-bit fingerprint per state instead of its full
	// key, and the action that reached it instead of a pointer to it (a
	// counterexample is rebuilt by stepping those actions again): 25-35
	// bytes a state on large models against 60-70 for the full keys of
	// the exact set (docs/performance.md); Result.FPCollision bounds the
	// probability that two states were taken for one. Liveness needs the
	// full keys: with Liveness set the search stays exact and says so in
	// Result.Notes.
	Fingerprint bool
	// Symmetry explores the quotient by permutations of M identities
	// (docs/spec.md, "Symmetry"): Distinct counts orbits.
	Symmetry bool
	// GSymmetry permutes G identities as well as M identities. Liveness
	// then checks starvation of some G on the graph of (state, tracked G)
	// pairs, and reports one group for all Gs under All.
	GSymmetry bool
	// PSymmetry permutes P identities as well as M identities (and G
	// identities with GSymmetry): with the idle list in the state the
	// runtime's choices among Ps are symmetric, except where the
	// stop-the-world names Ps by position, so Explore refuses it with
	// Bounds.STW (docs/spec.md, "Ps"). Liveness stays exact: the P
	// families are decided on the lifted component as the M families are.
	PSymmetry bool
	// MaxMemory bounds the explorer's own structures (visited set, queue,
	// parents, liveness arrays) in bytes (0: no bound); past it the run
	// stops, inconclusive, with the counts so far.
	MaxMemory uint64
	// All continues past violations: Result.Violations groups them by
	// property, each with its first (shortest) counterexample, and
	// Result.Violation is the first found, as without All. A state that
	// breaks an invariant is counted but not expanded.
	All bool

	// Knobs for this package's tests, per search rather than package
	// variables so that the tests that turn them run in parallel with the
	// others. oneByOne runs the liveness pass as before its edges were
	// shared: one property after another, each stepping its states as it
	// walks. firstLiveness, if not 0, is the graph size of the first
	// periodic liveness check instead of firstPeriodicLiveness.
	oneByOne      bool
	firstLiveness int
}

// ViolationKind says which check failed.
type ViolationKind uint8

const (
	KindInvariant        ViolationKind = iota + 1 // Check failed
	KindDeadlock                                  // stuck: no action enabled, live Gs not all waiting
	KindStepError                                 // Step failed (e.g. M bound exhausted)
	KindWorkConservation                          // liveness (a)
	KindGlobalStarvation                          // liveness (b)
	KindLocalStarvation                           // liveness (c), Options.LocalStarvation
	KindSTWStuck                                  // liveness (d), Bounds.STW: a stop-the-world that never completes
	KindTimerStuck                                // liveness (e), Bounds.Timers: a due timer that is never run
	KindNetpollUnwatched                          // liveness (f), Bounds.PollBlock: every P idle, a G waits on the network, and nobody polls
)

var kindNames = [...]string{"", "invariant", "deadlock", "step error", "work conservation (lost wakeup)", "global-queue starvation", "local-queue starvation", "stop-the-world never completes", "due timer never runs", "network unwatched"}

func (k ViolationKind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return "ViolationKind(" + strconv.Itoa(int(k)) + ")"
}

// Liveness reports whether the kind is a liveness property, whose
// counterexample is a lasso (or a stutter) rather than a bad last state.
func (k ViolationKind) Liveness() bool {
	switch k {
	case KindWorkConservation, KindGlobalStarvation, KindLocalStarvation, KindSTWStuck, KindTimerStuck, KindNetpollUnwatched:
		return true
	}
	return false
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
	// LivenessPartial: the liveness checks ran on part of the graph: the
	// search was cut short and they ran on the states found before the
	// cut, or a periodic check found Violation and stopped the search
	// (Options.Liveness). With Violation nil that proves nothing about
	// the rest: incomplete.
	LivenessPartial bool
	Violation       *Violation
	Elapsed         time.Duration
	BFSElapsed      time.Duration
	HeapBytes       uint64 // live heap after the search, with its visited set

	Workers     int     // goroutines that expanded states
	Fingerprint bool    // the visited set held fingerprints (Options.Fingerprint, no liveness)
	FPCollision float64 // fingerprint mode: bound on the probability that two states shared a fingerprint
	Symmetry    bool    // states are M-orbits (Options.Symmetry)
	GSymmetry   bool    // states are orbits under M and G permutations
	PSymmetry   bool    // states are orbits under P permutations as well
	MemoryBytes uint64  // peak size of the explorer's own structures
	MemoryCut   bool    // stopped by Options.MaxMemory: inconclusive
	Violations  []ViolationGroup
	Notes       []string // what the options changed (e.g. liveness forced exact mode)

	sharedEdges bool // the liveness pass built its edges once (graph.sharedEdges)
}

// ViolationGroup is one property's violations under Options.All: how many
// states (or transitions, or SCCs) broke it and the first counterexample.
type ViolationGroup struct {
	Kind  ViolationKind
	Inv   int    // invariant number, for KindInvariant
	Key   string // "invariant 3", "deadlock", "step error: ...", "global-queue starvation g2"
	Count int
	First *Violation
}

// BytesPerState is MemoryBytes per distinct state.
func (r Result) BytesPerState() float64 {
	if r.Distinct == 0 {
		return 0
	}
	return float64(r.MemoryBytes) / float64(r.Distinct)
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

// livenessWord is "partial" for liveness run on the part of a cut search,
// else whether the liveness checks ran.
func (r Result) livenessWord() string {
	if r.LivenessPartial {
		return "partial"
	}
	return strconv.FormatBool(r.Liveness)
}

func (r Result) String() string {
	cut := fmt.Sprintf("%d cut by the M bound", r.Pruned)
	switch {
	case r.Pruned > 0 && r.ThreadLimit:
		cut = fmt.Sprintf("%d ending in thread exhaustion at the thread limit Ms=%d", r.Pruned, r.Bounds.Ms)
	case r.LivenessCut():
		cut += ": liveness inconclusive (the runtime would create an M; raise -ms or take it as the thread limit)"
	}
	s := fmt.Sprintf("%s: %d distinct states, %d transitions (%s), depth %d, %d done, %d program deadlocks, liveness=%s, %.2fs (%.0f states/s), heap %.1f MiB",
		r.Verdict(), r.Distinct, r.Transitions, cut, r.Depth, r.Done, r.Deadlocks, r.livenessWord(),
		r.Elapsed.Seconds(), r.StatesPerSec(), float64(r.HeapBytes)/(1<<20))
	s += fmt.Sprintf("; %d workers, %.0f bytes/state", r.Workers, r.BytesPerState())
	switch {
	case r.PSymmetry && r.GSymmetry:
		s += ", M, G and P symmetry (states are orbits)"
	case r.PSymmetry:
		s += ", M and P symmetry (states are orbits)"
	case r.GSymmetry:
		s += ", M and G symmetry (states are orbits)"
	case r.Symmetry:
		s += ", M symmetry (states are orbits)"
	}
	if r.Fingerprint {
		s += fmt.Sprintf(", fingerprints (collision probability <= %.2g)", r.FPCollision)
	}
	if r.MemoryCut {
		s += ", stopped at the memory bound"
	}
	for _, n := range r.Notes {
		s += "; " + n
	}
	return s
}

// graph is the explored state graph: every state's canonical key (or, in
// fingerprint mode, its fingerprint), its BFS parent, and the index from
// key to state number. Edges are recomputed from the keys when needed
// (traces, liveness); for liveness, the search keeps their targets' numbers
// (succ, succlog.go).
type graph struct {
	md     Model
	proto  State
	seen   *visited
	parent blockLog[uint32]
	// act (fingerprint mode only) is, for each state, the index of the
	// action that reached it among its parent's enabled actions (in
	// Enabled order, as the search expanded the parent's representative):
	// one byte a state, where the fingerprint it replaces took eight.
	act blockLog[uint8]
	// succ is, with liveness, the numbers of the expanded states'
	// successors, so that the liveness pass need not look them up.
	succ succLog
	sym  bool
	gsym bool // also G identities (canonMG)
	psym bool // also P identities (canonPFull)
	// sharedEdges: the last liveness pass on the graph built one edge
	// array for all its properties, as it does unless Options.oneByOne;
	// the tests that compare the two ways read it (Result.sharedEdges)
	// to know that oneByOne reached the pass.
	sharedEdges bool
}

// state is state i as stored: its canonical representative. Exact mode only.
func (g *graph) state(i uint32) State { return decodeKey(&g.proto, g.seen.key(i)) }

// stateInto is state into s, which a loop over states reuses (State.decode).
func (g *graph) stateInto(s *State, i uint32) { s.decode(&g.proto, g.seen.key(i)) }

func (g *graph) len() int { return g.seen.len() }

// canonKey appends s's key, canonical under the symmetry in use.
func (g *graph) canonKey(dst []byte, s *State) []byte {
	if g.psym {
		c, _, _, _ := canonPFull(s, g.gsym)
		return c.AppendKey(dst)
	}
	if g.gsym {
		c := canonMG(s)
		return c.AppendKey(dst)
	}
	n := len(dst)
	dst = s.AppendKey(dst)
	if g.sym {
		canonM(dst[n:], s)
	}
	return dst
}

// pathKeys returns the canonical keys of the states on path p: read from
// the set in exact mode; in fingerprint mode rebuilt from the initial
// state by stepping, from each representative, the action that reached
// the next (graph.act), as the search did.
func (g *graph) pathKeys(p []uint32) [][]byte {
	keys := make([][]byte, len(p))
	if !g.seen.fp {
		for i, id := range p {
			keys[i] = g.seen.key(id)
		}
		return keys
	}
	init := g.md.Init()
	keys[0] = g.canonKey(nil, &init)
	var acts []Action
	for i := 1; i < len(p); i++ {
		s := decodeKey(&g.proto, keys[i-1])
		acts = g.md.appendEnabled(acts[:0], &s)
		if _, err := g.md.step(&s, acts[*g.act.at(int(p[i]))]); err != nil {
			panic(fmt.Sprintf("spec: the action that reached state %d no longer steps: %v", p[i], err))
		}
		keys[i] = g.canonKey(nil, &s)
	}
	return keys
}

// Explore runs a breadth-first search over every state reachable from
// Model.Init under the bounds, checking the invariants in each state and
// classifying terminal states; with opt.Liveness it then checks the two
// liveness properties on the graph. The error is non-nil only for invalid
// bounds; a failed check is Result.Violation.
func Explore(ctx context.Context, b Bounds, opt Options) (Result, error) {
	if opt.LocalStarvation && opt.GSymmetry {
		return Result{}, fmt.Errorf("local-queue starvation is a property of one G; it does not go with G symmetry")
	}
	md, err := NewModel(b)
	if err != nil {
		return Result{}, err
	}
	if opt.PSymmetry {
		if err := pSymmetryErr(md.b); err != nil {
			return Result{}, err
		}
	}
	return exploreModel(ctx, md, opt), nil
}

func exploreModel(ctx context.Context, md Model, opt Options) Result {
	start := time.Now()
	var notes []string
	if opt.Fingerprint && opt.Liveness {
		opt.Fingerprint = false
		notes = append(notes, "exact mode: liveness needs every state's full key, fingerprints were not used")
	}
	bfsCtx := ctx
	if dl, ok := ctx.Deadline(); ok && opt.Liveness {
		var cancel context.CancelFunc
		bfsCtx, cancel = context.WithDeadline(ctx, start.Add(time.Duration(float64(dl.Sub(start))*bfsShare)))
		defer cancel()
	}
	g, res := bfs(bfsCtx, md, opt)
	res.Notes = append(notes, res.Notes...)
	res.BFSElapsed = time.Since(start)
	// Cut short by a limit, not a violation nor the caller's own cancel
	// or deadline: liveness on the part found (Options.Liveness).
	partial := !res.Complete && ctx.Err() == nil
	if opt.Liveness && res.Violation == nil && (res.Complete || partial) {
		need := res.MemoryBytes + livenessBytes(g, res.Transitions)
		if opt.MaxMemory > 0 && need > opt.MaxMemory {
			res.Complete = false
			res.MemoryCut = true
			res.Notes = append(res.Notes, fmt.Sprintf("liveness not run: it needs about %d MiB, past -max-memory", need>>20))
		} else {
			res.MemoryBytes = max(res.MemoryBytes, need)
			if opt.Progress != nil {
				what := "the whole graph"
				if partial {
					what = "the part found before the cut"
				}
				fmt.Fprintf(opt.Progress, "explore: liveness on %d states (%s)\n", g.len(), what)
			}
			vs := checkLiveness(ctx, g, res.Workers, opt)
			res.sharedEdges = g.sharedEdges
			if len(vs) > 0 {
				res.Violation = vs[0].First
				if opt.All {
					res.Violations = append(res.Violations, vs...)
				}
			}
			switch {
			case partial:
				res.LivenessPartial = ctx.Err() == nil
				if res.Violation == nil && res.LivenessPartial {
					res.Notes = append(res.Notes, fmt.Sprintf("liveness ran on the %d states found before the cut: no violation among them, which proves nothing about the rest", g.len()))
				}
			case ctx.Err() != nil:
				res.Complete = false
			default:
				res.Liveness = true
			}
		}
	}
	res.Elapsed = time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HeapBytes = ms.HeapAlloc
	runtime.KeepAlive(g)
	return res
}

// bfsShare is the part of the time left that a search with liveness and a
// deadline gives the BFS: if the BFS is cut, the rest is for liveness on
// the part found (Options.Liveness).
const bfsShare = 0.75

// livenessBytes is what the liveness pass adds to the explorer's memory:
// its per-state arrays (bad bits, edge ends), the edges among bad states
// it computes once (liveedges.go; at most one per transition), and the
// Tarjan arrays of each property checked at once (livenessRunners), on
// the pair graph under G symmetry.
func livenessBytes(g *graph, transitions int64) uint64 {
	nodes := uint64(g.len())
	if g.gsym {
		nodes *= uint64(g.proto.nG)
	}
	return 8*uint64(g.len()) + cachedEdgeBytes*uint64(max(transitions, 0)) + livenessRunners*9*nodes
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
		id = *g.parent.at(int(id))
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
		id = *g.parent.at(int(id))
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// edge finds the first enabled action (in Enabled order) leading from state
// `from` to state `to`; with want set, an action of that kind, M and P is
// preferred (a liveness cycle names the edge that makes it fair). Exact
// mode without symmetry (the liveness cycles).
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
		if !bytesEqual(buf, target) {
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

// realPath replays the shortest path to id from Model.Init: at each step
// the first enabled action whose successor is (canonically) the next state
// on the path. The states are the model's own, not canonical
// representatives, so a trace found under symmetry replays with Step.
func (g *graph) realPath(id uint32) (Trace, State) {
	p := g.path(id)
	keys := g.pathKeys(p)
	s := g.md.Init()
	t := Trace{Init: s, Loop: -1}
	var buf []byte
	for i := 1; i < len(p); i++ {
		found := false
		for _, a := range g.md.appendEnabled(nil, &s) {
			ns := s
			if _, err := g.md.step(&ns, a); err != nil {
				continue
			}
			buf = g.canonKey(buf[:0], &ns)
			if bytesEqual(buf, keys[i]) {
				t.Steps = append(t.Steps, TraceStep{a, ns})
				s = ns
				found = true
				break
			}
		}
		if !found {
			panic("spec: no edge between two states of a path")
		}
	}
	return t, s
}

// trace is the shortest path to id followed by the steps of cycle.
func (g *graph) trace(id uint32, cycle []cycleStep) Trace {
	t, _ := g.realPath(id)
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
