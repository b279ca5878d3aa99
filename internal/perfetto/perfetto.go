// Package perfetto turns the reference scheduler's event stream
// (impl.Config.Trace) into Chrome trace-event JSON, the format that
// ui.perfetto.dev and chrome://tracing load:
//
//   - a track per P (process "Ps") and per M (process "Ms");
//   - a slice per run of a G, on the track of the P it ran on and of the M
//     that ran it, named after the G ("g5") so that each G keeps one colour;
//     a G in a system call is a "syscall g5" slice on its M's track;
//   - instant events for steals, spinning, startm, handoffs, preemptions,
//     retakes and releasep (every other spec action too, with
//     Options.AllActions);
//   - a flow arrow from a G's run on one P to its next run on another;
//   - a counter track of the spinning Ms.
//
// Recorder collects the events (it is safe for concurrent use, as
// Config.Trace must be); Validate checks a trace against the format.
package perfetto

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Track ids: pids of the three processes of the trace.
const (
	PidPs    = 1 // one thread (track) per P
	PidMs    = 2 // one thread per M
	PidSched = 3 // sysmon's instants and the counters
)

// Event is one trace event. Timestamps and durations are in microseconds.
type Event struct {
	Name string         `json:"name,omitempty"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   string         `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// Options configure a Recorder.
type Options struct {
	// Now is the clock, in microseconds; nil is the wall clock since
	// NewRecorder. The recorder makes the timestamps strictly increasing
	// (MinGap apart) whatever the clock says.
	Now func() float64
	// MinGap is the least distance between two events' timestamps
	// (default 0.001 µs, a nanosecond).
	MinGap float64
	// MaxEvents stops recording new events past this many (0: 1,000,000);
	// runs still open are closed by Finish. Dropped counts the rest.
	MaxEvents int
	// AllActions records every spec action as an instant on its M's track
	// (the driver's traces, where each step matters); otherwise only the
	// ones listed in the package comment.
	AllActions bool
}

type run struct {
	g        uint64
	m, p     int32
	start    float64
	how      string
	flowFrom *slot // the previous run on another P, to draw a flow from
}

// slot is a closed slice, a flow's source.
type slot struct {
	pid, tid   int
	start, end float64
}

// Recorder builds a trace from impl events. Use its Event method as
// impl.Config.Trace, then Finish and Write.
type Recorder struct {
	mu       sync.Mutex
	opt      Options
	t0       time.Time
	last     float64
	events   []Event
	dropped  int
	running  map[uint64]*run  // G → its open run
	syscalls map[uint64]*run  // G → its open syscall slice
	lastRun  map[uint64]*slot // G → the P slice of its last run
	lastP    map[uint64]int32
	ps, ms   map[int32]bool
	spinning int
	flows    int
	finished bool
}

// NewRecorder returns an empty recorder.
func NewRecorder(opt Options) *Recorder {
	if opt.MinGap <= 0 {
		opt.MinGap = 0.001
	}
	if opt.MaxEvents <= 0 {
		opt.MaxEvents = 1_000_000
	}
	return &Recorder{
		opt: opt, t0: time.Now(), last: -1,
		running: map[uint64]*run{}, syscalls: map[uint64]*run{},
		lastRun: map[uint64]*slot{}, lastP: map[uint64]int32{},
		ps: map[int32]bool{}, ms: map[int32]bool{},
	}
}

// now returns the next timestamp. mu held.
func (r *Recorder) now() float64 {
	var t float64
	if r.opt.Now != nil {
		t = r.opt.Now()
	} else {
		t = float64(time.Since(r.t0).Nanoseconds()) / 1e3
	}
	if t < r.last+r.opt.MinGap {
		t = r.last + r.opt.MinGap
	}
	r.last = t
	return t
}

func (r *Recorder) add(e Event) {
	if len(r.events) >= r.opt.MaxEvents {
		r.dropped++
		return
	}
	r.events = append(r.events, e)
}

func (r *Recorder) seeP(p int32) {
	if p >= 0 {
		r.ps[p] = true
	}
}

func (r *Recorder) seeM(m int32) {
	if m >= 0 {
		r.ms[m] = true
	}
}

func gname(g uint64) string { return "g" + strconv.FormatUint(g, 10) }

func (r *Recorder) instant(pid int, tid int32, ts float64, name string, args map[string]any) {
	if tid < 0 {
		pid, tid = PidSched, 0
	}
	r.add(Event{Name: name, Cat: "sched", Ph: "i", S: "t", Ts: ts, Pid: pid, Tid: int(tid), Args: args})
}

// Running opens a run of g on m and p that began before the recorder saw
// it (the Driver's main G, running on m0 and p0 from the start).
func (r *Recorder) Running(g uint64, m, p int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.startRun(r.now(), g, m, p, "running at start")
}

// runStarts lists the actions after which their G runs on the event's M and P.
var runStarts = map[spec.ActionKind]bool{
	spec.ActRunqGet: true, spec.ActGlobal61: true, spec.ActGlobRunqGetBatch: true, spec.ActSteal: true,
	spec.ActRecheckGlobal: true, spec.ActExitSyscallFast: true, spec.ActExitSyscallIdleP: true,
	spec.ActExitSyscallLateP: true, spec.ActNetpoll: true,
}

// runEnds lists the actions that end the run of their G.
var runEnds = map[spec.ActionKind]bool{
	spec.ActGoExit: true, spec.ActGosched: true, spec.ActPreempt: true, spec.ActPark: true, spec.ActEnterSyscall: true,
}

// Event records one scheduler event: pass it as impl.Config.Trace.
func (r *Recorder) Event(e impl.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	ts := r.now()
	r.seeM(e.M)
	r.seeP(e.P)
	switch e.Kind {
	case impl.EvAction:
		r.action(ts, e)
	case impl.EvSteal:
		r.seeP(e.Victim)
		r.instant(PidPs, e.P, ts, fmt.Sprintf("steal %d from p%d", e.N, e.Victim),
			map[string]any{"m": e.M, "victim": e.Victim, "n": e.N, "g": e.G})
	case impl.EvSpinning:
		name := "spinning"
		if e.On {
			r.spinning++
		} else {
			name = "spin off"
			r.spinning = max(0, r.spinning-1)
		}
		r.instant(PidMs, e.M, ts, name, nil)
		r.add(Event{Name: "spinning Ms", Ph: "C", Ts: ts, Pid: PidSched, Tid: 0, Args: map[string]any{"nmspinning": r.spinning}})
	case impl.EvStartM:
		name := "startm p" + strconv.Itoa(int(e.P))
		if e.On {
			name += " spinning"
		}
		r.instant(PidMs, e.M, ts, name, map[string]any{"p": e.P, "spinning": e.On})
	case impl.EvHandoff:
		name := "handoff → idle"
		if e.On {
			name = "handoff → M"
		}
		r.instant(PidPs, e.P, ts, name, nil)
	}
}

func (r *Recorder) action(ts float64, e impl.Event) {
	a := e.Action
	switch {
	case runEnds[a]:
		if x := r.running[e.G]; x != nil {
			r.endRun(ts, x, a.String())
		}
		if a == spec.ActEnterSyscall {
			r.syscalls[e.G] = &run{g: e.G, m: e.M, p: e.P, start: ts}
		}
		if a == spec.ActPreempt {
			r.instant(PidPs, e.P, ts, "preempt "+gname(e.G), map[string]any{"g": e.G})
		}
	case runStarts[a]:
		if x := r.syscalls[e.G]; x != nil {
			r.endSyscall(ts, x, a.String())
		}
		if x := r.running[e.G]; x != nil { // not seen to end: close it here
			r.endRun(ts, x, "?")
		}
		r.startRun(ts, e.G, e.M, e.P, a.String())
	case a == spec.ActExitSyscallNoP:
		if x := r.syscalls[e.G]; x != nil {
			r.endSyscall(ts, x, a.String())
		}
	case a == spec.ActRetake:
		r.instant(PidPs, e.P, ts, "retake (syscall "+gname(e.G)+")", map[string]any{"g": e.G})
	case a == spec.ActReleaseP:
		r.instant(PidPs, e.P, ts, "releasep", map[string]any{"m": e.M})
	}
	if r.opt.AllActions || a == spec.ActStopM {
		args := map[string]any{"p": e.P}
		if e.G != 0 {
			args["g"] = e.G
		}
		name := a.String()
		if a == spec.ActSteal || a == spec.ActStealMiss || a == spec.ActRecheckFound || a == spec.ActRecheckMiss {
			name += "(p" + strconv.Itoa(int(e.Victim)) + ")"
		}
		if e.M >= 0 {
			r.instant(PidMs, e.M, ts, name, args)
		} else {
			r.instant(PidSched, 0, ts, name, args)
		}
	}
}

func (r *Recorder) startRun(ts float64, g uint64, m, p int32, how string) {
	r.seeM(m)
	r.seeP(p)
	x := &run{g: g, m: m, p: p, start: ts, how: how}
	if prev, ok := r.lastP[g]; ok && prev != p {
		x.flowFrom = r.lastRun[g]
	}
	r.running[g] = x
}

func (r *Recorder) endRun(ts float64, x *run, end string) {
	delete(r.running, x.g)
	d := ts - x.start
	args := map[string]any{"g": x.g, "m": x.m, "p": x.p, "start": x.how, "end": end}
	name := gname(x.g)
	if x.p >= 0 {
		r.add(Event{Name: name, Cat: "g", Ph: "X", Ts: x.start, Dur: &d, Pid: PidPs, Tid: int(x.p), Args: args})
	}
	if x.m >= 0 {
		d2 := d
		r.add(Event{Name: name, Cat: "g", Ph: "X", Ts: x.start, Dur: &d2, Pid: PidMs, Tid: int(x.m), Args: args})
	}
	if x.p < 0 {
		return
	}
	if f := x.flowFrom; f != nil {
		r.flows++
		id := strconv.Itoa(r.flows)
		r.add(Event{Name: name + " moves", Cat: "move", Ph: "s", ID: id, Ts: (f.start + f.end) / 2, Pid: f.pid, Tid: f.tid})
		r.add(Event{Name: name + " moves", Cat: "move", Ph: "f", Bp: "e", ID: id, Ts: x.start + d/2, Pid: PidPs, Tid: int(x.p)})
	}
	r.lastRun[x.g] = &slot{pid: PidPs, tid: int(x.p), start: x.start, end: ts}
	r.lastP[x.g] = x.p
}

func (r *Recorder) endSyscall(ts float64, x *run, end string) {
	delete(r.syscalls, x.g)
	if x.m < 0 {
		return
	}
	d := ts - x.start
	r.add(Event{Name: "syscall " + gname(x.g), Cat: "syscall", Ph: "X", Ts: x.start, Dur: &d, Pid: PidMs, Tid: int(x.m),
		Args: map[string]any{"g": x.g, "end": end}})
}

// Finish closes the runs and syscalls still open (a G still running when
// the trace ends) and stops recording.
func (r *Recorder) Finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.finished {
		return
	}
	ts := r.now()
	gs := make([]uint64, 0, len(r.running))
	for g := range r.running {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i] < gs[j] })
	for _, g := range gs {
		r.endRun(ts, r.running[g], "trace end")
	}
	gs = gs[:0]
	for g := range r.syscalls {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i] < gs[j] })
	for _, g := range gs {
		r.endSyscall(ts, r.syscalls[g], "trace end")
	}
	r.finished = true
}

// Dropped is the number of events not recorded past Options.MaxEvents.
func (r *Recorder) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Trace is a whole trace file.
type Trace struct {
	TraceEvents     []Event        `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData,omitempty"`
}

// Trace returns the trace: the metadata naming every track, then the
// events sorted by timestamp. It calls Finish.
func (r *Recorder) Trace(title string) Trace {
	r.Finish()
	r.mu.Lock()
	defer r.mu.Unlock()
	meta := func(pid, tid int, name string, args map[string]any) Event {
		return Event{Name: name, Ph: "M", Pid: pid, Tid: tid, Args: args}
	}
	var out []Event
	for _, p := range []struct {
		pid  int
		name string
	}{{PidPs, "Ps"}, {PidMs, "Ms"}, {PidSched, "sched"}} {
		out = append(out, meta(p.pid, 0, "process_name", map[string]any{"name": p.name}),
			meta(p.pid, 0, "process_sort_index", map[string]any{"sort_index": p.pid}))
	}
	for _, set := range []struct {
		pid    int
		prefix string
		ids    map[int32]bool
	}{{PidPs, "p", r.ps}, {PidMs, "m", r.ms}} {
		ids := make([]int, 0, len(set.ids))
		for id := range set.ids {
			ids = append(ids, int(id))
		}
		sort.Ints(ids)
		for _, id := range ids {
			out = append(out, meta(set.pid, id, "thread_name", map[string]any{"name": set.prefix + strconv.Itoa(id)}),
				meta(set.pid, id, "thread_sort_index", map[string]any{"sort_index": id}))
		}
	}
	out = append(out, meta(PidSched, 0, "thread_name", map[string]any{"name": "sysmon / netpoll"}))
	evs := append([]Event(nil), r.events...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Ts < evs[j].Ts })
	other := map[string]any{"title": title, "generator": "gmpcheck"}
	if r.dropped > 0 {
		other["dropped_events"] = r.dropped
	}
	return Trace{TraceEvents: append(out, evs...), DisplayTimeUnit: "ms", OtherData: other}
}

// Write writes the trace as JSON.
func (r *Recorder) Write(w io.Writer, title string) error {
	t := r.Trace(title)
	enc := json.NewEncoder(w)
	return enc.Encode(t)
}

// WriteFile writes the trace to path.
func (r *Recorder) WriteFile(path, title string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := r.Write(f, title); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
