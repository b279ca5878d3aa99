package interleave

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Linearizability of an execution's history against spec/.
//
// Each call's linearization point must fall between its first and last
// atomic access (the positions First and Last): a tighter window than
// invocation to return, and so a stricter check, yet the right one, since
// every queue operation takes effect at one of its own atomic accesses.
// Using access positions also makes the check depend only on the order of
// dependent steps, which is what the partial-order reduction preserves.
//
// Some calls take effect in two or three parts, each at its own atomic
// step, with Gs in flight in between, held by no queue:
//
//   - runqput on a full ring: the CAS on head removes the first half of the
//     ring, then the global queue receives it (with the G put) under its lock;
//   - runqput(next) that displaces a runnext G: the CAS on runnext, then the
//     displaced G is put on the ring (which may overflow, as above);
//   - runqsteal of more than one G: the CAS on the victim's head (or
//     runnext), then the store of the thief's tail publishes all but the
//     returned G on the thief's ring.
//
// A thief stealing from the thief in the middle of its steal, or a reader of
// the ring while a displaced runnext G is in flight, sees exactly this, so
// the model has the same parts: each is linearized separately, in order,
// within the call's window.
//
// A steal with stealRunNext also looks at the victim in two parts when it
// does not take from the ring: it reads the ring empty (at its load of
// tail; head cannot pass tail), and only later reads or CASes runnext. So
// such a steal is two points, in order, within its window: one where the
// victim's ring is empty, and one where runnext holds the G it took (or
// holds none, for a steal that took nothing). spec.LocalQueue.StealOK
// alone, at one point, allows a runnext steal from a ring that is never
// empty during the call: the owner may refill the ring between the two
// reads, but a steal that never saw it empty is wrong.
//
// Every other call is one part.

const partsDone = -1

// The stages after the first part of a call (stage 0).
const (
	stageSpill       = 1 // a spill reaches the global queue
	stageKicked      = 2 // the displaced runnext G reaches the ring
	stagePublish     = 3 // a steal publishes its batch on the thief's ring
	stageTakeRunnext = 4 // a runnext steal, having seen the ring empty, takes runnext
	stageNoRunnext   = 5 // a runnext steal, having seen the ring empty, sees runnext empty
)

// alternative is one way the next part of a call can take effect.
type alternative struct {
	st       lstate
	stage    int
	inflight []spec.GID
}

// parts lists the ways the next part of call c (whose parts before stage
// are done, with inflight held) can take effect in st; none when c's
// observed result cannot come out of st.
func parts(c *CallRecord, stage int, inflight []spec.GID, st lstate) []alternative {
	if stage == 0 && (c.Call.Kind == Steal || c.Call.Kind == StealNext) {
		return stealParts(c, st)
	}
	switch stage {
	case stageTakeRunnext:
		v := st.locals[c.Call.Q]
		if v.RunNext == spec.NoG || v.RunNext != c.G {
			return nil
		}
		v.RunNext = spec.NoG
		return []alternative{{st.with(c.Call.Q, v), partsDone, nil}}
	case stageNoRunnext:
		if st.locals[c.Call.Q].RunNext != spec.NoG {
			return nil
		}
		return []alternative{{st, partsDone, nil}}
	}
	nst, nstage, ninflight, ok := part(c, stage, inflight, st)
	if !ok {
		return nil
	}
	return []alternative{{nst, nstage, ninflight}}
}

// stealParts is the first part of a steal: it takes its batch from the
// head of the victim's ring now, or (with stealRunNext, for a runnext G or
// nothing) sees the ring empty now and looks at runnext later.
func stealParts(c *CallRecord, st lstate) []alternative {
	srn := c.Call.Kind == StealNext
	v := st.locals[c.Call.Q]
	var out []alternative
	if c.G == spec.NoG {
		if len(v.Ring) != 0 {
			return nil
		}
		if srn {
			return []alternative{{st, stageNoRunnext, nil}}
		}
		return []alternative{{st, partsDone, nil}}
	}
	if len(c.Batch) == 0 || c.Batch[len(c.Batch)-1] != c.G {
		return nil // not what a steal can return (a record without its batch)
	}
	if srn && len(c.Batch) == 1 && len(v.Ring) == 0 {
		out = append(out, alternative{st, stageTakeRunnext, nil})
	}
	// From the ring: StealOK requires a prefix of it, of a legal size.
	if nv, ok := v.StealOK(c.Batch, false); ok {
		nst := st.with(c.Call.Q, nv)
		if len(c.Batch) == 1 {
			out = append(out, alternative{nst, partsDone, nil})
		} else {
			out = append(out, alternative{nst, stagePublish, slices.Clone(c.Batch[:len(c.Batch)-1])})
		}
	}
	return out
}

// part applies the next part of call c (whose parts before stage are done,
// with inflight held) to st. ok is false when c's observed result cannot
// come out of st.
func part(c *CallRecord, stage int, inflight []spec.GID, st lstate) (nst lstate, nstage int, ninflight []spec.GID, ok bool) {
	switch {
	case stage == 0 && (c.Call.Kind == Put):
		q, spill := st.locals[c.Own].Put(c.Call.G, false)
		if spill == nil {
			return st.with(c.Own, q), partsDone, nil, true
		}
		return st.with(c.Own, q), stageSpill, spill, true
	case stage == 0 && c.Call.Kind == PutNext:
		q := st.locals[c.Own]
		old := q.RunNext
		q.RunNext = c.Call.G
		if old == spec.NoG {
			return st.with(c.Own, q), partsDone, nil, true
		}
		return st.with(c.Own, q), stageKicked, []spec.GID{old}, true
	case stage == stageSpill:
		return lstate{st.locals, st.glob.PutBatch(inflight)}, partsDone, nil, true
	case stage == stageKicked:
		q, spill := st.locals[c.Own].Put(inflight[0], false)
		if spill == nil {
			return st.with(c.Own, q), partsDone, nil, true
		}
		return st.with(c.Own, q), stageSpill, spill, true
	case stage == stagePublish:
		q, rest := st.locals[c.Own].PutBatch(inflight)
		if len(rest) != 0 {
			return st, 0, nil, false
		}
		return st.with(c.Own, q), partsDone, nil, true
	}
	switch c.Call.Kind {
	case Get:
		q, g, inherit := st.locals[c.Own].Get()
		return st.with(c.Own, q), partsDone, nil, g == c.G && inherit == c.Inherit
	case Drain:
		q, all := st.locals[c.Own].Drain()
		return st.with(c.Own, q), partsDone, nil, slices.Equal(all, c.Gs)
	case Empty:
		return st, partsDone, nil, st.locals[c.Call.Q].EmptyOK(c.Empty)
	}
	panic(fmt.Sprintf("interleave: no linearization rule for %v at stage %d", c.Call.Kind, stage))
}

type linSearch struct {
	calls    []*CallRecord
	final    lstate
	stages   []int
	inflight [][]spec.GID
	failed   map[string]bool
}

// linearizable returns "" if some order of the calls' parts, respecting
// their windows, takes the initial state through their observed results to
// the observed final state; otherwise a description of the history.
func linearizable(ex *Execution) string {
	sc := ex.Scenario
	init := lstate{locals: make([]spec.LocalQueue, sc.Queues)}
	for i := range init.locals {
		init.locals[i] = spec.NewLocalQueue(sc.Cap)
		if i < len(sc.Init) {
			init.locals[i].Ring = slices.Clone(sc.Init[i].Ring)
			init.locals[i].RunNext = sc.Init[i].RunNext
		}
	}
	init.glob.Gs = slices.Clone(sc.Global)
	s := &linSearch{final: lstate{ex.Final, ex.FinalGlobal}, failed: map[string]bool{}}
	for i := range ex.Calls {
		s.calls = append(s.calls, &ex.Calls[i])
	}
	s.stages = make([]int, len(s.calls))
	s.inflight = make([][]spec.GID, len(s.calls))
	if s.search(init) {
		return ""
	}
	var b strings.Builder
	b.WriteString("no order of the calls within their windows agrees with spec; history (window = first..last atomic step):")
	for _, c := range s.calls {
		fmt.Fprintf(&b, "\n    %s", describeCall(sc, c))
	}
	fmt.Fprintf(&b, "\n    final: ")
	for i, q := range ex.Final {
		fmt.Fprintf(&b, "q%d %v; ", i, q)
	}
	fmt.Fprintf(&b, "global %v", ex.FinalGlobal.Gs)
	return b.String()
}

func describeCall(sc *Scenario, c *CallRecord) string {
	res := ""
	switch c.Call.Kind {
	case Get:
		res = fmt.Sprintf(" = g%d inherit=%v", c.G, c.Inherit)
	case Steal, StealNext:
		res = fmt.Sprintf(" = g%d", c.G)
		if len(c.Batch) > 1 {
			res += fmt.Sprintf(" (batch %v)", c.Batch)
		}
	case Drain:
		res = fmt.Sprintf(" = %v", c.Gs)
	case Empty:
		res = fmt.Sprintf(" = %v", c.Empty)
	}
	return fmt.Sprintf("[%3d..%3d] %-7s %s%s", c.First, c.Last, sc.Actors[c.Actor].Name, c.Call.describe(c.Own), res)
}

func (s *linSearch) key(st lstate) string {
	var b strings.Builder
	for i, stg := range s.stages {
		b.WriteString(strconv.Itoa(stg))
		for _, g := range s.inflight[i] {
			b.WriteByte(',')
			b.WriteString(strconv.Itoa(int(g)))
		}
		b.WriteByte(';')
	}
	b.WriteString(st.key())
	return b.String()
}

func (s *linSearch) search(st lstate) bool {
	open := false
	for _, stg := range s.stages {
		if stg != partsDone {
			open = true
			break
		}
	}
	if !open {
		return st.equal(s.final)
	}
	k := s.key(st)
	if s.failed[k] {
		return false
	}
	for i, c := range s.calls {
		if s.stages[i] == partsDone || !s.mayGo(i) {
			continue
		}
		oldStage, oldInflight := s.stages[i], s.inflight[i]
		for _, alt := range parts(c, oldStage, oldInflight, st) {
			s.stages[i], s.inflight[i] = alt.stage, alt.inflight
			if s.search(alt.st) {
				return true
			}
		}
		s.stages[i], s.inflight[i] = oldStage, oldInflight
	}
	s.failed[k] = true
	return false
}

// mayGo reports whether call i may take its next part now: no unfinished
// call ended (its last access) before i began (its first).
func (s *linSearch) mayGo(i int) bool {
	for j, c := range s.calls {
		if j != i && s.stages[j] != partsDone && c.Last < s.calls[i].First {
			return false
		}
	}
	return true
}
