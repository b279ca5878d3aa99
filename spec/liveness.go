package spec

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// Liveness is checked on the explored graph: a property fails when some
// strongly connected component of the states where it is "bad" admits a fair
// infinite behaviour (docs/spec.md, "Liveness"). Fairness is checked per SCC,
// which is exact for weak fairness: a cycle through every state and edge of
// the SCC exists, and it is fair iff each fairness family is either disabled
// in some state of the SCC or taken by some edge inside it.
//
// Families:
//   - M(m): the schedule-loop steps of M m, enabled while m is anywhere in
//     findRunnable, its no-P recheck, stopm or exitsyscallNoP's lock section
//     (every PC but Idle and Run), or in wakep (whatever its PC);
//   - Retake(p): sysmon's untimed retake of P p, and then its handoffp
//     (RetakeHandoff), the one step of sysmon enabled while it holds p;
//   - Slice(p), for the starvation property only: a P that is never idle must
//     start a fresh time slice (an execute that increments schedtick) or be
//     preempted.
//
// A single state with no edge inside its component is a stutter: it is a fair
// behaviour when no family is enabled there.

type livenessProp struct {
	kind  ViolationKind
	g     GID // the starving G, for KindGlobalStarvation
	slice bool
	pair  bool // any G, on the pair graph (G symmetry)
	// quietNet leaves the network's readiness out of the behaviours
	// (liveness (e)): the network eventually goes quiet.
	quietNet bool
}

type liveEdge struct {
	to     uint32
	kind   ActionKind
	m, p   int8
	freshP int8
}

// liveGraph is what every property's pass shares: the graph, each
// state's bad bits (classify) and the edges among bad states (buildEdges).
// It is read only once built, so the runners share one.
type liveGraph struct {
	g        *graph
	bad      []uint32 // bit 0: work-conservation bad; bit g: g in sched.runq; bit 8+g: g in a P's local queue
	nG       uint32
	countAll bool // evaluate every SCC, to count them (Options.All)
	// edges are the edges among bad states, computed once for every
	// property (liveedges.go); nil: succ steps the states itself.
	edges *liveEdges
}

// livenessChecker is one runner's pass over the shared liveGraph: the
// property it checks and its own Tarjan arrays.
type livenessChecker struct {
	*liveGraph
	prop livenessProp
	bit  uint32
	// Tarjan
	index, low []int32
	onStack    []bool
	stack      []uint32
	counter    int32
	best       *sccViolation
	pairBase   uint32 // in pair mode, bit pairBase+g of bad is the tracked G's
	count      int    // violating SCCs of the current property
	// edgeStack holds the successors of the nodes on Tarjan's call
	// stack, each frame's back to back: a slice per node, with a map
	// per component in evaluate, was a sixth of the walk's CPU, in
	// allocation. s and succs are evaluate's, reused.
	edgeStack []liveEdge
	s         State
	succs     []liveEdge
}

type sccViolation struct {
	entry   uint32
	members []uint32
	stutter bool
}

// workStarved: some G runnable, some P idle, no M spinning, no M in the no-P
// recheck (which will look at every source of work again).
func workStarved(s *State) bool {
	runnable := false
	for g := 1; g <= int(s.nG); g++ {
		if s.G[g] == GRunnable {
			runnable = true
			break
		}
	}
	if !runnable {
		return false
	}
	idle := false
	for p := 0; p < int(s.nP); p++ {
		if s.P[p].Status == PIdle {
			idle = true
			break
		}
	}
	if !idle {
		return false
	}
	for m := 0; m < int(s.nM); m++ {
		if s.M[m].Spinning || s.M[m].PC.rechecking() {
			return false
		}
	}
	return true
}

// classify sets each state's bad bits, one per property (and per G), on
// the search's workers (Options.Workers), each a contiguous range of
// states (the arena is only read). It reports false if ctx ended first: a
// cut search's liveness pass runs under the caller's deadline.
func (lg *liveGraph) classify(ctx context.Context, workers int) bool {
	g := lg.g
	n := len(lg.bad)
	w, per := stateRanges(n, workers)
	inRanges(n, w, per, func(_, lo, hi int) {
		var s State
		for i := lo; i < hi; i++ {
			if i&0xffff == 0 && ctx.Err() != nil {
				return
			}
			g.stateInto(&s, uint32(i))
			var b uint32
			if workStarved(&s) {
				b |= 1
			}
			for j := 0; j < int(s.Runq.N); j++ {
				b |= 1 << s.Runq.Gs[j]
			}
			for p := 0; p < int(s.nP); p++ {
				ps := &s.P[p]
				if ps.RunNext != NoG {
					b |= 1 << (localBit + ps.RunNext)
				}
				for j := 0; j < int(ps.N); j++ {
					b |= 1 << (localBit + ps.Ring[j])
				}
			}
			if s.GCWaiting {
				b |= 1 << stwBit
			}
			if s.timers {
				for x := 1; x <= int(s.nG); x++ {
					if s.TimerP[x] != 0 && s.TimerWhen[x] == 0 {
						b |= 1 << (timerBit + x) // x's timer is due, not yet run
					}
				}
			}
			if s.poll && netpollUnwatched(&s) {
				b |= 1 << netpollBit
			}
			lg.bad[i] = b
		}
	})
	return ctx.Err() == nil
}

// stateRanges splits the states [0, n) among the workers: w contiguous
// ranges of per states (the last one shorter), at least 4096 states each.
func stateRanges(n, workers int) (w, per int) {
	w = max(1, min(workers, n/4096))
	return w, (n + w - 1) / w
}

// inRanges runs f on each of stateRanges' w ranges, each on its own
// goroutine, and waits for them.
func inRanges(n, w, per int, f func(k, lo, hi int)) {
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k, k*per, min((k+1)*per, n))
		}()
	}
	wg.Wait()
}

// checkLiveness checks every property; it returns the first violation or,
// with all, one group per violated property.
// timersQuietNet is liveness (e)'s assumption that the network eventually
// stops readying Gs (docs/spec.md, "Liveness"); a test turns it off to
// show that Go 1.26 needs it.
var timersQuietNet = true

// symCheckHook, set by a test, sees every component of representatives
// whose families were decided on its lift: the families the lift left
// unmet, in the frame of the concrete component of the first member, and
// whether the naive decision in the representatives' own frames found
// every family met.
var symCheckHook func(lc *livenessChecker, members []uint32, member func(*State) bool, unmet [3][]int, naiveFair bool)

// localBit is where the local-starvation bits start in livenessChecker.bad;
// stwBit marks the states of a stop-the-world in progress.
const (
	localBit   = 8
	timerBit   = 17 // + g: g's timer is due and a P could run it (Bounds.Timers)
	netpollBit = 28
	stwBit     = 30
)

func checkLiveness(ctx context.Context, g *graph, workers int, opt Options) []ViolationGroup {
	all, local := opt.All, opt.LocalStarvation
	n := g.len()
	lg := &liveGraph{g: g, bad: make([]uint32, n), countAll: all}
	if !lg.classify(ctx, workers) {
		return nil
	}
	lg.nG = uint32(g.proto.nG)

	// Without asynchronous preemption (Go113) a P owes its queues no
	// fresh time slice: its G may loop without calls forever.
	slice := g.md.b.asyncPreempt()
	props := []livenessProp{{kind: KindWorkConservation}}
	if g.md.b.STW {
		props = append(props, livenessProp{kind: KindSTWStuck})
	}
	if g.md.b.Timers > 0 {
		if g.gsym {
			props = append(props, livenessProp{kind: KindTimerStuck, slice: slice, pair: true, quietNet: timersQuietNet})
		} else {
			for x := 1; x <= int(g.proto.nG); x++ {
				props = append(props, livenessProp{kind: KindTimerStuck, g: GID(x), slice: slice, quietNet: timersQuietNet})
			}
		}
	}
	if g.md.b.PollBlock {
		props = append(props, livenessProp{kind: KindNetpollUnwatched})
	}
	if g.gsym {
		// Under G symmetry one property: some G stays in sched.runq, on
		// the graph of (representative, tracked G) pairs (symmetry.go).
		props = append(props, livenessProp{kind: KindGlobalStarvation, slice: slice, pair: true})
	} else {
		for x := 1; x <= int(g.proto.nG); x++ {
			props = append(props, livenessProp{kind: KindGlobalStarvation, g: GID(x), slice: slice})
		}
	}
	if local {
		for x := 1; x <= int(g.proto.nG); x++ {
			props = append(props, livenessProp{kind: KindLocalStarvation, g: GID(x), slice: slice})
		}
	}
	g.sharedEdges = !opt.oneByOne
	if !opt.oneByOne {
		lg.edges = lg.buildEdges(ctx, workers, propMask(props, int(lg.nG)))
		if ctx.Err() != nil {
			return nil
		}
	}
	// The properties are independent: each runs its own Tarjan pass, on
	// up to livenessRunners goroutines, each with its own arrays. Their
	// groups are put in the properties' order, and without all the first
	// one alone is kept, as a sequential pass would report it.
	groups := make([]*ViolationGroup, len(props))
	runners := max(1, min(workers, livenessRunners, len(props)))
	if symCheckHook != nil || opt.oneByOne {
		runners = 1 // the test's hook is not safe for concurrent calls
	}
	var next, first atomic.Int64
	first.Store(int64(len(props)))
	var wg sync.WaitGroup
	for r := 0; r < runners; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := &livenessChecker{liveGraph: lg}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(props) || ctx.Err() != nil || (!all && int64(i) > first.Load()) {
					return
				}
				if groups[i] = one.check(ctx, props[i]); groups[i] != nil {
					for {
						f := first.Load()
						if int64(i) >= f || first.CompareAndSwap(f, int64(i)) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	var out []ViolationGroup
	for _, gr := range groups {
		if gr != nil {
			out = append(out, *gr)
			if !all {
				break
			}
		}
	}
	return out
}

// livenessRunners is the most properties checked at once (each holds its
// own Tarjan arrays: livenessBytes counts that many).
const livenessRunners = 2

// check runs one property's pass and returns its group, or nil.
func (lc *livenessChecker) check(ctx context.Context, pr livenessProp) *ViolationGroup {
	nodes := len(lc.bad)
	if pr.pair {
		nodes *= int(lc.nG)
	}
	if len(lc.index) < nodes {
		lc.index = make([]int32, nodes)
		lc.low = make([]int32, nodes)
		lc.onStack = make([]bool, nodes)
	}
	lc.count = 0
	lc.prop = pr
	lc.pairBase = 0
	if pr.kind == KindTimerStuck {
		lc.pairBase = timerBit
	}
	lc.bit = propBit(pr)
	lc.best = nil
	lc.run(ctx)
	if lc.best == nil {
		return nil
	}
	v := lc.violation()
	key := v.Kind.String()
	switch {
	case pr.pair:
		key += " (some G)"
	case pr.kind == KindGlobalStarvation || pr.kind == KindLocalStarvation || pr.kind == KindTimerStuck:
		key += " " + gName(pr.g)
	}
	return &ViolationGroup{Kind: v.Kind, Key: key, Count: lc.count, First: v}
}

// propBit is the bad bit of a property of one G (or none).
func propBit(pr livenessProp) uint32 {
	switch pr.kind {
	case KindGlobalStarvation:
		return 1 << pr.g
	case KindLocalStarvation:
		return 1 << (localBit + pr.g)
	case KindSTWStuck:
		return 1 << stwBit
	case KindTimerStuck:
		return 1 << (timerBit + pr.g)
	case KindNetpollUnwatched:
		return 1 << netpollBit
	}
	return 1
}

// sv is the state of node v; tracked its tracked G in pair mode.
func (lc *livenessChecker) sv(v uint32) uint32 {
	if lc.prop.pair {
		return v / lc.nG
	}
	return v
}

func (lc *livenessChecker) tracked(v uint32) GID { return GID(v%lc.nG + 1) }

// isBad reports whether node v is bad for the current property.
func (lc *livenessChecker) isBad(v uint32) bool {
	if lc.prop.pair {
		return lc.bad[v/lc.nG]&(1<<(lc.pairBase+uint32(lc.tracked(v)))) != 0
	}
	return lc.bad[v]&lc.bit != 0
}

// succ lists the edges from node v into bad nodes of the current property.
func (lc *livenessChecker) succ(v uint32, dst []liveEdge) []liveEdge {
	dst, _ = lc.succP(v, dst, nil)
	return dst
}

// succP is succ, with (if rhos is not nil) each edge's frame, the M
// sorting and (under P symmetry) the P renaming: the successor is rho
// applied to its representative.
func (lc *livenessChecker) succP(v uint32, dst []liveEdge, rhos []symPerm) ([]liveEdge, []symPerm) {
	g := lc.g
	if lc.edges != nil && rhos == nil {
		for _, e := range lc.edges.of(lc.sv(v)) {
			if lc.prop.quietNet && e.kind.netReady() {
				continue
			}
			w := e.to
			if lc.prop.pair {
				w = e.to*lc.nG + uint32(e.labelOf(lc.tracked(v))) - 1
			}
			if lc.isBad(w) {
				dst = append(dst, liveEdge{to: w, kind: e.kind, m: e.m, p: e.p, freshP: e.freshP})
			}
		}
		return dst, rhos
	}
	s := g.state(lc.sv(v))
	var acts []Action
	acts = g.md.appendEnabled(acts, &s)
	var buf []byte
	for _, a := range acts {
		if lc.prop.quietNet && a.Kind.netReady() {
			continue
		}
		ns := s
		info, err := g.md.step(&ns, a)
		if err != nil {
			continue
		}
		var w uint32
		var rho symPerm
		if g.gsym || rhos != nil {
			rep, r, label := g.canon(&ns)
			rho = r
			buf = rep.AppendKey(buf[:0])
			id, ok := g.seen.lookup(buf)
			if !ok {
				continue
			}
			w = id
			if lc.prop.pair {
				w = id*lc.nG + uint32(label[lc.tracked(v)]) - 1
			}
		} else {
			buf = g.canonKey(buf[:0], &ns)
			id, ok := g.seen.lookup(buf)
			if !ok {
				continue
			}
			w = id
		}
		if !lc.isBad(w) {
			continue
		}
		dst = append(dst, liveEdge{to: w, kind: a.Kind, m: a.M, p: a.P, freshP: info.freshP})
		if rhos != nil {
			rhos = append(rhos, rho)
		}
	}
	return dst, rhos
}

// tarjanFrame is a node on Tarjan's call stack: its successors are
// edgeStack[lo:hi], the next to visit at lo+i.
type tarjanFrame struct {
	v      uint32
	lo, hi int
	i      int
}

func (lc *livenessChecker) run(ctx context.Context) {
	for i := range lc.index {
		lc.index[i] = -1
		lc.onStack[i] = false
	}
	lc.counter = 0
	lc.stack = lc.stack[:0]
	lc.edgeStack = lc.edgeStack[:0]
	var frames []tarjanFrame
	push := func(v uint32) {
		lc.index[v] = lc.counter
		lc.low[v] = lc.counter
		lc.counter++
		lc.stack = append(lc.stack, v)
		lc.onStack[v] = true
		lo := len(lc.edgeStack)
		lc.edgeStack = lc.succ(v, lc.edgeStack)
		frames = append(frames, tarjanFrame{v: v, lo: lo, hi: len(lc.edgeStack)})
	}
	nodes := len(lc.bad)
	if lc.prop.pair {
		nodes *= int(lc.nG)
	}
	for r := 0; r < nodes; r++ {
		if !lc.isBad(uint32(r)) || lc.index[r] >= 0 {
			continue
		}
		if r&1023 == 0 && ctx.Err() != nil {
			return
		}
		push(uint32(r))
		for steps := 0; len(frames) > 0; steps++ {
			if steps&0x1fff == 0x1fff && ctx.Err() != nil {
				return // one search from a root can cover the whole bad graph
			}
			f := &frames[len(frames)-1]
			if f.lo+f.i < f.hi {
				w := lc.edgeStack[f.lo+f.i].to
				f.i++
				if lc.index[w] < 0 {
					push(w)
				} else if lc.onStack[w] {
					lc.low[f.v] = min(lc.low[f.v], lc.index[w])
				}
				continue
			}
			v := f.v
			lc.edgeStack = lc.edgeStack[:f.lo]
			frames = frames[:len(frames)-1]
			if len(frames) > 0 {
				p := &frames[len(frames)-1]
				lc.low[p.v] = min(lc.low[p.v], lc.low[v])
			}
			if lc.low[v] != lc.index[v] {
				continue
			}
			var members []uint32
			for {
				w := lc.stack[len(lc.stack)-1]
				lc.stack = lc.stack[:len(lc.stack)-1]
				lc.onStack[w] = false
				members = append(members, w)
				if w == v {
					break
				}
			}
			lc.evaluate(members)
		}
	}
}

// families of one SCC: which are excused (disabled somewhere) and which are
// discharged by an inner edge.
type famSet struct {
	m      [MaxMs]bool
	retake [MaxPs]bool
	slice  [MaxPs]bool
	// Bounds.STW: the stopper's restart steps (StartTheWorld once
	// stopwait is 0, then its wakep), and, while gcwaiting is set, the
	// preemption of each P's running G (preemptall, retried until the
	// world is stopped; asynchronous preemption reaches any G).
	stopper    bool
	stwPreempt [MaxPs]bool
	// Bounds.Timers: the clock's TimerTick (time passes).
	tick bool
}

func (lc *livenessChecker) retakeEnabled(s *State, p int) bool {
	md := &lc.g.md
	if !md.b.Syscalls || s.P[p].Status != PRunning {
		return false
	}
	if s.RetakeP != 0 {
		// sysmon is in this P's handoffp (the family's other step), or
		// in another's: Retake(p) waits.
		return int(s.RetakeP) == p+1
	}
	m := s.holder(p)
	return m >= 0 && s.M[m].CurG != NoG && s.G[s.M[m].CurG] == GSyscall && md.retakeCond(s, p)
}

// excused marks the families disabled in s.
func (lc *livenessChecker) excused(s *State, ex *famSet) {
	for m := 0; m < int(s.nM); m++ {
		if s.M[m].excused() {
			ex.m[m] = true
		}
	}
	for p := 0; p < int(s.nP); p++ {
		if !lc.retakeEnabled(s, p) {
			ex.retake[p] = true
		}
		if s.P[p].Status != PRunning {
			ex.slice[p] = true
		}
		if !s.GCWaiting || !lc.preemptEnabled(s, p) {
			ex.stwPreempt[p] = true
		}
	}
	if !(s.STW == STWWakep || s.STW == STWGrown || s.STW == STWStopping && s.StopWait == 0) {
		ex.stopper = true
	}
	if !s.tickEnabled() {
		ex.tick = true
	}
}

// preemptEnabled reports whether sysmon's Preempt of P p is enabled in s
// (appendEnabled's condition).
func (lc *livenessChecker) preemptEnabled(s *State, p int) bool {
	if s.P[p].Status != PRunning {
		return false
	}
	m := s.holder(p)
	return m >= 0 && s.M[m].CurG != NoG && s.M[m].Wake == WakeNone && s.G[s.M[m].CurG] == GRunning && !s.M[m].Yield
}

func (e liveEdge) discharge(tk *famSet) {
	if e.kind.mFair() {
		tk.m[e.m] = true
	}
	switch e.kind {
	case ActRetake, ActRetakeHandoff:
		tk.retake[e.p] = true
	case ActPreempt:
		tk.slice[e.p] = true
		tk.stwPreempt[e.p] = true
	case ActStartTheWorld, ActStartTheWorldWakep, ActProcResizeGrow:
		tk.stopper = true
	case ActTimerTick:
		tk.tick = true
	}
	if e.freshP >= 0 {
		tk.slice[e.freshP] = true
	}
}

// unmet lists the families neither excused nor discharged.
func (lc *livenessChecker) unmet(ex, tk *famSet) (ms, retakes, slices []int) {
	s := &lc.g.proto
	for m := 0; m < int(s.nM); m++ {
		if !ex.m[m] && !tk.m[m] {
			ms = append(ms, m)
		}
	}
	if !ex.stopper && !tk.stopper {
		retakes = append(retakes, -1) // the stopper, counted with sysmon's families
	}
	if !ex.tick && !tk.tick {
		retakes = append(retakes, -2) // the clock, counted with sysmon's families
	}
	for p := 0; p < int(s.nP); p++ {
		if !ex.retake[p] && !tk.retake[p] {
			retakes = append(retakes, p)
		}
		if !ex.stwPreempt[p] && !tk.stwPreempt[p] {
			retakes = append(retakes, p)
		}
		if lc.prop.slice && !ex.slice[p] && !tk.slice[p] {
			slices = append(slices, p)
		}
	}
	return
}

func (lc *livenessChecker) evaluate(members []uint32) {
	entry := slices.Min(members)
	if lc.best != nil && lc.best.entry <= entry && !lc.countAll {
		return
	}
	// Most components are one state: the map of members is made only
	// for larger ones, and for the lifted check below.
	var in map[uint32]bool
	if len(members) > 1 {
		in = make(map[uint32]bool, len(members))
		for _, v := range members {
			in[v] = true
		}
	}
	var ex, tk famSet
	inner := false
	for _, v := range members {
		lc.g.stateInto(&lc.s, lc.sv(v))
		lc.excused(&lc.s, &ex)
		lc.succs = lc.succ(v, lc.succs[:0])
		for _, e := range lc.succs {
			if e.to == v || in[e.to] {
				inner = true
				e.discharge(&tk)
			}
		}
	}
	ms, rs, ss := lc.unmet(&ex, &tk)
	if (lc.g.sym || lc.g.gsym) && inner && (lc.g.psym || len(rs)+len(ss) == 0) {
		// The M families (and under P symmetry the P families) in the
		// representatives' frames say nothing about the concrete cycle:
		// decide them on the lifted SCC (symmetry.go). Without P
		// symmetry the P families do not move, and an unmet one there
		// is unmet in the lift too.
		naive := len(ms) + len(rs) + len(ss)
		if in == nil {
			in = map[uint32]bool{members[0]: true}
		}
		ms, rs, ss = lc.symUnmet(members, in)
		if symCheckHook != nil {
			symCheckHook(lc, members, lc.member(in, lc.tracked(members[0])), [3][]int{ms, rs, ss}, naive == 0)
		}
	}
	if len(ms)+len(rs)+len(ss) > 0 {
		return
	}
	lc.count++
	if lc.best != nil && lc.best.entry <= entry {
		return
	}
	lc.best = &sccViolation{entry: entry, members: members, stutter: !inner}
}

// violation turns the best violating SCC into a lasso trace: the shortest
// path to its shallowest state, then a cycle inside it that meets every
// fairness family the SCC meets (fairGraph.cycle).
func (lc *livenessChecker) violation() *Violation {
	b := lc.best
	v := &Violation{Kind: lc.prop.kind}
	switch lc.prop.kind {
	case KindWorkConservation:
		v.Detail = "a G stays runnable while a P stays idle and no M spins or rechecks"
	case KindLocalStarvation:
		v.Detail = fmt.Sprintf("%s stays in the local run queues forever", gName(lc.prop.g))
	case KindSTWStuck:
		v.Detail = "sched.gcwaiting stays set: the stop-the-world never completes"
	case KindTimerStuck:
		v.Detail = fmt.Sprintf("%s's due timer is never run", gName(lc.prop.g))
	case KindNetpollUnwatched:
		v.Detail = "every P is idle and a G waits on the network, but no M blocks in netpoll"
	default:
		v.Detail = fmt.Sprintf("%s stays in the global run queue forever", gName(lc.prop.g))
	}
	if lc.prop.pair {
		_, x := lc.g.realPath(lc.sv(b.entry))
		g := lc.g.realG(&x, lc.tracked(b.entry))
		v.Detail = fmt.Sprintf("%s stays in the global run queue forever", gName(g))
		if lc.prop.kind == KindTimerStuck {
			v.Detail = fmt.Sprintf("%s's due timer is never run", gName(g))
		}
	}
	if b.stutter {
		v.Trace = lc.g.trace(lc.sv(b.entry), nil)
		v.Trace.Stutter = true
		return v
	}
	if lc.g.sym || lc.g.gsym {
		v.Trace = lc.symLasso(b)
		return v
	}
	// The component as an explicit graph, its members in order, and a
	// cycle through it that is fair on its face (faircycle.go).
	members := slices.Sorted(slices.Values(b.members))
	idx := make(map[uint32]int, len(members))
	for i, m := range members {
		idx[m] = i
	}
	fg := fairGraph{exb: make([]uint64, len(members)), edges: make([][]fairEdge, len(members))}
	acts := make([][]Action, len(members))
	for i, m := range members {
		s := lc.g.state(m)
		fg.exb[i] = lc.excusedBits(&s)
		for _, e := range lc.succ(m, nil) {
			if j, ok := idx[e.to]; ok {
				fg.edges[i] = append(fg.edges[i], fairEdge{to: j, bits: lc.edgeBits(e)})
				acts[i] = append(acts[i], Action{Kind: e.kind, M: e.m, P: e.p})
			}
		}
	}
	var cycle []cycleStep
	for _, h := range fg.cycle(idx[b.entry]) {
		a := acts[h.from][h.e]
		cycle = append(cycle, cycleStep{to: members[fg.edges[h.from][h.e].to], want: &a})
	}
	v.Trace = lc.g.trace(b.entry, cycle)
	return v
}

// netpollUnwatched (liveness (f), Bounds.PollBlock): every P is idle, a G
// waits on the network, and nobody blocks in netpoll (sched.lastpoll is
// not 0). sysmon, which would poll, sleeps while every P is idle.
func netpollUnwatched(s *State) bool {
	if !s.LastPoll || int(s.NPIdle) != s.procs() {
		return false
	}
	return s.netpollAnyWaiters()
}

// NetpollUnwatched reports whether s is a state liveness (f) must not
// stay in: every P idle, a G waiting on the network, nobody in netpoll.
// GMP.tla's tests judge TLC's NetpollWatched counterexamples with it.
func (s *State) NetpollUnwatched() bool { return netpollUnwatched(s) }

// famBits is a famSet as a bit set: M families, then per P retake,
// slice (if the property assumes it) and stop-the-world preemption, then
// the stopper and the clock.
func (lc *livenessChecker) famBits(f *famSet) uint64 {
	var b uint64
	for m := 0; m < MaxMs; m++ {
		if f.m[m] {
			b |= 1 << m
		}
	}
	for p := 0; p < MaxPs; p++ {
		if f.retake[p] {
			b |= 1 << (MaxMs + p)
		}
		if f.slice[p] && lc.prop.slice {
			b |= 1 << (MaxMs + MaxPs + p)
		}
		if f.stwPreempt[p] {
			b |= 1 << (MaxMs + 2*MaxPs + p)
		}
	}
	if f.stopper {
		b |= 1 << (MaxMs + 3*MaxPs)
	}
	if f.tick {
		b |= 1 << (MaxMs + 3*MaxPs + 1)
	}
	return b
}
