package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/exp/trace"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Obs is one observation mapped from a runtime execution trace, in the
// spec's vocabulary: a G changed status (From → To) or a P changed hands.
type Obs struct {
	Index  int // position among the trace's events
	Time   trace.Time
	G      trace.GoID // the G that changed status (NoGoroutine for a P change)
	From   spec.GStatus
	To     spec.GStatus
	Reason string
	P      trace.ProcID // for a P change: the P; else the P of the event's context
	PFrom  trace.ProcState
	PTo    trace.ProcState
	CtxG   trace.GoID     // the G running where the event happened
	CtxP   trace.ProcID   // the P held where it happened
	M      trace.ThreadID // the thread (M)
	Action string         // the spec action (or filter) that explained it
	STW    int8           // +1, -1: a stop-the-world range begins, ends (no G, no P)
	System bool           // created with a start stack in the runtime's own packages
}

func (o Obs) String() string {
	if o.G != trace.NoGoroutine {
		s := fmt.Sprintf("#%d g%d %v→%v", o.Index, o.G, o.From, o.To)
		if o.Reason != "" {
			s += fmt.Sprintf(" (%s)", o.Reason)
		}
		return s + fmt.Sprintf(" on m%d p%d by g%d", o.M, o.CtxP, o.CtxG)
	}
	return fmt.Sprintf("#%d p%d %v→%v on m%d p%d by g%d", o.Index, o.P, o.PFrom, o.PTo, o.M, o.CtxP, o.CtxG)
}

// Filters are the named projections and abstractions of the runtime
// check: each is something the runtime does that the spec abstracts, with
// the reason (docs/conformance.md lists them).
var Filters = []struct{ Name, Reason string }{
	{"trace-start", "a G or P first seen in the state it had when tracing began (Undetermined → X): the trace does not say how it got there"},
	{"system-goroutine", "a goroutine of the runtime itself (GC workers, sweeper, scavenger, forcegc, finalizers, the trace reader): created blocked and woken by the runtime's own protocols (GC, STW), which the spec abstracts; it still occupies its P while it runs"},
	{"created-blocked", "a goroutine created in the waiting state (the runtime's own, e.g. GC mark workers): the spec creates Gs runnable only"},
	{"created-outside", "a goroutine created with no running G (runtime.main at start-up, a cgo callback): the spec's NewProc is a running G's go statement"},
	{"stop-the-world", "Ps stopped and restarted by the GC's stop-the-world, with no G on them: an orthogonal protocol the spec abstracts"},
}

// RuntimeResult is the verdict on one execution trace.
type RuntimeResult struct {
	Verdict  Verdict
	Events   int // trace events read
	Observed int // observations (G status and P changes) checked
	Users    int // user goroutines seen
	// System counts the runtime's own goroutines seen (GC workers, the
	// sweeper, the scavenger, ...) and SystemObs their observations: they
	// are checked by the same G/P rules, and projected out (filter
	// system-goroutine) only where no spec action changes a G that way.
	System, SystemObs int
	// Actions counts the observations by the spec action that explained
	// them; Filtered by the named filter that projected them out.
	Actions  map[string]int
	Filtered map[string]int
	// Rejected: the observation, the spec actions that could have
	// explained its G change, why none did, and the state of the Gs, Ps
	// and Ms involved.
	At      *Obs
	Explain []Change
	State   string
	Reason  string
	Elapsed time.Duration
}

func (r RuntimeResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: %d events, %d observations, %d user Gs, %d runtime Gs (%d observations)", r.Verdict, r.Events, r.Observed, r.Users, r.System, r.SystemObs)
	if r.Verdict != Accepted {
		fmt.Fprintf(&b, "\n%s", r.Reason)
	}
	if r.At != nil {
		fmt.Fprintf(&b, "\nat %v\nspec actions that change a G %v→%v: %v\nstate: %s", *r.At, r.At.From, r.At.To, r.Explain, r.State)
	}
	return b.String()
}

// rtG, rtP, rtM are the checker's G/P/M-level state.
type rtG struct {
	st     spec.GStatus
	p      trace.ProcID   // running on (Running), or held by its M (Syscall); NoProc if none
	m      trace.ThreadID // its M while Running or in a Syscall
	system bool
}

type rtP struct {
	st   trace.ProcState
	m    trace.ThreadID
	curg trace.GoID // the G running on it, NoGoroutine if none
}

type rtChecker struct {
	pr  []Change
	gs  map[trace.GoID]*rtG
	ps  map[trace.ProcID]*rtP
	ms  map[trace.ThreadID]trace.ProcID // the P each M holds
	res RuntimeResult
	// stw is set while a stop-the-world range is open.
	stw bool
}

// ErrTraceVersion is returned for a trace the parser cannot read (an
// older or newer format than golang.org/x/exp/trace supports).
var ErrTraceVersion = errors.New("conform: unsupported execution trace")

// CheckRuntime reads a Go execution trace (runtime/trace, go test -trace)
// and checks it against the spec at the G/P level.
func CheckRuntime(ctx context.Context, r io.Reader) RuntimeResult {
	c := newRTChecker()
	pr, err := Projection()
	if err != nil {
		c.res.Verdict, c.res.Reason = Inconclusive, err.Error()
		return c.res
	}
	c.pr = pr
	start := time.Now() // the projection is computed once per process, not per trace
	obs, n, err := MapTrace(ctx, r)
	c.res.Events = n
	if err != nil {
		c.res.Verdict, c.res.Reason = Inconclusive, err.Error()
		return c.res
	}
	c.checkObs(obs)
	c.res.Elapsed = time.Since(start)
	return c.res
}

// CheckObservations checks mapped observations (MapTrace's, or altered
// ones in the self-tests).
func CheckObservations(obs []Obs) RuntimeResult {
	c := newRTChecker()
	pr, err := Projection()
	if err != nil {
		c.res.Verdict, c.res.Reason = Inconclusive, err.Error()
		return c.res
	}
	c.pr = pr
	c.checkObs(obs)
	return c.res
}

func newRTChecker() *rtChecker {
	return &rtChecker{
		gs: map[trace.GoID]*rtG{}, ps: map[trace.ProcID]*rtP{}, ms: map[trace.ThreadID]trace.ProcID{},
		res: RuntimeResult{Actions: map[string]int{}, Filtered: map[string]int{}},
	}
}

// MapTrace reads an execution trace into observations: every G and P state
// transition, plus the stop-the-world ranges (Obs.STW). It returns the
// number of events read.
func MapTrace(ctx context.Context, r io.Reader) ([]Obs, int, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrTraceVersion, err)
	}
	var obs []Obs
	n := 0
	system := map[trace.GoID]bool{}
	for {
		if n&1023 == 0 && ctx.Err() != nil {
			return nil, n, fmt.Errorf("interrupted after %d events: %w", n, ctx.Err())
		}
		e, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, n, fmt.Errorf("reading event %d: %w", n, err)
		}
		n++
		switch e.Kind() {
		case trace.EventRangeBegin, trace.EventRangeEnd:
			if strings.Contains(e.Range().Name, "stop-the-world") {
				o := Obs{Index: n - 1, Time: e.Time(), G: trace.NoGoroutine, P: trace.NoProc, CtxG: e.Goroutine(), CtxP: e.Proc(), M: e.Thread(), STW: 1}
				if e.Kind() == trace.EventRangeEnd {
					o.STW = -1
				}
				obs = append(obs, o)
			}
		case trace.EventStateTransition:
			obs = append(obs, observe(e, n-1, system))
		}
	}
	return obs, n, nil
}

func (c *rtChecker) checkObs(obs []Obs) {
	for i := range obs {
		o := obs[i]
		if o.STW != 0 {
			c.stw = o.STW > 0
			continue
		}
		if o.System {
			c.g(o.G).system = true
		}
		c.res.Observed++
		if o.G != trace.NoGoroutine && c.g(o.G).system {
			c.res.SystemObs++
		}
		if why := c.step(&o); why != "" {
			c.res.Verdict = Rejected
			c.res.At = &o
			c.res.Reason = why
			if o.G != trace.NoGoroutine {
				c.res.Explain = explaining(c.pr, o.From, o.To)
			}
			c.res.State = c.describe(&o)
			return
		}
	}
	for _, g := range c.gs {
		if g.system {
			c.res.System++
		} else {
			c.res.Users++
		}
	}
	c.res.Verdict = Accepted
}

func goStatus(s trace.GoState) spec.GStatus {
	switch s {
	case trace.GoRunnable:
		return spec.GRunnable
	case trace.GoRunning:
		return spec.GRunning
	case trace.GoWaiting:
		return spec.GWaiting
	case trace.GoSyscall:
		return spec.GSyscall
	}
	return spec.GIdle // NotExist, Undetermined: absent
}

func observe(e trace.Event, index int, system map[trace.GoID]bool) Obs {
	st := e.StateTransition()
	o := Obs{Index: index, Time: e.Time(), G: trace.NoGoroutine, P: trace.NoProc,
		CtxG: e.Goroutine(), CtxP: e.Proc(), M: e.Thread(), Reason: st.Reason}
	switch st.Resource.Kind {
	case trace.ResourceGoroutine:
		o.G = st.Resource.Goroutine()
		from, to := st.Goroutine()
		o.From, o.To = goStatus(from), goStatus(to)
		if from == trace.GoUndetermined {
			o.Action = "trace-start"
		}
		if from == trace.GoNotExist && to == trace.GoWaiting {
			o.Action = "created-blocked"
		}
		if systemStart(st.Stack) {
			o.System = true
		}
	case trace.ResourceProc:
		o.P = st.Resource.Proc()
		o.PFrom, o.PTo = st.Proc()
		if o.PFrom == trace.ProcUndetermined {
			o.Action = "trace-start"
		}
	}
	return o
}

// systemStart reports whether a goroutine's start stack is the runtime's
// own (its entry function is in package runtime or runtime/trace, or an
// internal package).
func systemStart(s trace.Stack) bool {
	var last string
	for f := range s.Frames() {
		last = f.Func
	}
	return strings.HasPrefix(last, "runtime.") || strings.HasPrefix(last, "runtime/trace.") || strings.HasPrefix(last, "internal/")
}

func (c *rtChecker) g(id trace.GoID) *rtG {
	g, ok := c.gs[id]
	if !ok {
		g = &rtG{st: spec.GIdle, p: trace.NoProc, m: trace.NoThread}
		c.gs[id] = g
	}
	return g
}

func (c *rtChecker) p(id trace.ProcID) *rtP {
	p, ok := c.ps[id]
	if !ok {
		p = &rtP{st: trace.ProcUndetermined, m: trace.NoThread, curg: trace.NoGoroutine}
		c.ps[id] = p
	}
	return p
}

func (c *rtChecker) count(o *Obs, name string) {
	if o.Action == "" {
		o.Action = name
	}
	for _, f := range Filters {
		if f.Name == o.Action {
			c.res.Filtered[o.Action]++
			return
		}
	}
	c.res.Actions[o.Action]++
}

// step applies one observation, returning why the spec cannot explain it
// ("" if it can).
func (c *rtChecker) step(o *Obs) string {
	if o.G == trace.NoGoroutine {
		return c.stepP(o)
	}
	g := c.g(o.G)
	if o.Action == "trace-start" {
		c.setG(o, g)
		c.count(o, "")
		return ""
	}
	if g.st != o.From && !(g.st == spec.GIdle && o.From == spec.GIdle) {
		return fmt.Sprintf("g%d is %v in the checker's state, the trace says %v", o.G, g.st, o.From)
	}
	// Which spec actions change a G this way, and does the context fit?
	cands := explaining(c.pr, o.From, o.To)
	var whys, fit []string
	for _, ch := range cands {
		if ch.Kind == spec.ActPreempt && !strings.Contains(o.Reason, "preempt") ||
			ch.Kind == spec.ActGosched && strings.Contains(o.Reason, "preempt") {
			continue // the trace names the reason
		}
		if why := c.fits(o, g, ch); why != "" {
			whys = append(whys, fmt.Sprintf("%v: %s", ch.Kind, why))
		} else {
			fit = append(fit, ch.Kind.String())
		}
	}
	if len(fit) > 0 {
		c.count(o, strings.Join(fit, "|"))
		c.setG(o, g)
		return ""
	}
	// The named abstractions.
	switch {
	case o.Action == "created-blocked":
		g.system = true
	case g.system && !(o.From == spec.GRunnable && o.To == spec.GRunning):
		// (a system G still obeys the P rules: one G per P, on a P its M holds)
		o.Action = "system-goroutine"
	case o.From == spec.GIdle && o.To == spec.GRunnable && o.CtxG == trace.NoGoroutine:
		o.Action = "created-outside"
	case o.From == spec.GIdle && o.To == spec.GSyscall:
		o.Action = "created-outside"
	}
	if o.Action != "" {
		c.count(o, "")
		c.setG(o, g)
		return ""
	}
	if len(cands) == 0 {
		return fmt.Sprintf("no spec action changes a G %v→%v", o.From, o.To)
	}
	return "no spec action fits: " + strings.Join(whys, "; ")
}

// fits checks the context of an observed G change against one spec action.
func (c *rtChecker) fits(o *Obs, g *rtG, ch Change) string {
	switch {
	case ch.Self && o.From == spec.GRunning:
		// The G does it to itself, on the M that runs it.
		if o.CtxG != o.G {
			return fmt.Sprintf("done by g%d, not by the running G itself", o.CtxG)
		}
		if g.m != o.M {
			return fmt.Sprintf("g%d runs on m%d, the event is on m%d", o.G, g.m, o.M)
		}
	case ch.Self && o.From == spec.GSyscall:
		if g.m != o.M && g.m != trace.NoThread {
			return fmt.Sprintf("g%d entered its syscall on m%d, leaves it on m%d", o.G, g.m, o.M)
		}
		switch ch.Kind {
		case spec.ActExitSyscallFast:
			if o.CtxP == trace.NoProc || g.p != o.CtxP {
				return "the M does not still hold the P it entered the syscall with"
			}
		case spec.ActExitSyscallOldP:
			// The P the G entered its syscall with, taken back from the
			// M that held it since (itself in a syscall).
			if o.CtxP == trace.NoProc || c.ms[o.M] != o.CtxP || g.p != o.CtxP {
				return "the M does not hold its old P again"
			}
		case spec.ActExitSyscallIdleP:
			if o.CtxP == trace.NoProc || c.ms[o.M] != o.CtxP {
				return "the M holds no P"
			}
			if g.p == o.CtxP {
				return "the M still holds its P (that is the fast path)"
			}
		case spec.ActExitSyscallNoP:
			if g.p != trace.NoProc && c.p(g.p).m == o.M && o.CtxP != trace.NoProc {
				return fmt.Sprintf("the M still holds p%d (ExitSyscallNoP needs its P retaken)", g.p)
			}
		}
	case o.From == spec.GRunnable && o.To == spec.GRunning:
		// An M holding a P with no G picks this G.
		if o.CtxP == trace.NoProc {
			return "the M holds no P"
		}
		p := c.p(o.CtxP)
		if p.st == trace.ProcIdle {
			return fmt.Sprintf("p%d is idle", o.CtxP)
		}
		if p.curg != trace.NoGoroutine && p.curg != o.G {
			return fmt.Sprintf("p%d already runs g%d", o.CtxP, p.curg)
		}
		if p.m != trace.NoThread && p.m != o.M {
			return fmt.Sprintf("p%d is held by m%d, not m%d", o.CtxP, p.m, o.M)
		}
	case ch.Kind == spec.ActNewProc || ch.Kind == spec.ActReady:
		// A running G creates or readies another.
		if o.CtxG == trace.NoGoroutine {
			return "no G is running where it happens"
		}
		if cg := c.g(o.CtxG); cg.st != spec.GRunning {
			return fmt.Sprintf("g%d, which does it, is %v", o.CtxG, cg.st)
		}
	case ch.Kind == spec.ActInjectGList:
		// netpoll, timers: readied from outside any G (or by one: a
		// timer run in a G's context is still the runtime's, not the G's).
	case ch.Kind == spec.ActNetpoll:
		return "the trace shows a G readied and run as two changes"
	}
	return ""
}

func (c *rtChecker) setG(o *Obs, g *rtG) {
	if (g.st == spec.GRunning || g.st == spec.GSyscall) && o.To != spec.GSyscall && g.p != trace.NoProc {
		if p := c.p(g.p); p.curg == o.G {
			p.curg = trace.NoGoroutine
		}
	}
	g.st = o.To
	switch o.To {
	case spec.GRunning:
		g.p, g.m = o.CtxP, o.M
		if o.CtxP != trace.NoProc {
			p := c.p(o.CtxP)
			p.curg, p.m = o.G, o.M
			if p.st != trace.ProcRunning {
				p.st = trace.ProcRunning
			}
			c.ms[o.M] = o.CtxP
		}
	case spec.GSyscall:
		if g.p == trace.NoProc {
			g.p = o.CtxP
		}
		g.m = o.M
	default:
		g.p, g.m = trace.NoProc, trace.NoThread
	}
}

// stepP applies a P change: acquired (Idle → Running) by an M holding none,
// released (Running → Idle) with no G on it, or taken from an M whose G is
// in a syscall (Retake).
func (c *rtChecker) stepP(o *Obs) string {
	p := c.p(o.P)
	if o.Action == "trace-start" {
		p.st = o.PTo
		if o.PTo == trace.ProcRunning {
			p.m = o.M
			c.ms[o.M] = o.P
		}
		c.count(o, "")
		return ""
	}
	if p.st != trace.ProcUndetermined && p.st != o.PFrom {
		return fmt.Sprintf("p%d is %v in the checker's state, the trace says %v", o.P, p.st, o.PFrom)
	}
	switch {
	case o.PFrom == trace.ProcIdle && o.PTo == trace.ProcRunning:
		// pidleget + acquirep (startm, exitsyscall, the rechecks).
		if held, ok := c.ms[o.M]; ok && held != trace.NoProc && held != o.P && c.p(held).m == o.M && c.p(held).st == trace.ProcRunning {
			return fmt.Sprintf("m%d acquires p%d while holding p%d", o.M, o.P, held)
		}
		p.st, p.m, p.curg = trace.ProcRunning, o.M, trace.NoGoroutine
		c.ms[o.M] = o.P
		c.count(o, "pidleget")
	case o.PFrom == trace.ProcRunning && o.PTo == trace.ProcIdle:
		holderG := trace.NoGoroutine
		for id, g := range c.gs {
			if g.p == o.P && (g.st == spec.GRunning || g.st == spec.GSyscall) {
				holderG = id
			}
		}
		switch {
		case holderG != trace.NoGoroutine && c.gs[holderG].st == spec.GSyscall && o.CtxP != o.P:
			c.count(o, spec.ActRetake.String())
		case holderG != trace.NoGoroutine && c.gs[holderG].st == spec.GSyscall:
			// entersyscallblock: the M hands its own P off at once.
			c.count(o, spec.ActEnterSyscallBlock.String())
		case holderG != trace.NoGoroutine && c.gs[holderG].st == spec.GRunning:
			if c.stw {
				c.count(o, "stop-the-world")
			} else {
				return fmt.Sprintf("p%d released while g%d runs on it", o.P, holderG)
			}
		case c.stw && o.CtxP != o.P:
			c.count(o, "stop-the-world")
		default:
			c.count(o, spec.ActReleaseP.String())
		}
		if holderG != trace.NoGoroutine {
			c.gs[holderG].p = trace.NoProc
		}
		if c.ms[p.m] == o.P {
			delete(c.ms, p.m)
		}
		p.st, p.m, p.curg = trace.ProcIdle, trace.NoThread, trace.NoGoroutine
	default:
		c.count(o, "trace-start")
		p.st = o.PTo
	}
	return ""
}

func (c *rtChecker) describe(o *Obs) string {
	var parts []string
	if o.G != trace.NoGoroutine {
		g := c.g(o.G)
		parts = append(parts, fmt.Sprintf("g%d: %v p%d m%d system=%v", o.G, g.st, g.p, g.m, g.system))
	}
	if o.CtxG != trace.NoGoroutine {
		g := c.g(o.CtxG)
		parts = append(parts, fmt.Sprintf("g%d (context): %v p%d m%d", o.CtxG, g.st, g.p, g.m))
	}
	var pids []int
	for id := range c.ps {
		pids = append(pids, int(id))
	}
	sort.Ints(pids)
	for _, id := range pids {
		p := c.ps[trace.ProcID(id)]
		parts = append(parts, fmt.Sprintf("p%d: %v m%d g%d", id, p.st, p.m, p.curg))
	}
	return strings.Join(parts, "; ")
}

// Summary is "k: n, ..." of a count map, sorted by name.
func Summary(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	var b strings.Builder
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
}
