package interleave

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math/bits"
	"time"
)

// The StateCache reduction: sleep sets over the graph of states, each
// (state, sleep set) explored once.
//
// A state is everything the rest of an execution depends on: the shared
// memory (every word of every local queue, stale ring slots included, and
// the global queue; see memoryReader) and each actor's local state. An
// actor's local state is not visible from outside its goroutine, but it is
// a function of what the actor has read: the queue code is deterministic,
// and between two yield points an actor reads only words it alone writes
// (its own ring's tail and slots). So the tracker below stands for an
// actor's local state with
//
//   - the index of the call it is in and the results of its finished calls
//     (which determine, with the script, where it is and everything it
//     records);
//   - its own queue's tail and slots when the call began, the words it
//     reads without yield points, which only it writes (and, for a steal,
//     the whole of its queue then: the steal records which Gs its ring held
//     before it);
//   - a digest of every step the call has taken so far: the access and
//     what it read, taken from the memory just before it: the word loaded
//     or compared (which decides whether a CAS succeeds), the whole ring
//     for a slot load (the yield point does not say which slot), nothing
//     for a store or for taking the global queue's lock.
//
// Equal digests mean equal local states (up to a 128-bit hash collision),
// so two schedules that reach the same state have the same continuations,
// and the same outcomes: the results are part of the state. The digest of
// a call is restarted at every call boundary, so schedules that differ
// inside calls meet again at the next boundary; it only grows inside a call,
// so no state repeats along an execution and the state graph is acyclic.
//
// The search is the classical sleep-set search over all enabled actors
// (Godefroid): at a node, the actors explored at the parent before the step
// taken, or asleep there, stay asleep while their next access commutes with
// the step taken. Sleep sets alone explore exactly one schedule per
// Mazurkiewicz trace (schedules equal up to swapping adjacent independent
// steps, with the same dependence as DPOR's, dpor.go). The number of
// complete sleep-set-respecting schedules below a (state, sleep set) node
// depends only on that pair, so it is computed once, memoised, and summed:
// the root's sum is the number of Mazurkiewicz traces, which the search
// counts without running them one by one. Each (state, sleep set) node is
// expanded once; a schedule that reaches a node already expanded stops
// there. Every complete schedule that is run is checked as by DPOR; each
// outcome (results and final queues) is a terminal state, so every outcome
// is checked at least once.
//
// What it gives up: the linearizability check sees the calls' real-time
// order (their windows) of one schedule per terminal state reached along a
// new edge, not one per Mazurkiewicz trace as DPOR does; results and final
// queues, which conservation and the sequential part of linearizability
// depend on, are exact. Options.WindowOrders, which needs every window
// order, is refused.

// errStateSeen stops an execution that reached a (state, sleep set) node
// already explored.
var errStateSeen = errors.New("interleave: state already explored")

// stateTracker keeps the digests of the actors' local states during one
// execution, and computes the state digest before each step.
type stateTracker struct {
	mem   memoryReader
	sc    *Scenario
	seeds [2]maphash.Seed
	call  []int       // per actor: the callMark its digest belongs to
	local [][2]uint64 // per actor: the digest of its local state
	buf   []byte
}

func newStateTracker(sc *Scenario, seeds [2]maphash.Seed) *stateTracker {
	n := len(sc.Actors)
	return &stateTracker{sc: sc, seeds: seeds, call: make([]int, n), local: make([][2]uint64, n)}
}

func (t *stateTracker) sum(b []byte) [2]uint64 {
	return [2]uint64{maphash.Bytes(t.seeds[0], b), maphash.Bytes(t.seeds[1], b)}
}

func appendDigest(b []byte, d [2]uint64) []byte {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(b, d[0]), d[1])
}

// appendResult appends what a finished call returned and recorded.
func appendResult(b []byte, c *CallRecord) []byte {
	b = append(b, byte(c.Call.Kind), boolByte(c.Inherit), boolByte(c.Empty), boolByte(c.Done))
	b = binary.LittleEndian.AppendUint32(b, uint32(c.G))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(c.Gs)))
	for _, g := range c.Gs {
		b = binary.LittleEndian.AppendUint32(b, uint32(g))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(c.Batch)))
	for _, g := range c.Batch {
		b = binary.LittleEndian.AppendUint32(b, uint32(g))
	}
	return b
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// beginCall restarts actor a's digest where a call begins or ends (mark
// is r.callMark(a)): the results of every call it has finished and, in a
// call, the words of its own queue the call reads without yield points.
func (t *stateTracker) beginCall(r *runner, a, mark int) {
	b := t.buf[:0]
	b = binary.LittleEndian.AppendUint32(b, uint32(mark))
	calls := r.records[a]
	in := mark%2 == 1
	if in {
		calls = calls[:len(calls)-1]
	}
	for i := range calls {
		b = appendResult(b, &calls[i])
	}
	if q := t.sc.Actors[a].Queue; q >= 0 && in {
		switch r.records[a][len(calls)].Call.Kind {
		case Steal, StealNext:
			b = t.mem.appendMemory(b, q)
		case Empty:
		default:
			b = t.mem.appendOwn(b, q)
		}
	}
	t.buf = b
	t.call[a], t.local[a] = mark, t.sum(b)
}

// start is called once every actor has run to its first yield point.
func (t *stateTracker) start(r *runner) {
	for a := range t.sc.Actors {
		t.beginCall(r, a, r.callMark(a))
	}
}

// before is called just before actor a takes step m: the step and the
// memory it accesses join a's digest.
func (t *stateTracker) before(a int, m message) {
	b := appendDigest(t.buf[:0], t.local[a])
	b = append(b, byte(m.op))
	b = binary.LittleEndian.AppendUint32(b, uint32(int32(m.obj)))
	if m.op != OpJoin { // a join reads no memory
		b = t.mem.appendRead(b, m.obj, m.op)
	}
	t.buf = b
	t.local[a] = t.sum(b)
}

// after is called once actor a, having taken a step, is parked again (or
// finished): if it began another call, its digest restarts.
func (t *stateTracker) after(r *runner, a int) {
	if k := r.callMark(a); k != t.call[a] {
		t.beginCall(r, a, k)
	}
}

// state is the digest of the whole state: every queue's memory and every
// actor's local state and next access.
func (t *stateTracker) state(enabled uint16, pending []Step) [2]uint64 {
	b := t.buf[:0]
	for q := range t.sc.Queues {
		b = t.mem.appendMemory(b, q)
	}
	b = t.mem.appendMemory(b, GlobalObj)
	for a, st := range pending {
		b = append(b, boolByte(enabled&(1<<a) != 0), byte(st.Op))
		b = binary.LittleEndian.AppendUint32(b, uint32(int32(st.Obj)))
		b = appendDigest(b, t.local[a])
	}
	t.buf = b
	return t.sum(b)
}

// snode is a (state, sleep set) node on the current path.
type snode struct {
	state   [2]uint64
	key     [2]uint64 // state and sleep set
	enabled uint16
	sleep   uint16
	done    uint16
	chosen  int
	pend    []access
	traces  uint64
}

// addTraces adds n to *sum, saturating at the largest uint64.
func addTraces(sum *uint64, n uint64, overflow *bool) {
	s, carry := bits.Add64(*sum, n, 0)
	if carry != 0 {
		s, *overflow = ^uint64(0), true
	}
	*sum = s
}

func exploreStateful(ctx context.Context, sc *Scenario, opt Options, res *Result) error {
	if opt.WindowOrders {
		return fmt.Errorf("interleave: the %v reduction checks one real-time order of calls per state; every window order (WindowOrders) needs the dpor reduction", StateCache)
	}
	if opt.Run.Backend != nil {
		if _, ok := opt.Run.Backend.(memoryReader); !ok {
			return fmt.Errorf("interleave: the %v reduction needs a backend whose memory it can read; %T cannot: use the dpor reduction", StateCache, opt.Run.Backend)
		}
	} else if err := loadRunqLayout(); err != nil {
		return err
	}
	start := time.Now()
	lastReport := start
	seeds := [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	memo := map[[2]uint64]uint64{}
	var stack []snode
	var tr *stateTracker
	var seen uint64 // the memoised count of the node an execution stopped at
	choose := func(pos int, enabled uint16, last int, pending []Step) (int, error) {
		st := tr.state(enabled, pending)
		if pos < len(stack) {
			n := &stack[pos]
			if n.state != st || n.enabled != enabled {
				return 0, fmt.Errorf("interleave: scenario %s is not deterministic: replaying step %d reached another state (runnable %s, first run %s)",
					sc.Name, pos, maskString(enabled), maskString(n.enabled))
			}
			return n.chosen, nil
		}
		n := snode{state: st, enabled: enabled}
		n.pend = make([]access, len(pending))
		for q, s := range pending {
			n.pend[q] = access{obj: noObj}
			if s.Actor >= 0 {
				n.pend[q] = accessOfStep(s)
			}
		}
		if pos > 0 {
			p := &stack[pos-1]
			for q, a := range p.pend {
				if q != p.chosen && (p.sleep|p.done)&(1<<q) != 0 && a.obj != noObj && !dependent(a, p.pend[p.chosen]) {
					n.sleep |= 1 << q
				}
			}
		}
		n.key = tr.sum(binary.LittleEndian.AppendUint16(appendDigest(nil, st), n.sleep))
		if v, ok := memo[n.key]; ok && !opt.noMemo {
			seen = v
			return 0, errStateSeen
		}
		awake := enabled &^ n.sleep
		if awake == 0 {
			memo[n.key] = 0
			return 0, errSleepBlocked
		}
		c := keepRunning(awake, last)
		n.chosen, n.done = c, 1<<c
		stack = append(stack, n)
		return c, nil
	}
	var overflow bool
	for {
		if err := ctx.Err(); err != nil {
			res.StopReason = "cancelled: " + err.Error()
			break
		}
		if opt.MaxExecutions > 0 && res.Runs >= opt.MaxExecutions {
			res.StopReason = fmt.Sprintf("reached the limit of %d executions", opt.MaxExecutions)
			break
		}
		tr = newStateTracker(sc, seeds)
		ro := opt.Run
		ro.track = tr
		ex, err := run(sc, choose, ro)
		res.Runs++
		var found uint64
		switch {
		case err == errStateSeen:
			res.StatesSeen++
			found = seen
		case err == errSleepBlocked:
			res.SleepBlocked++
		case err != nil:
			return err
		default:
			res.Executions++
			res.MaxSteps = max(res.MaxSteps, len(ex.Steps))
			if opt.OnExecution != nil && ex.Complete {
				opt.OnExecution(ex)
			}
			if v := Check(ex); v != nil {
				res.Violation = v
				res.States = len(memo)
				return nil
			}
			if ex.Cut {
				res.Cut++
			} else {
				found = 1
			}
		}
		if len(stack) == 0 {
			// The first step already stopped the execution: a scenario
			// whose root is a known state cannot happen (the memo is empty).
			res.Traces = found
			res.Complete = res.Cut == 0
			break
		}
		addTraces(&stack[len(stack)-1].traces, found, &overflow)
		// Backtrack: finish the nodes with nothing left to try, memoising
		// their counts, up to one with an actor left.
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if alt := top.enabled &^ top.sleep &^ top.done; alt != 0 {
				p := bits.TrailingZeros16(alt)
				top.done |= 1 << p
				top.chosen = p
				break
			}
			memo[top.key] = top.traces
			v := top.traces
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				addTraces(&stack[len(stack)-1].traces, v, &overflow)
			} else {
				res.Traces = v
			}
		}
		if opt.Progress != nil && time.Since(lastReport) > 5*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(opt.Progress, "%s: %d executions, %d states, %v\n", sc.Name, res.Runs, len(memo), time.Since(start).Round(time.Second))
		}
		if len(stack) == 0 {
			if res.Cut > 0 {
				res.StopReason = fmt.Sprintf("%d schedules were cut at %d steps", res.Cut, ex.maxSteps(opt.Run))
			} else {
				res.Complete = true
			}
			break
		}
	}
	res.States = len(memo)
	res.TracesOverflow = overflow
	if !res.Complete {
		res.Traces = 0 // a partial sum counts nothing in particular
	}
	return nil
}

// callMark says where actor a is among its calls: 2n-1 inside its n-th
// call, 2n after it (at a Join, or finished). It is read while a is parked.
func (r *runner) callMark(a int) int {
	n := len(r.records[a])
	if n > 0 && !r.records[a][n-1].Done {
		return 2*n - 1
	}
	return 2 * n
}
