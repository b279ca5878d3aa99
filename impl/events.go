package impl

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// EventKind classifies scheduler events.
type EventKind uint8

const (
	// EvAction is one step of the scheduler, named by the spec action it
	// implements (Event.Action, one of spec.ActionKinds): the goroutine
	// actions, the syscall exits, every step of findRunnable and its no-P
	// recheck, stopm, wakep's steps (which follow the action that called
	// wakep, in the same call), Preempt, Retake, RetakeHandoff, InjectGList.
	EvAction    EventKind = iota
	EvGStatus             // a G changed status: From → To
	EvRunqPut             // G put on P's local queue (On: into runnext)
	EvGlobPut             // G put on the global queue
	EvGlobBatch           // N Gs moved from the global queue to P's ring (G runs now)
	EvSteal               // M on P stole N Gs from Victim (G runs now)
	EvSpinning            // M's spinning flag became On
	EvStartM              // M started (woken or created) on P, spinning if On
	EvHandoff             // handoffp of P: to an M (On) or to the idle list
	// The steps of stop-the-world, procresize and timers that are not
	// spec actions, named after the runtime's functions (the spec's are
	// EvActions: StopTheWorld, GCStopM, StartTheWorld with N the new
	// gomaxprocs, StartTheWorldWakep). None occurs unless the API that
	// needs it is used (StopTheWorld, SetProcs, Sleep).
	EvGCStopP      // P stopped for stop-the-world inside another step: handoffp (M -1) or M's entersyscall
	EvProcResize   // procresize from Victim Ps to N
	EvTimerSleep   // G, run by M on P, parked with a timer on P's heap due in N µs
	EvCheckTimers  // M ran N due timers of its own P (G: the first readied, now on P's runnext)
	EvStealTimers  // M on P ran N due timers of Victim in stealWork's last round (G: the first)
	EvNetpollBlock // M went to sleep in the poller for N µs (On), or woke and took P (-1: none)
	EvNetpollBreak // M (-1: from outside) broke the poller's sleep
	numEventKinds
)

var eventKindNames = [numEventKinds]string{
	"Action", "GStatus", "RunqPut", "GlobPut", "GlobBatch", "Steal", "Spinning", "StartM", "Handoff",
	"GCStopP", "ProcResize", "TimerSleep", "CheckTimers", "StealTimers",
	"NetpollBlock", "NetpollBreak",
}

func (k EventKind) String() string {
	if k < numEventKinds {
		return eventKindNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one scheduler event. It is a small value so that emitting one
// allocates nothing; which fields mean something depends on Kind
// (Event.Check states it). M and P are -1 when absent (sysmon acts without
// an M, injectglist without a P), and so is Victim on every event that has
// none: the trace files carry every field, so that a reader never sees a
// P number that means nothing.
type Event struct {
	Kind     EventKind
	Action   spec.ActionKind // EvAction
	M, P     int32
	Victim   int32 // the P looked at (HasVictim): EvSteal, EvStealTimers, EvCheckTimers, a thief's or recheck's EvAction; EvProcResize's old gomaxprocs
	G        uint64
	Inj      uint64  // EvAction NetpollInject: the first G handed to injectglist (N of them)
	From, To Gstatus // EvGStatus
	N        int32
	On       bool
}

func (e Event) String() string {
	switch e.Kind {
	case EvAction:
		s := fmt.Sprintf("m%d p%d %v", e.M, e.P, e.Action)
		switch e.Action {
		case spec.ActSteal, spec.ActStealMiss, spec.ActStealEmptyRing, spec.ActStealRunnext:
			s += fmt.Sprintf("(p%d)", e.Victim)
		case spec.ActNetpollInject:
			s += fmt.Sprintf("(inject g%d n=%d)", e.Inj, e.N)
		}
		if e.G != 0 {
			s += fmt.Sprintf(" g%d", e.G)
		}
		return s
	case EvGStatus:
		return fmt.Sprintf("g%d %v→%v", e.G, e.From, e.To)
	default:
		victim := ""
		if e.HasVictim() {
			victim = fmt.Sprintf(" victim=%d", e.Victim)
		}
		return fmt.Sprintf("%v m%d p%d g%d%s n=%d on=%v", e.Kind, e.M, e.P, e.G, victim, e.N, e.On)
	}
}

// HasVictim reports whether e's Victim means something: the P a thief,
// a recheck or a timer run looks at, or procresize's old gomaxprocs.
func (e Event) HasVictim() bool {
	switch e.Kind {
	case EvSteal, EvProcResize, EvCheckTimers, EvStealTimers:
		return true
	case EvAction:
		switch e.Action {
		case spec.ActSteal, spec.ActStealMiss, spec.ActStealEmptyRing, spec.ActStealRunnext,
			spec.ActRecheckFound, spec.ActRecheckMiss, spec.ActCheckTimers, spec.ActStealTimers:
			return true
		}
	}
	return false
}

// withoutM reports whether k never names an M: a G's status change (its
// M, if any, names the action around it), handoffp (the M it starts names
// the EvStartM after it), a global batch and procresize.
func (k EventKind) withoutM() bool {
	return k == EvGStatus || k == EvHandoff || k == EvGlobBatch || k == EvProcResize
}

// Check reports whether e keeps the event contract a trace reader relies
// on: a Victim only where HasVictim (-1 elsewhere), no M on the kinds
// that name none (-1), and no number below -1.
func (e Event) Check() error {
	switch {
	case e.Kind >= numEventKinds:
		return fmt.Errorf("event kind %d", e.Kind)
	case e.M < -1 || e.P < -1 || e.Victim < -1:
		return fmt.Errorf("%v: a number below -1", e)
	case e.HasVictim() && e.Victim < 0:
		return fmt.Errorf("%v: no victim", e)
	case !e.HasVictim() && e.Victim != -1:
		return fmt.Errorf("%v: victim %d on an event that has none", e, e.Victim)
	case e.Kind.withoutM() && e.M != -1:
		return fmt.Errorf("%v: m%d on an event that names no M", e, e.M)
	case e.Kind == EvAction && e.M == -1 && e.P != -1 && !e.namesSysmonP():
		return fmt.Errorf("%v: p%d on an action taken without an M, which acts on no P", e, e.P)
	case e.Kind == EvAction && e.M != -1 && takenWithoutM(e.Action):
		return fmt.Errorf("%v: m%d on an action no M takes", e, e.M)
	}
	return nil
}

// takenWithoutM reports whether action k is never an M's step: sysmon's
// Retake and RetakeHandoff, the stopper's StopTheWorld, StartTheWorld,
// StartTheWorldWakep and ProcResizeGrow, injectglist from outside the
// scheduler, and the Driver's clock. (A Preempt names the M whose G it
// deschedules.)
func takenWithoutM(k spec.ActionKind) bool {
	switch k {
	case spec.ActRetake, spec.ActRetakeHandoff, spec.ActStopTheWorld, spec.ActStartTheWorld,
		spec.ActStartTheWorldWakep, spec.ActProcResizeGrow, spec.ActInjectGList, spec.ActTimerTick:
		return true
	}
	return false
}

// namesSysmonP reports whether e, an action taken without an M (sysmon's,
// the stopper's, or from outside the scheduler), names a P: sysmon's
// Preempt, Retake and RetakeHandoff act on one. The others (StopTheWorld,
// StartTheWorld with the new gomaxprocs in N, InjectGList, ...) hold none.
func (e Event) namesSysmonP() bool {
	switch e.Action {
	case spec.ActPreempt, spec.ActRetake, spec.ActRetakeHandoff:
		return true
	}
	return false
}

// Normalized is e with the numbers its kind does not use set to -1
// (Event.Check): Victim where HasVictim is false, M on the kinds that name
// none. The scheduler's trace function delivers events normalized, so its
// emitting sites leave those fields alone; trace files recorded before the
// contract are read through it too.
func (e Event) Normalized() Event {
	if !e.HasVictim() {
		e.Victim = -1
	}
	if e.Kind.withoutM() {
		e.M = -1
	}
	return e
}

// normalizedTrace wraps the user's trace function so that every event it
// receives is Normalized.
func normalizedTrace(user func(Event)) func(Event) {
	if user == nil {
		return nil
	}
	return func(e Event) { user(e.Normalized()) }
}

// emit delivers e if tracing is on. The nil check is the whole cost of
// tracing when it is off: Event is built on the stack and never escapes.
func (s *Sched) emit(e Event) {
	if s.trace != nil {
		s.trace(e)
	}
}

func (s *Sched) emitAction(a spec.ActionKind, m *M, p int32, g *G) {
	if s.trace != nil {
		mid := int32(-1)
		if m != nil {
			mid = m.id
		}
		s.trace(Event{Kind: EvAction, Action: a, M: mid, P: p, G: gidOf(g)})
	}
}

func (s *Sched) emitStatus(g *G, from, to Gstatus) {
	if s.trace != nil {
		s.trace(Event{Kind: EvGStatus, P: -1, G: g.goid, From: from, To: to})
	}
}

// SpecAction is the spec action an EvAction event names, with its
// parameters: the victim of a steal or recheck visit (of a timer steal
// too), the P of sysmon's Preempt, Retake and RetakeHandoff, a sleep's ticks (the
// Driver's clock counts nanoseconds as ticks), no M for the network's and
// the clock's steps, and the spec's numbers of the Gs it names (gid maps
// an impl goid to them). A netpoll list of more than two Gs has no spec
// action; its first injected G is named.
func (e Event) SpecAction(gid func(goid uint64) spec.GID) spec.Action {
	a := spec.Action{Kind: e.Action, M: int8(e.M), P: spec.NoP}
	switch e.Action {
	case spec.ActReady, spec.ActReadyHandoff, spec.ActNetpoll:
		a.G = gid(e.G)
	case spec.ActInjectGList:
		a.M, a.G = spec.NoP, gid(e.G)
	case spec.ActNetpollInject:
		a.G, a.Inj = gid(e.G), gid(e.Inj)
	case spec.ActSteal, spec.ActStealMiss, spec.ActStealEmptyRing, spec.ActStealRunnext, spec.ActRecheckFound, spec.ActRecheckMiss:
		a.P = int8(e.Victim)
	case spec.ActPreempt, spec.ActRetake, spec.ActRetakeHandoff:
		a.M, a.P = spec.NoP, int8(e.P)
	case spec.ActStartTheWorld, spec.ActProcResizeGrow:
		a.P = int8(e.N)
	case spec.ActStealTimers:
		a.P = int8(e.Victim)
	case spec.ActTimerSleep:
		a.P = int8(e.N) // the Driver's clock: ns are ticks
	case spec.ActNetpollReady:
		a.M, a.G = spec.NoP, gid(e.G)
	case spec.ActTimerTick:
		a.M = spec.NoP
	}
	return a
}
