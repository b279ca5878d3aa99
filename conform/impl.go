package conform

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Recorder collects impl events from racing goroutines: it is the
// Config.Trace of the run. Its mutex makes the recorded order a real-time
// order of the callbacks: if one callback returned before another began, it
// is recorded first. That is the only ordering the checker relies on.
type Recorder struct {
	mu  sync.Mutex
	evs []impl.Event
	off bool
}

// Trace records e (use it as impl.Config.Trace).
func (r *Recorder) Trace(e impl.Event) {
	r.mu.Lock()
	if !r.off {
		r.evs = append(r.evs, e)
	}
	r.mu.Unlock()
}

// Stop ends the recording and returns the events.
func (r *Recorder) Stop() []impl.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.off = true
	return r.evs
}

// Actors of observations that are not Ms.
const (
	actorSysmon  = -1 // Retake, RetakeHandoff
	actorOutside = -2 // InjectGList: Go or Ready from outside the scheduler
)

// emitAfter lists the actions whose event the impl emits after every effect
// of the step (so the step took effect before the event was recorded). The
// others emit before some of their effects (newproc before runqput and
// wakep, run's resetspinning and execute after a queue operation, ...):
// their effects end before the actor's next event.
var emitAfter = map[spec.ActionKind]bool{
	spec.ActBecomeSpinning: true, spec.ActSpinLimit: true, spec.ActStealMiss: true,
	spec.ActNeedSpinning: true, spec.ActReleaseP: true, spec.ActDropSpinning: true,
	spec.ActRecheckGlobalNoP: true, spec.ActRecheckRunqs: true, spec.ActRecheckRunqsNoP: true,
	spec.ActRecheckMiss: true, spec.ActExitSyscallFast: true, spec.ActExitSyscallOldP: true, spec.ActExitSyscallIdleP: true,
	spec.ActExitSyscallNoP: true, spec.ActExitSyscallGlobrunq: true,
	spec.ActRecheckFound: true, spec.ActWakep: true, spec.ActWakepSkip: true, spec.ActWakepNoP: true,
	spec.ActGlobal61Miss: true, spec.ActGlobRunqMiss: true, spec.ActSpinOK: true,
	spec.ActRetake: true, spec.ActStealEmptyRing: true,
}

// obs is one observed spec action. Its step took effect strictly after the
// event at lo and no later than the event at hi (positions in the recorded
// event list).
type obs struct {
	ev     impl.Event
	pos    int
	actor  int
	aidx   int // index of the actor in checker.actors
	lo, hi int
	// handoff, for an action that ends in handoffp (RetakeHandoff, and
	// an M's own: StopLockedM, EnterSyscallBlock, a locked G's GoExit):
	// the P went idle (handoffIdle) or to an M (handoffM), as the
	// EvHandoff after it says; 0 if not seen (a stop-the-world's
	// EvGCStopP instead).
	handoff uint8
	// handoffSpin: the M handoffp started was spinning (EvStartM's On).
	handoffSpin bool
	// lockedExit, for GoExit: the G exits locked to its M, which ends
	// with it (mexit).
	lockedExit bool
}

const (
	handoffIdle = 1 + iota
	handoffM
)

// ImplOptions configure CheckImpl.
type ImplOptions struct {
	// Bounds are the model: Ps, Cap, SchedTick, Syscalls and Go as the
	// impl ran (Procs, QueueCapacity, SchedTickPeriod, Config.Go). Ms, Gs,
	// Spawn and Netpoll are set by the checker (the spec's maxima; Netpoll
	// for the outside Go that starts the run, an InjectGList).
	Bounds spec.Bounds
	// MaxCandidates bounds the candidate configurations kept at once;
	// beyond it the verdict is Inconclusive. Default 1<<14.
	MaxCandidates int
	// Quiescent says the run ended with every M and P idle: the spec must
	// then be able to end there too (a lost wakeup shows here: the spec
	// would have started an M the run never had).
	Quiescent bool
	// StaleHandoff accepts a retake's handoffp that started an M on work
	// (or a spinning need) it read before its startm ran, when the state
	// at the startm no longer shows it; and one that idled the P on an
	// nmspinning it read non-zero (another M's wakep between its CAS and
	// its lock section) when the state at its lock section would start a
	// spinning M. The spec takes handoffp's reads and what follows them
	// as one step: filter "stale-handoff".
	StaleHandoff bool
	// RunnextKick accepts a steal that took a victim's runnext while the
	// G that runnext displaced was not yet in the victim's ring (runqput's
	// two atomic steps, one in the spec: filter "runnext-kick").
	RunnextKick bool
	// LongSyscallRetake accepts sysmon's retake of a P whose G has been in
	// a syscall for 10 ms when the spec's untimed rule does not allow it
	// (the spec leaves the timed rule out: filter "long-syscall-retake").
	LongSyscallRetake bool
	// RunqputSpill accepts a read of sched.runq's size (GlobRunqMiss,
	// Global61Miss) that found it without the Gs a runqput was moving
	// there: runqputslow takes half the full ring by a CAS of its head,
	// then puts them and the new G on sched.runq under sched.lock (two
	// steps, one in the spec: filter "runqput-spill").
	RunqputSpill bool
	// StealRetry accepts a steal from the victim's ring right after the
	// thief read that ring empty (StealEmptyRing): runqgrab's CAS of
	// runnext lost (runnext changed since its load) and runqgrab started
	// over from the ring, in the impl's same step. The thief's empty read
	// changed nothing anyone reads, so the retry is the spec's Steal as if
	// that read had come later (filter "steal-retry").
	StealRetry bool
}

// ImplResult is the verdict on one recorded run.
type ImplResult struct {
	Verdict Verdict
	Events  int // events recorded
	Actions int // EvAction observations checked
	// Rejected: Index is the position (in the recorded events) of the
	// observation no candidate could take next, Event that event; Explain
	// the spec actions its actor had enabled in the candidate states;
	// States those states (at most four).
	Index   int
	Event   impl.Event
	Explain []spec.Action
	States  []spec.State
	Reason  string
	// MaxFrontier is the largest number of candidate configurations kept
	// at once (what MaxCandidates bounds).
	MaxFrontier int
	// Filtered counts the observations a named filter accepted.
	Filtered map[string]int
}

func (r ImplResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d events, %d actions, frontier <= %d", r.Verdict, r.Events, r.Actions, r.MaxFrontier)
	for k, n := range r.Filtered {
		fmt.Fprintf(&b, ", filter %s x%d", k, n)
	}
	if r.Verdict == Accepted {
		return b.String()
	}
	fmt.Fprintf(&b, "\n%s", r.Reason)
	if r.Verdict == Rejected && r.Index >= 0 {
		fmt.Fprintf(&b, "\nat event %d: %v", r.Index, r.Event)
		fmt.Fprintf(&b, "\nspec actions its actor could take: %v", r.Explain)
		for i, s := range r.States {
			fmt.Fprintf(&b, "\ncandidate state %d:\n%v", i, s)
		}
	}
	return b.String()
}

// binding pairs an impl goroutine id with the spec G slot it occupies.
type binding struct {
	goid uint64
	g    spec.GID
}

// config is one candidate: how far each actor's observations have been
// taken, the spec state, and the live Gs' slots.
type config struct {
	cur  []int32 // per actor: index in checker.obs of its next untaken observation (len(obs) if none)
	st   spec.State
	bind []binding // sorted by goid
	// filtered lists the observations this candidate took through a named
	// filter (not part of the key: equal configurations are one candidate).
	filtered []filterUse
	// kicks are the runnext puts still in flight: actor's NewProc or Ready
	// on P p displaced G g from runnext, and the impl puts g into the ring
	// only after publishing the new runnext (two atomic steps; the spec
	// takes one). Until the actor's next observation a thief may see the
	// ring without g (filter "runnext-kick"). A kick with p spillP is a G
	// of a runqput's spill, on its way from the ring to sched.runq (filter
	// "runqput-spill").
	kicks []kick
	// moving[m] is 1 + the spec M slot that stands for impl M m once m's
	// stopm has taken effect (0: none; see renameStartM).
	moving [spec.MaxMs]int8
	// movingAt[m] is the observation (index in checker.obs) of m's stopm
	// that the move waits for: m's last StopM before the run's startm
	// named it (an M may stop and start several times before that).
	movingAt [spec.MaxMs]int32
}

type kick struct {
	actor int
	p     int8
	g     spec.GID
}

// spillP is the p of a kick that stands for a spilled G (runqputslow).
const spillP = -1

type filterUse struct {
	name string
	obs  int
}

func (c *config) key(dst []byte) []byte {
	for _, x := range c.cur {
		dst = append(dst, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	}
	dst = c.st.AppendKey(dst)
	for _, b := range c.bind {
		dst = append(dst, byte(b.goid), byte(b.goid>>8), byte(b.goid>>16), byte(b.g))
	}
	dst = append(dst, 0xff)
	for i, m := range c.moving {
		dst = append(dst, byte(m))
		if m != 0 {
			x := c.movingAt[i]
			dst = append(dst, byte(x), byte(x>>8), byte(x>>16))
		}
	}
	for _, k := range c.kicks {
		dst = append(dst, byte(k.actor), byte(k.p), byte(k.g))
	}
	return dst
}

func (c *config) slot(goid uint64) (spec.GID, bool) {
	for _, b := range c.bind {
		if b.goid == goid {
			return b.g, true
		}
	}
	return spec.NoG, false
}

// noCanonG, set by tests, keeps the candidates' G numbers as the spec
// steps chose them (no canonG).
var noCanonG bool

// debugMoves, set by tests, counts the startm renamings that park the
// started state until a busy M's stopm (in any candidate).
var debugMoves *int

// debugFront, set by tests, sees every level of the search.
var debugFront func(c *checker, taken int, front []config, fails []stepFail)

type checker struct {
	evs    []impl.Event
	md     spec.Model
	opt    ImplOptions
	obs    []obs
	actors []int
	aidx   map[int]int // actor -> its index in actors
	next   [][]int32   // per actor, its observations' indices in order
	res    ImplResult
}

// CheckImpl checks one recorded run of impl.Sched against spec/.
func CheckImpl(ctx context.Context, evs []impl.Event, opt ImplOptions) ImplResult {
	c := &checker{evs: evs, opt: opt, res: ImplResult{Events: len(evs), Index: -1, Filtered: map[string]int{}}}
	if c.opt.MaxCandidates <= 0 {
		c.opt.MaxCandidates = 1 << 14
	}
	b := opt.Bounds
	b.Ms, b.Gs, b.Spawn, b.Netpoll = spec.MaxMs, spec.MaxGs, spec.MaxSpawn, true
	md, err := spec.NewModel(b)
	if err != nil {
		return c.inconclusive("bounds: %v", err)
	}
	c.md = md
	for i, e := range evs {
		// A trace reader relies on the event contract (absent numbers
		// are -1), so a run that breaks it is rejected before any
		// search.
		if err := e.Check(); err != nil {
			c.res.Verdict, c.res.Index, c.res.Event = Rejected, i, e
			c.res.Reason = "malformed event: " + err.Error()
			return c.res
		}
	}
	if err := c.observe(evs); err != nil {
		return c.inconclusive("%v", err)
	}
	c.aidx = map[int]int{}
	for a, actor := range c.actors {
		c.aidx[actor] = a
	}
	c.res.Actions = len(c.obs)
	if len(c.obs) == 0 {
		return c.inconclusive("no scheduler action recorded")
	}
	first := c.obs[0]
	if first.ev.Action != spec.ActInjectGList {
		return c.inconclusive("the run does not start with the outside Go of its main G (InjectGList), but with %v", first.ev)
	}
	// The state before the outside Go: nothing runs, g1 is the G about
	// to be injected (waiting, as InjectGList requires), and p0 is on top
	// of sched.pidle, above the others as Init lists them (impl.New).
	st := md.Init()
	st.G[1] = spec.GWaiting
	st.P[0].Status = spec.PIdle
	st.M[0] = spec.MState{PC: spec.MIdle, P: spec.NoP}
	st.IdlePs[st.NPIdle] = 0
	st.NPIdle++
	init := config{cur: make([]int32, len(c.actors)), st: st, bind: []binding{{first.ev.G, 1}}}
	for a := range c.actors {
		init.cur[a] = c.next[a][0]
	}
	return c.search(ctx, init)
}

func (c *checker) inconclusive(format string, args ...any) ImplResult {
	c.res.Verdict = Inconclusive
	c.res.Reason = fmt.Sprintf(format, args...)
	return c.res
}

// observe extracts the EvAction observations and their intervals.
func (c *checker) observe(evs []impl.Event) error {
	aidx := map[int]int{}
	locked := map[uint64]bool{} // goid -> locked to its M (LockOSThread seen, no UnlockOSThread since)
	for pos, e := range evs {
		if e.Kind != impl.EvAction {
			continue
		}
		exitLocked := false
		switch e.Action {
		case spec.ActLockOSThread:
			locked[e.G] = true
		case spec.ActUnlockOSThread:
			delete(locked, e.G)
		case spec.ActGoExit:
			exitLocked = locked[e.G]
			delete(locked, e.G)
		}
		actor := int(e.M)
		switch e.Action {
		case spec.ActRetake, spec.ActRetakeHandoff:
			actor = actorSysmon
		case spec.ActInjectGList:
			actor = actorOutside
		}
		if actor < actorOutside {
			return fmt.Errorf("event %d: %v has no actor", pos, e)
		}
		a, ok := aidx[actor]
		if !ok {
			a = len(c.actors)
			aidx[actor] = a
			c.actors = append(c.actors, actor)
			c.next = append(c.next, nil)
		}
		o := obs{ev: e, pos: pos, actor: actor, aidx: a, lo: -1, hi: len(evs), lockedExit: exitLocked}
		if n := len(c.next[a]); n > 0 {
			prev := &c.obs[c.next[a][n-1]]
			o.lo = prev.pos
			if !emitAfter[prev.ev.Action] {
				prev.hi = pos
			}
		}
		if emitAfter[e.Action] {
			o.hi = pos
		}
		c.next[a] = append(c.next[a], int32(len(c.obs)))
		c.obs = append(c.obs, o)
	}
	// Tighter ends from the events that follow some effects.
	for i := range c.obs {
		o := &c.obs[i]
		switch o.ev.Action {
		case spec.ActRunqGet, spec.ActGlobal61, spec.ActGlobRunqGetBatch, spec.ActSteal, spec.ActStealRunnext,
			spec.ActRecheckGlobal, spec.ActExitSyscallLateP:
			// run: execute, whose status change is the step's last
			// effect (a spinning M's comes with ResetSpinning, its next
			// observation, so the search finds none before it).
			o.hi = c.statusAfter(evs, o, impl.Grunnable, impl.Grunning)
		case spec.ActEnterSyscall:
			o.hi = c.statusAfter(evs, o, impl.Grunning, impl.Gsyscall)
		case spec.ActStopM:
			// mput happened before whatever startm handed this M a P.
			for j := o.pos + 1; j < o.hi && j < len(evs); j++ {
				if e := evs[j]; e.Kind == impl.EvStartM && e.M == o.ev.M {
					o.hi = j
					break
				}
			}
		case spec.ActRetakeHandoff:
			// handoffp ends with EvHandoff (P idle) or its startm's EvStartM.
			if end := o.seeHandoff(evs); end >= 0 {
				o.hi = end
			}
		case spec.ActStopLockedM, spec.ActEnterSyscallBlock:
			o.seeHandoff(evs)
		case spec.ActGoExit:
			if o.lockedExit {
				o.seeHandoff(evs) // mexit's
			}
		}
		if o.hi < o.pos {
			o.hi = o.pos
		}
	}
	for a := range c.next {
		c.next[a] = append(c.next[a], int32(len(c.obs))) // sentinel
	}
	return nil
}

// statusAfter is the position of the first status change from → to of o's
// G after o, if it comes before o.hi (a step's effects that matter end with
// it), else o.hi.
func (c *checker) statusAfter(evs []impl.Event, o *obs, from, to impl.Gstatus) int {
	for j := o.pos + 1; j < o.hi && j < len(evs); j++ {
		if e := evs[j]; e.Kind == impl.EvGStatus && e.G == o.ev.G && e.From == from && e.To == to {
			return j
		}
	}
	return o.hi
}

// nextOf is the observation of actor a after observation i.
func (c *checker) nextOf(a int, i int32) int32 {
	// c.next[a] is sorted: find i and return its successor.
	k, _ := slices.BinarySearch(c.next[a], i)
	return c.next[a][k+1]
}

// eligible reports whether actor a's next observation may take effect next:
// no other actor's untaken observation must have ended before it began.
func (c *checker) eligible(cf *config, a int) bool {
	i := cf.cur[a]
	if int(i) == len(c.obs) {
		return false
	}
	lo := c.obs[i].lo
	for b, j := range cf.cur {
		if b != a && int(j) < len(c.obs) && c.obs[j].hi < lo {
			return false
		}
	}
	return true
}

type stepFail struct {
	kind string // "enabled", "observed", "cut", "bound"
	msg  string
}

func (c *checker) search(ctx context.Context, init config) ImplResult {
	front := []config{init}
	var keybuf []byte
	var lastFront []config
	var lastFails []stepFail
	for taken := 0; taken < len(c.obs); taken++ {
		if taken&255 == 0 && ctx.Err() != nil {
			return c.inconclusive("interrupted after %d of %d actions: %v", taken, len(c.obs), ctx.Err())
		}
		seen := map[string]int{}
		var nextFront []config
		var fails []stepFail
		add := func(nc config) {
			if !noCanonG {
				canonG(&nc)
			}
			keybuf = nc.key(keybuf[:0])
			if k, dup := seen[string(keybuf)]; dup {
				// Equal candidates are one; keep the explanation that
				// used fewer filters.
				if len(nc.filtered) < len(nextFront[k].filtered) {
					nextFront[k] = nc
				}
				return
			}
			seen[string(keybuf)] = len(nextFront)
			nextFront = append(nextFront, nc)
		}
		for fi := range front {
			cf := &front[fi]
			for a := range c.actors {
				if !c.eligible(cf, a) {
					continue
				}
				nc, f := c.apply(cf, a)
				if f != nil {
					fails = append(fails, *f)
					continue
				}
				add(nc)
			}
		}
		if debugFront != nil {
			debugFront(c, taken, nextFront, fails)
		}
		if len(nextFront) > c.opt.MaxCandidates {
			return c.inconclusive("more than %d candidate configurations after %d of %d actions", c.opt.MaxCandidates, taken+1, len(c.obs))
		}
		if len(nextFront) > c.res.MaxFrontier {
			c.res.MaxFrontier = len(nextFront)
		}
		if len(nextFront) == 0 {
			lastFront, lastFails = front, fails
			break
		}
		front = nextFront
	}
	if lastFront == nil {
		if c.opt.Quiescent {
			// The accepting explanation with the fewest filter uses.
			best := -1
			for i := range front {
				if quiescent(&front[i].st) && (best < 0 || len(front[i].filtered) < len(front[best].filtered)) {
					best = i
				}
			}
			if best >= 0 {
				c.accept(&front[best])
				return c.res
			}
			c.res.Verdict = Rejected
			c.res.Index = -1
			c.res.Reason = "the run ended with every M and P idle; no candidate spec state is (a step the spec requires, such as a wakeup, did not happen)"
			c.res.States = statesOf(front, 4)
			return c.res
		}
		best := 0
		for i := range front {
			if len(front[i].filtered) < len(front[best].filtered) {
				best = i
			}
		}
		c.accept(&front[best])
		return c.res
	}
	// No candidate could take any observation: rejected, unless a branch
	// was cut by a bound (then the run may still be a spec behaviour).
	for _, f := range lastFails {
		if f.kind == "cut" || f.kind == "bound" {
			return c.inconclusive("every candidate died; some left the spec's bounds: %s", f.msg)
		}
	}
	// Report the observation furthest along: the candidate whose earliest
	// untaken observation is latest, that observation.
	best := -1
	for _, cf := range lastFront {
		lo := int32(len(c.obs))
		for _, j := range cf.cur {
			lo = min(lo, j)
		}
		best = max(best, int(lo))
	}
	o := c.obs[best]
	c.res.Verdict = Rejected
	c.res.Index = o.pos
	c.res.Event = o.ev
	var reasons []string
	for _, f := range lastFails {
		if len(reasons) < 4 && !slices.Contains(reasons, f.msg) {
			reasons = append(reasons, f.msg)
		}
	}
	c.res.Reason = fmt.Sprintf("no candidate spec state can take any actor's next observation (%d candidates); e.g. %s", len(lastFront), strings.Join(reasons, "; "))
	for _, cf := range lastFront {
		for _, act := range c.md.Enabled(cf.st) {
			if act.Kind == spec.ActNetpoll {
				continue // the impl has no netpoller
			}
			if int(act.M) == o.actor || (act.M == spec.NoP && o.actor < 0) || (o.ev.Action == spec.ActPreempt && act.Kind == spec.ActPreempt) {
				if !slices.Contains(c.res.Explain, act) {
					c.res.Explain = append(c.res.Explain, act)
				}
			}
		}
	}
	c.res.States = statesOf(lastFront, 4)
	return c.res
}

// accept records the verdict and the filters the accepting candidate used.
func (c *checker) accept(cf *config) {
	c.res.Verdict = Accepted
	for _, f := range cf.filtered {
		c.res.Filtered[f.name]++
	}
}

func statesOf(cs []config, n int) []spec.State {
	var out []spec.State
	for _, cf := range cs {
		if len(out) == n {
			break
		}
		out = append(out, cf.st)
	}
	return out
}

// quiescent: every M parked and every P idle (the Gs' statuses are pinned
// by the observations).
func quiescent(s *spec.State) bool {
	for m := 0; m < s.NumMs(); m++ {
		if s.M[m].PC != spec.MIdle {
			return false
		}
	}
	return int(s.NPIdle) == s.NumPs()
}

// postP lists the actions whose event names the P the M holds after the
// step (it acquired one); the other M actions name the P held before.
var postP = map[spec.ActionKind]bool{
	spec.ActExitSyscallOldP: true, spec.ActExitSyscallIdleP: true, spec.ActExitSyscallLateP: true,
	spec.ActRecheckGlobal: true, spec.ActRecheckRunqs: true,
}

// runsG lists the actions after which the event's G runs on the M.
var runsG = map[spec.ActionKind]bool{
	spec.ActGlobal61: true, spec.ActRunqGet: true, spec.ActGlobRunqGetBatch: true,
	spec.ActSteal: true, spec.ActStealRunnext: true, spec.ActRecheckGlobal: true, spec.ActExitSyscallLateP: true,
}

// curG lists the actions taken by (or on) the M's current G, the event's G.
var curG = map[spec.ActionKind]bool{
	spec.ActGoExit: true, spec.ActGosched: true, spec.ActPark: true, spec.ActEnterSyscall: true,
	spec.ActExitSyscallFast: true, spec.ActExitSyscallOldP: true, spec.ActExitSyscallIdleP: true, spec.ActExitSyscallNoP: true,
	spec.ActExitSyscallGlobrunq: true, spec.ActPreempt: true,
	spec.ActEnterSyscallBlock: true, spec.ActLockOSThread: true, spec.ActUnlockOSThread: true,
	spec.ActStartLockedM: true,
}

// apply takes actor a's next observation in cf, returning the successor or
// why it cannot.
func (c *checker) apply(cf *config, a int) (config, *stepFail) {
	i := cf.cur[a]
	o := &c.obs[i]
	e := o.ev
	st := cf.st
	fail := func(kind, format string, args ...any) (config, *stepFail) {
		return config{}, &stepFail{kind, fmt.Sprintf("event %d %v: ", o.pos, e) + fmt.Sprintf(format, args...)}
	}
	if o.actor >= 0 && o.actor >= st.NumMs() {
		return fail("bound", "m%d beyond the spec's %d Ms", o.actor, st.NumMs())
	}
	if o.actor >= 0 {
		for x, to := range cf.moving {
			if int(to)-1 == o.actor {
				return fail("observed", "m%d acts while its spec slot stands for m%d, started before its stopm", o.actor, x)
			}
		}
	}
	var dead uint64 // a G the event names that the spec has no slot for
	act := e.SpecAction(func(goid uint64) spec.GID {
		g, ok := cf.slot(goid)
		if !ok {
			dead = goid
		}
		return g
	})
	if dead != 0 {
		return fail("observed", "g%d is not a live G of the spec", dead)
	}
	// What the event says about the state before the step.
	if o.actor >= 0 && e.Action != spec.ActPreempt {
		ms := &st.M[o.actor]
		if e.P >= 0 && !postP[e.Action] && int(ms.P) != int(e.P) {
			return fail("observed", "m%d holds p%d in the spec", o.actor, ms.P)
		}
		if curG[e.Action] {
			if g, _ := cf.slot(e.G); g == spec.NoG || ms.CurG != g {
				return fail("observed", "m%d's G is %v in the spec, g%d is bound to %v", o.actor, ms.CurG, e.G, g)
			}
		}
	}
	if e.Action == spec.ActPreempt {
		h := -1
		for m := 0; m < st.NumMs(); m++ {
			if int(st.M[m].P) == int(e.P) {
				h = m
			}
		}
		if h != int(e.M) {
			return fail("observed", "p%d is held by m%d in the spec", e.P, h)
		}
		if g, _ := cf.slot(e.G); g == spec.NoG || st.M[h].CurG != g {
			return fail("observed", "m%d's G differs", h)
		}
	}
	if e.Action == spec.ActNewProc {
		free := false
		for g := 1; g <= st.NumGs(); g++ {
			free = free || st.G[g] == spec.GIdle || st.G[g] == spec.GDead
		}
		if !free {
			return fail("bound", "more than the spec's %d live Gs", st.NumGs())
		}
	}
	var next spec.State
	var err error
	filter := ""
	next, err = c.md.Step(st, act)
	if err != nil && e.Action == spec.ActRetake && c.opt.LongSyscallRetake {
		next, err = c.longRetake(st, int(e.P))
		filter = "long-syscall-retake"
	}
	if e.Action == spec.ActSteal && c.opt.RunnextKick {
		// The spec's own steal, if it takes the observed G; else the steal
		// from the in-flight state of a kick on the victim.
		if err != nil || next.M[o.actor].CurG != c.slotOr(cf, e.G) {
			if n2, err2 := c.kickSteal(cf, act); err2 == nil && n2.M[o.actor].CurG == c.slotOr(cf, e.G) {
				next, err = n2, nil
				filter = "runnext-kick"
			}
		}
	}
	if (e.Action == spec.ActStealEmptyRing || e.Action == spec.ActRecheckMiss) && c.opt.RunnextKick && err != nil {
		// The ring read empty (by a thief, or by checkRunqsNoP's
		// runqempty) while the G a runqput displaced from runnext was not
		// in it yet.
		if n2, err2 := c.kickSteal(cf, act); err2 == nil {
			next, err = n2, nil
			filter = "runnext-kick"
		}
	}
	if (e.Action == spec.ActGlobRunqMiss || e.Action == spec.ActGlobal61Miss) && c.opt.RunqputSpill && err != nil {
		// sched.runq read without the Gs of a spill still in flight.
		if n2, err2 := c.spillMiss(cf, act); err2 == nil {
			next, err, filter = n2, nil, "runqput-spill"
		}
	}
	if e.Action == spec.ActSteal && c.opt.StealRetry && err != nil && st.M[o.actor].PC == spec.MStealNext {
		// runqgrab's runnext CAS lost; it started over from the ring.
		if n2, err2 := c.stealRetry(st, o.actor, act); err2 == nil {
			next, err, filter = n2, nil, "steal-retry"
		}
	}
	switch {
	case errors.Is(err, spec.ErrNoIdleM):
		return fail("cut", "%v needs an M beyond the spec's %d", act, st.NumMs())
	case err != nil:
		return fail("enabled", "%v", err)
	}
	if o.handoff != 0 && c.opt.StaleHandoff {
		idle := next.P[e.P].Status == spec.PIdle
		spun := !idle && c.startedSpinning(next, int(e.P))
		if o.handoff == handoffM && (idle || spun != o.handoffSpin) || o.handoff == handoffIdle && spun {
			if n2, err2 := c.staleHandoff(st, act, int(e.P), o); err2 == nil {
				next, filter = n2, "stale-handoff"
			}
		}
	}
	// What the event says about the state after it.
	if e.Action == spec.ActRetakeHandoff && o.handoff != 0 && (next.P[e.P].Status == spec.PIdle) != (o.handoff == handoffIdle) {
		return fail("observed", "handoffp gave p%d to %v in the spec, not as observed", e.P, map[bool]string{true: "the idle list", false: "an M"}[next.P[e.P].Status == spec.PIdle])
	}
	if o.actor >= 0 {
		ms := &next.M[o.actor]
		if postP[e.Action] && int(ms.P) != int(e.P) {
			return fail("observed", "m%d acquired p%d in the spec", o.actor, ms.P)
		}
		if runsG[e.Action] {
			if g, ok := cf.slot(e.G); !ok || ms.CurG != g {
				return fail("observed", "the spec runs %v, g%d is bound to %v", ms.CurG, e.G, g)
			}
		}
	}
	next.SpawnLeft = spec.MaxSpawn // a model budget, not runtime state
	nc := config{cur: slices.Clone(cf.cur), st: next, bind: cf.bind, moving: cf.moving, movingAt: cf.movingAt}
	if f := c.renameStartM(&nc, &st, o, a, i); f != "" {
		return fail("observed", "%s", f)
	}
	// The actor's earlier kicks have landed; a new one is in flight. A kick
	// a thief's step used stays in flight for the next thief: until the
	// putter's next observation its ring may still lack the G (kickSteal
	// checks the G is still the ring's last).
	for _, k := range cf.kicks {
		if k.actor != o.actor {
			nc.kicks = append(nc.kicks, k)
		}
	}
	if (e.Action == spec.ActNewProc || e.Action == spec.ActReady) && c.opt.RunnextKick {
		p := st.M[o.actor].P
		if old := st.P[p].RunNext; old != spec.NoG && next.P[p].N > 0 && next.P[p].Ring[next.P[p].N-1] == old {
			nc.kicks = append(nc.kicks, kick{o.actor, p, old})
		}
	}
	if e.Action.Spills() && c.opt.RunqputSpill && next.Runq.N > st.Runq.N {
		// The ring was full: the Gs the step put at sched.runq's tail
		// get there only under sched.lock, after the CAS.
		for i := st.Runq.N; i < next.Runq.N; i++ {
			nc.kicks = append(nc.kicks, kick{o.actor, spillP, next.Runq.Gs[i]})
		}
	}
	nc.cur[a] = c.nextOf(a, i)
	switch e.Action {
	case spec.ActNewProc:
		k := spec.NoG
		for g := 1; g <= st.NumGs(); g++ {
			if (st.G[g] == spec.GIdle || st.G[g] == spec.GDead) && next.G[g] == spec.GRunnable {
				k = spec.GID(g)
			}
		}
		if _, live := cf.slot(e.G); live || k == spec.NoG {
			return fail("observed", "new g%d is already live, or no slot", e.G)
		}
		nc.bind = append(slices.Clone(cf.bind), binding{e.G, k})
		slices.SortFunc(nc.bind, func(x, y binding) int { return cmpU64(x.goid, y.goid) })
	case spec.ActGoExit:
		nc.bind = slices.DeleteFunc(slices.Clone(cf.bind), func(b binding) bool { return b.goid == e.G })
	}
	nc.filtered = cf.filtered
	if filter != "" {
		nc.filtered = append(slices.Clone(cf.filtered), filterUse{filter, int(i)})
	}
	return nc, nil
}

// renameStartM renames spec M slots so that the slot a step's startm
// started is the impl M the run started (the EvStartM for the same P,
// before the actor's next observation or the end of the step's interval).
// The spec's startm takes the lowest idle M, a canonical choice: every idle
// M has the same state, and no variable names an M but its own slot, so
// swapping two slots gives the same behaviour up to names. The impl's mget
// takes whichever M parked last, and its handoffp may call startm well
// after it released the P, getting an M that was still busy at the spec's
// step: that M keeps its slot until its stopm takes effect, and then
// trades places with the slot started for it (moving).
func (c *checker) renameStartM(nc *config, st *spec.State, o *obs, a int, i int32) string {
	next := &nc.st
	if m := o.actor; m >= 0 && nc.moving[m] != 0 && next.M[m].PC == spec.MIdle && nc.movingAt[m] == i {
		to := int(nc.moving[m]) - 1
		next.M[m], next.M[to] = next.M[to], next.M[m]
		nc.moving[m] = 0
	}
	end := o.hi + 1
	if j := c.nextOf(a, i); int(j) < len(c.obs) {
		end = max(end, c.obs[j].pos)
	}
	end = min(end, len(c.evs))
	for s := 0; s < st.NumMs(); s++ {
		if s == o.actor || st.M[s].PC != spec.MIdle || next.M[s].PC == spec.MIdle || next.M[s].P == spec.NoP || movingTo(nc, s) {
			continue // (a slot parked for a move just now is done)
		}
		r, at := -1, 0
		for j := o.pos + 1; j < end; j++ {
			if e := c.evs[j]; e.Kind == impl.EvStartM && int(e.P) == int(next.M[s].P) {
				r, at = int(e.M), j
				break
			}
		}
		if r < 0 || r == s {
			continue // the run's startm is not in view, or agrees
		}
		if r >= st.NumMs() {
			return fmt.Sprintf("startm of m%d: beyond the spec's %d Ms", r, st.NumMs())
		}
		// The stopm that parked r for this startm: r's last StopM before
		// it. Until that observation is taken, r has more to do first.
		stop, pending := int32(-1), false
		if ar, ok := c.aidx[r]; ok {
			for _, k := range c.next[ar] {
				if int(k) == len(c.obs) || c.obs[k].pos >= at {
					break
				}
				// stopm, or the exit of a G locked to the M, which
				// ends the M (mexit) and frees its slot for the thread
				// startm makes next (the impl reuses its number).
				if a := c.obs[k].ev.Action; a == spec.ActStopM || a == spec.ActGoExit && c.obs[k].lockedExit {
					stop = k
				}
			}
			pending = stop >= 0 && nc.cur[ar] <= stop
		}
		switch {
		case !pending && st.M[r].PC == spec.MIdle && next.M[r].PC == spec.MIdle:
			next.M[s], next.M[r] = next.M[r], next.M[s]
		case nc.moving[r] != 0:
			return fmt.Sprintf("m%d is started twice before its stopm", r)
		default:
			// Park the started state in the highest idle slot, whose impl
			// M the run is least likely to have (it numbers its Ms in the
			// order it creates them), so that the slot it stands in for
			// stays free for whichever impl M it is.
			h := s
			for x := st.NumMs() - 1; x > s; x-- {
				if x != r && st.M[x].PC == spec.MIdle && next.M[x].PC == spec.MIdle && !movingTo(nc, x) {
					h = x
					break
				}
			}
			if !pending {
				return fmt.Sprintf("m%d is started for p%d but is busy with no stopm before", r, next.M[s].P)
			}
			next.M[s], next.M[h] = next.M[h], next.M[s]
			nc.moving[r] = int8(h) + 1
			nc.movingAt[r] = stop
			if debugMoves != nil {
				*debugMoves++
			}
		}
	}
	return ""
}

// movingTo reports whether slot x stands for an impl M's restart.
func movingTo(nc *config, x int) bool {
	for _, to := range nc.moving {
		if int(to)-1 == x {
			return true
		}
	}
	return false
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c *checker) slotOr(cf *config, goid uint64) spec.GID {
	g, _ := cf.slot(goid)
	return g
}

// kickSteal is the steal act from the state in which a kick on its victim
// is still in flight: the displaced G (the ring's last) not yet in the ring.
// The spec's Steal runs on that state, and the G lands in the ring after.
func (c *checker) kickSteal(cf *config, act spec.Action) (spec.State, error) {
	for _, k := range cf.kicks {
		ps := &cf.st.P[act.P]
		if k.p != act.P || ps.N == 0 || ps.Ring[ps.N-1] != k.g {
			continue
		}
		mid := cf.st
		mid.P[act.P].N--
		mid.P[act.P].Ring[mid.P[act.P].N] = spec.NoG
		next, err := c.md.Step(mid, act)
		if err != nil {
			return next, err
		}
		vp := &next.P[act.P]
		if int(vp.N) == len(vp.Ring) {
			return next, fmt.Errorf("ring full")
		}
		vp.Ring[vp.N] = k.g
		vp.N++
		return next, nil
	}
	return cf.st, fmt.Errorf("no kick in flight on p%d", act.P)
}

// spillMiss is act, a read of sched.runq's size that found it empty
// (GlobRunqMiss, Global61Miss), from the state in which the Gs of the
// spills in flight are not yet on sched.runq: they are in their putter's
// batch, between runqputslow's CAS and its lock section. The read changes
// no queue, so they are on sched.runq again after it, where the spill's
// lock section puts them. Filter "runqput-spill".
func (c *checker) spillMiss(cf *config, act spec.Action) (spec.State, error) {
	mid := cf.st
	var q spec.GlobalRunq
	n := 0
	for i := 0; i < int(mid.Runq.N); i++ {
		g := mid.Runq.Gs[i]
		if slices.ContainsFunc(cf.kicks, func(k kick) bool { return k.p == spillP && k.g == g }) {
			n++
			continue
		}
		q.Gs[q.N] = g
		q.N++
	}
	if n == 0 {
		return cf.st, fmt.Errorf("no spill in flight")
	}
	mid.Runq = q
	next, err := c.md.Step(mid, act)
	if err != nil {
		return next, err
	}
	if next.Runq != q {
		return next, fmt.Errorf("%v changed sched.runq", act)
	}
	next.Runq = cf.st.Runq
	return next, nil
}

// startedSpinning reports whether the M holding p in s is spinning.
func (c *checker) startedSpinning(s spec.State, p int) bool {
	for m := 0; m < s.NumMs(); m++ {
		if int(s.M[m].P) == p && s.M[m].PC == spec.MSched {
			return s.M[m].Spinning
		}
	}
	return false
}

// staleHandoff is a handoffp (sysmon's RetakeHandoff, or an M's own in
// StopLockedM, EnterSyscallBlock or a locked G's GoExit) whose reads were
// made before the point at which its step is applied, and decided as
// the run's events show, where the state at that point decides
// otherwise: it started an M (spinning or not, as observed) on work or a
// spinning need that is gone by its startm, or it idled the P on an
// nmspinning it read non-zero (another M's wakep between its CAS and its
// lock section) where the state would start a spinning M. proc.go's
// handoffp reads, then CASes, then takes sched.lock; the spec takes them
// as one step. The step is the spec's own (spec.Model.WithHandoffRead),
// with the observed decision in place of the reads, so the lock section,
// the startm and whatever the action does besides are the spec's. Filter
// "stale-handoff".
func (c *checker) staleHandoff(st spec.State, act spec.Action, p int, o *obs) (spec.State, error) {
	r := spec.HandoffReadIdle
	switch {
	case o.handoff == handoffM && !o.handoffSpin:
		r = spec.HandoffReadWork
	case o.handoff == handoffM:
		// The CAS from 0 was the handoff's; nobody counted since.
		if st.NMSpinning != 0 {
			return st, fmt.Errorf("a spinning handoff needs nmspinning 0")
		}
		r = spec.HandoffReadSpinning
	case st.LocalRunq(p, c.opt.Bounds.Cap).Len() != 0:
		// Only the P's holder fills its queue: the reads saw this work.
		return st, fmt.Errorf("p%d has work its handoffp read", p)
	}
	md := c.md.WithHandoffRead(r)
	next, err := md.Step(st, act)
	if err != nil {
		return st, err
	}
	if idle := next.P[p].Status == spec.PIdle; idle != (o.handoff == handoffIdle) || !idle && c.startedSpinning(next, p) != o.handoffSpin {
		return st, fmt.Errorf("handoffp of p%d as decided does not end as observed", p)
	}
	return next, nil
}

// seeHandoff records how o's handoffp ended, from the events after it:
// its EvHandoff (the P idle), or its EvHandoff and then its startm's
// EvStartM (an M started, spinning or not). It returns the position of
// the event that ends it, or -1 if none does before o's actor's next
// observation. The P is the handoff's until that end, so the first
// EvHandoff of it is this one's.
func (o *obs) seeHandoff(evs []impl.Event) int {
	started := false
	for j := o.pos + 1; j < o.hi && j < len(evs); j++ {
		e := evs[j]
		switch {
		case e.Kind == impl.EvGCStopP && e.P == o.ev.P && !started:
			return -1 // stopped for a stop-the-world: not a hand-off
		case e.Kind == impl.EvHandoff && e.P == o.ev.P && !started:
			if !e.On {
				o.handoff = handoffIdle
				return j
			}
			o.handoff = handoffM
			started = true
		case started && e.Kind == impl.EvStartM && e.P == o.ev.P:
			o.handoffSpin = e.On
			return j
		}
	}
	return -1
}

// longRetake is sysmon's retake of a P whose G has been in a syscall for
// 10 ms (the timed rule the spec leaves out): takeP, the M losing its P to
// sysmon, whose handoffp is the spec's own RetakeHandoff after. It is used
// only where the spec's own Retake is not enabled, under the filter
// long-syscall-retake.
func (c *checker) longRetake(s spec.State, p int) (spec.State, error) {
	h := -1
	for m := 0; m < s.NumMs(); m++ {
		if int(s.M[m].P) == p {
			h = m
		}
	}
	if h < 0 || s.M[h].PC != spec.MRun || s.G[s.M[h].CurG] != spec.GSyscall || s.RetakeP != 0 {
		return s, fmt.Errorf("spec: sysmon: Retake(p%d) is not enabled (p%d's G is not in a syscall, or sysmon holds a P)", p, p)
	}
	s.M[h].P, s.M[h].OldP = spec.NoP, int8(p)+1
	s.RetakeP = int8(p) + 1
	return s, nil
}

// canonG renumbers the spec's G slots of cf canonically: the live Gs (the
// bound ones) 1, 2, ... in the order of their impl goids, then the unbound
// slots by status (never used, then dead), in slot order. (A G's timer,
// TimerP and TimerWhen, moves with it; the impl runs are checked without
// spec timers, so those are zero.) The spec is
// symmetric in G numbers (spec/symmetry.go, "Symmetry over G identities"):
// a G is named only by its status slot, the queues, an M's curg, inj and
// lockedg, and the one choice among Gs, gfget's "lowest dead, else lowest
// unused", picks among slots that nothing else refers to, so a renumbering
// maps behaviours to behaviours. The checker names Gs only through the
// binding (renumbered with them) and the kicks in flight (renumbered too),
// so two candidates that differ by a renumbering explain the same future
// observations, and keeping one of them is sound: which slot a G got
// depends only on the order in which the candidate took NewProc and GoExit
// steps, which the trace does not pin.
func canonG(cf *config) {
	st := &cf.st
	n := st.NumGs()
	var label [spec.MaxGs + 1]spec.GID
	next := spec.GID(1)
	for _, b := range cf.bind {
		if int(b.g) >= 1 && int(b.g) <= n && label[b.g] == 0 {
			label[b.g] = next
			next++
		}
	}
	for _, want := range []spec.GStatus{spec.GIdle, spec.GDead} {
		for g := 1; g <= n; g++ {
			if label[g] == 0 && st.G[g] == want {
				label[g] = next
				next++
			}
		}
	}
	for g := 1; g <= n; g++ { // a live G with no binding: keep it somewhere
		if label[g] == 0 {
			label[g] = next
			next++
		}
	}
	ident := true
	for g := 1; g <= n; g++ {
		ident = ident && label[g] == spec.GID(g)
	}
	if ident {
		return
	}
	rl := func(g spec.GID) spec.GID {
		if g == spec.NoG || int(g) > n {
			return g
		}
		return label[g]
	}
	*st = st.RenumberGs(&label)
	bind := make([]binding, len(cf.bind))
	for i, b := range cf.bind {
		bind[i] = binding{b.goid, rl(b.g)}
	}
	cf.bind = bind
	if len(cf.kicks) > 0 {
		kicks := make([]kick, len(cf.kicks))
		for i, k := range cf.kicks {
			kicks[i] = kick{k.actor, k.p, rl(k.g)}
		}
		cf.kicks = kicks
	}
}

// stealRetry is the thief m's Steal act from the state in which its read
// of the victim's empty ring (StealEmptyRing, PC StealNext) had not
// happened: back at stealWork's victim (PC Steal, the victim not yet
// looked at). That read changed only m's own PC, scan and victim.
func (c *checker) stealRetry(st spec.State, m int, act spec.Action) (spec.State, error) {
	ms := &st.M[m]
	if int(ms.Victim) != int(act.P)+1 {
		return st, fmt.Errorf("m%d read p%d's ring, not p%d's", m, ms.Victim-1, act.P)
	}
	ms.PC, ms.Victim = spec.MSteal, 0
	ms.Scan &^= 1 << act.P
	return c.md.Step(st, act)
}
