package spec

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"time"
	"unsafe"
)

// The breadth-first search, parallel and deterministic. States are
// expanded in chunks of consecutive numbers within one BFS level; a chunk
// goes through three phases (two barriers):
//
//  1. expand (parallel, each worker a contiguous range of parents): every
//     enabled action is stepped, and each successor becomes a candidate
//     with its canonical key and hash, in (parent, action) order;
//  2. dedupe (parallel, each worker the shards of the visited index it
//     owns): a worker walks all candidates in order and inserts those of
//     its shards, so the first candidate of each new key in the sequential
//     order is the one marked new, and it checks the invariants of the
//     new ones;
//  3. merge (sequential): in candidate order, new states get their numbers
//     and parents, and counts and violations are taken exactly where the
//     sequential search would take them, which stops at the same point.
//
// So Distinct, Transitions, Depth and every counterexample are the same for
// any number of workers (TestParallelMatchesSequential).

// chunkParents is the most parents one chunk expands (a variable so that a
// test can make chunks small and cut every level).
var chunkParents = 1 << 15

type candKind uint8

const (
	candState  candKind = iota // a successor state
	candPruned                 // ErrNoIdleM: cut by the M bound
	candErr                    // another step error
)

type cand struct {
	h uint64
	// off is where the key starts in the worker's arena; once dedupe has
	// found the key there already (exact mode), the reference it found
	// instead (visited.insert), for the successor log: nothing reads the
	// key of a candidate that is not new again, and a second field made
	// a candidate 24 bytes, not 16.
	off   uint32
	klen  uint8
	kind  candKind
	isNew bool
}

type parentRec struct {
	id   uint32
	end  int32 // its candidates are cands[previous end:end]
	term int8  // -1: has actions; else terminal kind; -2: not expanded
}

type stepFailure struct {
	act Action
	err error
}

type workerOut struct {
	cands   []cand
	arena   []byte
	parents []parentRec
	errs    map[int]stepFailure
	base    int // global index of cands[0]
}

func (w *workerOut) key(i int) []byte {
	c := &w.cands[i]
	return w.arena[c.off : c.off+uint32(c.klen)]
}

type searcher struct {
	ctx     context.Context
	md      Model
	opt     Options
	g       *graph
	res     Result
	workers int
	outs    []*workerOut
	skip    map[uint32]bool // All: states that broke an invariant
	groups  map[string]*ViolationGroup
	order   []string
	nextID  []int64         // candidate global index -> state number (exact mode, this chunk)
	inv     []map[int]error // per dedupe worker: candidate global index -> broken invariant
	stop    bool
	start   time.Time
	last    time.Time
	// maxChunkNew is the most states one chunk has added: the scale of
	// the next chunk's growth, for the memory bound with liveness.
	maxChunkNew int
	// nextLiveness is the size at which the next periodic liveness
	// check runs (periodicLiveness).
	nextLiveness int
	targets      []uint32 // merge: a parent's successors' numbers (graph.succ)
}

func bfs(ctx context.Context, md Model, opt Options) (*graph, Result) {
	w := opt.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	init := md.Init()
	g := &graph{md: md, proto: init, seen: newVisited(opt.Fingerprint), sym: opt.Symmetry || opt.PSymmetry, gsym: opt.GSymmetry, psym: opt.PSymmetry}
	g.succ.on = opt.Liveness && !opt.Fingerprint
	sr := &searcher{ctx: ctx, md: md, opt: opt, g: g, workers: w, start: time.Now(), nextLiveness: cmp.Or(opt.firstLiveness, firstPeriodicLiveness)}
	sr.last = sr.start
	sr.res = Result{Bounds: md.b, ThreadLimit: opt.ThreadLimit, Workers: w, Fingerprint: opt.Fingerprint, Symmetry: opt.Symmetry || opt.GSymmetry || opt.PSymmetry, GSymmetry: opt.GSymmetry, PSymmetry: opt.PSymmetry}
	for i := 0; i < w; i++ {
		sr.outs = append(sr.outs, &workerOut{})
	}
	k := g.canonKey(nil, &init)
	h := hash64(k)
	g.seen.insert(h, k, 0, func(uint32) []byte { return k })
	g.seen.commit(k)
	g.parent.append(0)
	if g.seen.fp {
		g.act.append(0)
	}
	sr.resolveAll(func(uint32) int64 { return 0 }, func(uint32) uint64 { return h })
	if err := md.check(&init); err != nil {
		sr.res.Distinct = 1
		sr.violation(&Violation{Kind: KindInvariant, Err: err, Detail: err.Error(), Trace: g.trace(0, nil)}, 0)
		if !opt.All {
			return g, sr.finish(false)
		}
		sr.skip = map[uint32]bool{0: true}
	}
	levelEnd := 1
	for i := 0; i < g.len(); {
		if i == levelEnd {
			sr.res.Depth++
			levelEnd = g.len()
			if sr.periodicLiveness() {
				return g, sr.finish(false)
			}
		}
		if ctx.Err() != nil {
			return g, sr.finish(false)
		}
		sr.progress(i)
		if opt.MaxMemory > 0 && sr.memory()+sr.livenessReserve() > opt.MaxMemory {
			sr.res.MemoryCut = true
			return g, sr.finish(false)
		}
		hi := min(i+chunkParents, levelEnd)
		before := g.len()
		sr.chunk(uint32(i), uint32(hi))
		sr.maxChunkNew = max(sr.maxChunkNew, g.len()-before)
		if sr.stop {
			return g, sr.finish(false)
		}
		i = hi
		g.seen.dropQueue(uint32(i))
	}
	return g, sr.finish(true)
}

// Periodic liveness, as TLC checks temporal properties on the state
// space found so far: with Options.Liveness, each time the graph has
// grown past nextLiveness the search pauses at a level's end and runs the
// liveness checks on what it has found. A violation there is real (see
// Options.Liveness: a component found is a component of the whole graph,
// and its fairness belongs to its own states and edges), so the search
// stops with it; none found proves nothing and the search goes on. The
// sizes grow by periodicLivenessGrowth, so the checks cost at most a
// third of one pass over the final graph, and a model that fails early
// fails in seconds rather than after its whole state space.
const firstPeriodicLiveness = 1 << 23 // Options.firstLiveness lowers it in tests

const periodicLivenessGrowth = 4

// periodicLiveness runs the check when it is due and reports whether it
// found a violation. Not with Options.All, whose point is the whole graph.
func (sr *searcher) periodicLiveness() bool {
	n := sr.g.len()
	if !sr.opt.Liveness || sr.opt.All || sr.opt.Fingerprint || sr.res.Violation != nil || n < sr.nextLiveness {
		return false
	}
	sr.nextLiveness = periodicLivenessGrowth * n
	if sr.opt.Progress != nil {
		fmt.Fprintf(sr.opt.Progress, "explore: liveness on %d states (periodic, at depth %d)\n", n, sr.res.Depth)
	}
	sr.res.MemoryBytes = max(sr.res.MemoryBytes, sr.memory()+livenessBytes(sr.g, sr.res.Transitions))
	vs := checkLiveness(sr.ctx, sr.g, sr.workers, sr.opt) // not All: periodicLiveness does not run with it
	if len(vs) == 0 {
		return false
	}
	sr.res.Violation = vs[0].First
	sr.res.LivenessPartial = true
	sr.res.Notes = append(sr.res.Notes, fmt.Sprintf("found by the periodic liveness check on the %d states found by depth %d, where the search stopped", n, sr.res.Depth))
	return true
}

func (sr *searcher) memory() uint64 {
	n := sr.g.seen.bytes() + sr.g.parent.bytes() + sr.g.act.bytes() + sr.g.succ.bytes() + 8*uint64(cap(sr.nextID))
	for _, w := range sr.outs {
		n += uint64(cap(w.arena)) + uint64(unsafe.Sizeof(cand{}))*uint64(cap(w.cands)) + 12*uint64(cap(w.parents))
	}
	sr.res.MemoryBytes = max(sr.res.MemoryBytes, n)
	return n
}

// livenessReserve is, with Options.Liveness, what the liveness pass will
// add to the explorer's memory and what the next chunk may add to the
// search's (0 without): the search stops while the pass still fits
// under MaxMemory, so that it can run on the part found. Without
// liveness the bound is checked as it is reached, between chunks.
func (sr *searcher) livenessReserve() uint64 {
	if !sr.opt.Liveness {
		return 0
	}
	return livenessBytes(sr.g, sr.res.Transitions) + sr.chunkGrowth(2*sr.maxChunkNew+chunkParents)
}

// chunkGrowth bounds what c more states add to the exact search's
// structures: their keys, offsets, parents, liveness arrays and
// successor log entries, a new block of each log, and the doubling of
// the index shards past half full (counting each shard's share twice
// over).
func (sr *searcher) chunkGrowth(c int) uint64 {
	g, v := sr.g, sr.g.seen
	n := uint64(g.len())
	var keyBytes uint64
	for _, b := range v.blocks {
		keyBytes += uint64(len(b))
	}
	grow := keyBytes/max(n, 1)*uint64(c) + blockSize // and a new block
	grow += livenessBytes(g, sr.res.Transitions) / max(n, 1) * uint64(c)
	grow += (8+4)*uint64(c) + 2*blockLogBytes // the offsets' and the parents' logs
	if g.succ.on {
		// the successor log: a byte a state and four a transition
		grow += uint64(c)*(1+4*uint64(sr.res.Transitions)/max(n, 1)) + 2*blockLogBytes
	}
	for i := range v.shards {
		sh := &v.shards[i]
		if 2*(sh.n+2*c/nShards+1) > len(sh.slots) {
			grow += 8 * uint64(len(sh.slots))
		}
	}
	return grow
}

// progressEvery is the interval between progress lines (a test shortens it).
var progressEvery = time.Second

func (sr *searcher) progress(i int) {
	if sr.opt.Progress == nil || time.Since(sr.last) < progressEvery {
		return
	}
	sr.last = time.Now()
	n := sr.g.len()
	fmt.Fprintf(sr.opt.Progress, "explore: %d states (%.0f states/s), %d queued, depth %d, %d MiB\n",
		n, float64(n)/time.Since(sr.start).Seconds(), n-i, sr.res.Depth, sr.memory()>>20)
}

func (sr *searcher) finish(complete bool) Result {
	sr.res.Distinct = sr.g.len()
	sr.res.Complete = complete && sr.res.Violation == nil
	sr.memory()
	if sr.opt.Fingerprint {
		n := float64(sr.res.Distinct)
		m := float64(sr.res.Transitions)
		sr.res.FPCollision = max(n*(n-1)/2, n*max(m-n, 0)) / math.Exp2(64)
	}
	for _, k := range sr.order {
		sr.res.Violations = append(sr.res.Violations, *sr.groups[k])
	}
	return sr.res
}

// violation records v (found at state or parent id); without All the
// search stops.
func (sr *searcher) violation(v *Violation, id uint32) {
	if sr.res.Violation == nil {
		sr.res.Violation = v
	}
	if !sr.opt.All {
		sr.stop = true
		return
	}
	if sr.groups == nil {
		sr.groups = map[string]*ViolationGroup{}
	}
	key := v.Kind.String()
	inv := 0
	if ie, ok := v.Err.(*InvariantError); ok {
		inv = ie.Inv
		key = fmt.Sprintf("invariant %d", inv)
	} else if v.Kind == KindStepError {
		key += ": " + v.Detail
	}
	gr := sr.groups[key]
	if gr == nil {
		gr = &ViolationGroup{Kind: v.Kind, Inv: inv, Key: key, First: v}
		sr.groups[key] = gr
		sr.order = append(sr.order, key)
	}
	gr.Count++
}

func (sr *searcher) resolveAll(id func(uint32) int64, h func(uint32) uint64) {
	v := sr.g.seen
	if v.fp {
		return
	}
	for i := range v.shards {
		v.resolve(&v.shards[i], h, id)
	}
}

func (sr *searcher) parallel(f func(w int)) {
	if sr.workers == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < sr.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	wg.Wait()
}

// cand returns the worker output and local index of global candidate gi.
func (sr *searcher) cand(gi uint32) (*workerOut, int) {
	w := sort.Search(len(sr.outs), func(i int) bool { return sr.outs[i].base > int(gi) }) - 1
	return sr.outs[w], int(gi) - sr.outs[w].base
}

func (sr *searcher) chunk(lo, hi uint32) {
	g := sr.g
	// Phase 1: expand.
	n := hi - lo
	per := (n + uint32(sr.workers) - 1) / uint32(sr.workers)
	sr.parallel(func(w int) {
		out := sr.outs[w]
		out.cands, out.arena, out.parents = out.cands[:0], out.arena[:0], out.parents[:0]
		out.errs = nil
		a := lo + uint32(w)*per
		b := min(a+per, hi)
		var acts []Action
		var s State
		for id := a; id < b; id++ {
			rec := parentRec{id: id, term: -1}
			if sr.skip[id] {
				rec.term = -2
				rec.end = int32(len(out.cands))
				out.parents = append(out.parents, rec)
				continue
			}
			s.decode(&g.proto, g.seen.key(id))
			acts = sr.md.appendEnabled(acts[:0], &s)
			if len(acts) == 0 {
				rec.term = int8(terminalKind(&sr.md, &s))
			}
			for _, act := range acts {
				ns := s
				_, err := sr.md.step(&ns, act)
				switch {
				case err == ErrNoIdleM:
					out.cands = append(out.cands, cand{kind: candPruned})
					continue
				case err != nil:
					if out.errs == nil {
						out.errs = map[int]stepFailure{}
					}
					out.errs[len(out.cands)] = stepFailure{act, err}
					out.cands = append(out.cands, cand{kind: candErr})
					continue
				}
				off := len(out.arena)
				out.arena = g.canonKey(out.arena, &ns)
				k := out.arena[off:]
				out.cands = append(out.cands, cand{h: hash64(k), off: uint32(off), klen: uint8(len(k))})
			}
			rec.end = int32(len(out.cands))
			out.parents = append(out.parents, rec)
		}
	})
	total := 0
	for _, out := range sr.outs {
		out.base = total
		total += len(out.cands)
	}
	if g.seen.full(total) {
		sr.res.Notes = append(sr.res.Notes, "stopped: the visited set is full (31-bit state numbers)")
		sr.stop = true
		return
	}
	// Phase 2: dedupe, by shard owner.
	if sr.inv == nil {
		sr.inv = make([]map[int]error, sr.workers)
	}
	for w := range sr.inv {
		sr.inv[w] = nil
	}
	keyOf := func(ref uint32) []byte {
		if ref&pendingRef != 0 {
			out, i := sr.cand(ref &^ pendingRef)
			return out.key(i)
		}
		return g.seen.key(ref - 1)
	}
	sr.parallel(func(w int) {
		var s State
		for _, out := range sr.outs {
			for i := range out.cands {
				c := &out.cands[i]
				if c.kind != candState || shardOf(c.h)%sr.workers != w {
					continue
				}
				var found uint32
				c.isNew, found = g.seen.insert(c.h, out.key(i), uint32(out.base+i), keyOf)
				if !c.isNew {
					c.off = found
					continue
				}
				// The new state's invariants, checked by the owner.
				s.decode(&g.proto, out.key(i))
				if err := sr.md.check(&s); err != nil {
					if sr.inv[w] == nil {
						sr.inv[w] = map[int]error{}
					}
					sr.inv[w][out.base+i] = err
				}
			}
		}
	})
	// Phase 3: merge in the sequential order.
	if !g.seen.fp {
		sr.nextID = sr.nextID[:0]
		for i := 0; i < total; i++ {
			sr.nextID = append(sr.nextID, -1)
		}
	}
	sr.merge()
	sr.resolveAll(func(ref uint32) int64 { return sr.nextID[ref] },
		func(ref uint32) uint64 { out, i := sr.cand(ref); return out.cands[i].h })
}

func (sr *searcher) merge() {
	g := sr.g
	res := &sr.res
	for _, out := range sr.outs {
		start := 0
		for _, rec := range out.parents {
			cs := out.cands[start:rec.end]
			first := start
			start = int(rec.end)
			switch rec.term {
			case -2:
				g.succ.on = false // not expanded: its successors are unknown
				continue
			case int8(termDone):
				res.Done++
				g.succ.add(rec.id, nil)
				continue
			case int8(termProgramDeadlock):
				res.Deadlocks++
				g.succ.add(rec.id, nil)
				continue
			case int8(termStuck):
				g.succ.add(rec.id, nil)
				res.Distinct = g.len()
				v := &Violation{Kind: KindDeadlock,
					Detail: "no action is enabled, yet not every G has exited and no program deadlock explains it (stuck scheduler)",
					Trace:  g.trace(rec.id, nil)}
				v.Trace.Stutter = true
				sr.violation(v, rec.id)
				if sr.stop {
					return
				}
				continue
			}
			taken := 0
			sr.targets = sr.targets[:0]
			for j := range cs {
				c := &cs[j]
				if g.succ.on {
					sr.targets = append(sr.targets, sr.target(c))
				}
				switch c.kind {
				case candPruned:
					res.Pruned++
					continue
				case candErr:
					taken++
					res.Transitions++
					f := out.errs[first+j]
					res.Distinct = g.len()
					sr.violation(sr.stepErrorViolation(rec.id, f), rec.id)
					if sr.stop {
						return
					}
					continue
				}
				taken++
				res.Transitions++
				if !c.isNew {
					continue
				}
				if g.seen.fp && j > math.MaxUint8 {
					sr.res.Notes = append(sr.res.Notes, fmt.Sprintf("stopped: state %d has more than %d enabled actions, which a fingerprint search's paths cannot name", rec.id, math.MaxUint8+1))
					sr.stop = true
					return
				}
				id := g.seen.commit(out.key(first + j))
				g.parent.append(rec.id)
				if g.seen.fp {
					g.act.append(uint8(j))
				} else {
					sr.nextID[out.base+first+j] = int64(id)
				}
				if err := sr.invAt(out.base + first + j); err != nil {
					res.Distinct = g.len()
					if !sr.opt.All {
						res.Depth = g.depth(id)
					}
					sr.violation(&Violation{Kind: KindInvariant, Err: err, Detail: err.Error(), Trace: g.trace(id, nil)}, id)
					if sr.stop {
						return
					}
					if sr.skip == nil {
						sr.skip = map[uint32]bool{}
					}
					sr.skip[id] = true
				}
			}
			g.succ.add(rec.id, sr.targets)
			if taken == 0 {
				res.MLimited++
			}
			if sr.opt.MaxStates > 0 && g.len() >= sr.opt.MaxStates {
				sr.stop = true
				return
			}
		}
	}
}

// target is candidate c's state number for the successor log (noSucc
// if its step reached none), taken as merge reaches c: a new candidate
// gets the number commit gives next, and a duplicate found pending refers
// to an earlier candidate of the chunk, which merge has numbered already.
func (sr *searcher) target(c *cand) uint32 {
	switch {
	case c.kind != candState:
		return noSucc
	case c.isNew:
		return uint32(sr.g.seen.len()) // the number commit gives it next
	case c.off&pendingRef != 0: // off holds the reference found
		n := sr.nextID[c.off&^pendingRef]
		if n < 0 {
			panic("spec: a duplicate refers to a candidate merge has not numbered")
		}
		return uint32(n)
	}
	return c.off - 1
}

func (sr *searcher) invAt(gi int) error {
	for _, m := range sr.inv {
		if err := m[gi]; err != nil {
			return err
		}
	}
	return nil
}

// stepErrorViolation is the trace to parent id, then the failing action
// (found again from the real state the trace ends in, under symmetry).
func (sr *searcher) stepErrorViolation(id uint32, f stepFailure) *Violation {
	t, s := sr.g.realPath(id)
	for _, a := range sr.md.appendEnabled(nil, &s) {
		ns := s
		_, err := sr.md.step(&ns, a)
		if err != nil && err != ErrNoIdleM && err.Error() == f.err.Error() {
			t.Steps = append(t.Steps, TraceStep{a, ns})
			return &Violation{Kind: KindStepError, Err: err, Detail: err.Error(), Trace: t}
		}
	}
	panic("spec: step error not found again")
}
