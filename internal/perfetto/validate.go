package perfetto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrInvalid wraps every error Validate reports.
var ErrInvalid = errors.New("invalid trace")

// Stats counts what a valid trace holds.
type Stats struct {
	Events   int
	Slices   int // X events and B/E pairs
	Instants int
	Flows    int // flow ids with a start and an end
	Counters int
	Tracks   map[string]bool // "pid/tid" of every track with a timed event
	Names    map[string]int  // thread_name metadata: "Ps/p0" etc. → tid
}

type rawEvent struct {
	Name *string        `json:"name"`
	Ph   *string        `json:"ph"`
	Ts   *float64       `json:"ts"`
	Dur  *float64       `json:"dur"`
	Pid  *float64       `json:"pid"`
	Tid  *float64       `json:"tid"`
	ID   any            `json:"id"`
	Bp   string         `json:"bp"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

// span is a slice's extent in whole nanoseconds, as Perfetto's importer
// holds it: ts and dur are microseconds in JSON, and ts+dur computed in
// floating point can land a hair past the next slice's ts although both
// round to the same nanosecond.
type span struct{ start, end int64 }

// nanos converts a JSON microsecond value to whole nanoseconds.
func nanos(us float64) int64 { return int64(math.Round(us * 1000)) }

// Validate checks data against the trace-event format as Chrome and
// Perfetto read it: a JSON object with a traceEvents array (or a bare
// array); every event has a known ph, a pid and a tid, a name (but E), a
// numeric ts (but M); X has a duration >= 0; B and E pair up per track,
// last in first out, and slices on one track nest (no partial overlap);
// instants have a scope g, p or t; counters have numeric args; every flow
// id has exactly one start (s) and one end (f), the end not before the
// start, and each binds to a slice of its track (s: enclosing its ts; f
// with bp "e": enclosing, else the next slice); and the timed events of
// each track are in non-decreasing ts order in the file.
func Validate(data []byte) (Stats, error) {
	st := Stats{Tracks: map[string]bool{}, Names: map[string]int{}}
	bad := func(i int, format string, args ...any) (Stats, error) {
		return st, fmt.Errorf("%w: event %d: %s", ErrInvalid, i, fmt.Sprintf(format, args...))
	}
	var evs []rawEvent
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &evs); err != nil {
			return st, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	} else {
		var obj struct {
			TraceEvents *[]rawEvent `json:"traceEvents"`
		}
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return st, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		if obj.TraceEvents == nil {
			return st, fmt.Errorf("%w: no traceEvents array", ErrInvalid)
		}
		evs = *obj.TraceEvents
	}
	type track struct {
		last   float64
		open   []int // indices of B events not yet ended
		spans  []span
		starts []float64
	}
	tracks := map[string]*track{}
	procNames := map[float64]string{}
	type flow struct {
		s, f       int
		ns, nf     int
		sTs, fTs   float64
		sKey, fKey string
		fNext      bool
	}
	flows := map[string]*flow{}
	var flowOrder []string
	for i, e := range evs {
		if e.Ph == nil || *e.Ph == "" {
			return bad(i, "no ph")
		}
		ph := *e.Ph
		if e.Pid == nil || e.Tid == nil {
			return bad(i, "ph %q without pid and tid", ph)
		}
		if *e.Pid != math.Trunc(*e.Pid) || *e.Tid != math.Trunc(*e.Tid) {
			return bad(i, "pid/tid not integers")
		}
		if ph != "E" && (e.Name == nil || *e.Name == "") {
			return bad(i, "ph %q without a name", ph)
		}
		key := fmt.Sprintf("%v/%v", *e.Pid, *e.Tid)
		if ph == "M" {
			switch *e.Name {
			case "process_name":
				if n, ok := e.Args["name"].(string); ok {
					procNames[*e.Pid] = n
				}
			case "thread_name":
				if n, ok := e.Args["name"].(string); ok {
					st.Names[procNames[*e.Pid]+"/"+n] = int(*e.Tid)
				}
			}
			continue
		}
		if e.Ts == nil || math.IsNaN(*e.Ts) || math.IsInf(*e.Ts, 0) {
			return bad(i, "ph %q without a numeric ts", ph)
		}
		ts := *e.Ts
		tr := tracks[key]
		if tr == nil {
			tr = &track{last: math.Inf(-1)}
			tracks[key] = tr
		}
		if ts < tr.last {
			return bad(i, "ts %v before the previous event of track %s (%v): not monotone", ts, key, tr.last)
		}
		tr.last = ts
		st.Events++
		st.Tracks[key] = true
		switch ph {
		case "X":
			if e.Dur == nil || *e.Dur < 0 || math.IsNaN(*e.Dur) {
				return bad(i, "X %q without a duration >= 0", *e.Name)
			}
			tr.spans = append(tr.spans, span{nanos(ts), nanos(ts) + nanos(*e.Dur)})
			st.Slices++
		case "B":
			tr.open = append(tr.open, i)
			tr.starts = append(tr.starts, ts)
		case "E":
			if len(tr.open) == 0 {
				return bad(i, "E on track %s with no open B", key)
			}
			n := len(tr.open) - 1
			tr.spans = append(tr.spans, span{nanos(tr.starts[n]), nanos(ts)})
			tr.open, tr.starts = tr.open[:n], tr.starts[:n]
			st.Slices++
		case "i", "I", "n":
			if e.S != "" && e.S != "g" && e.S != "p" && e.S != "t" {
				return bad(i, "instant scope %q: want g, p or t", e.S)
			}
			st.Instants++
		case "C":
			if len(e.Args) == 0 {
				return bad(i, "counter %q without args", *e.Name)
			}
			for k, v := range e.Args {
				if _, ok := v.(float64); !ok {
					return bad(i, "counter %q arg %s is %T, not a number", *e.Name, k, v)
				}
			}
			st.Counters++
		case "s", "t", "f":
			if e.ID == nil {
				return bad(i, "flow event %q without an id", *e.Name)
			}
			id := fmt.Sprint(e.ID)
			fl := flows[id]
			if fl == nil {
				fl = &flow{s: -1, f: -1}
				flows[id] = fl
				flowOrder = append(flowOrder, id)
			}
			switch ph {
			case "s":
				fl.ns++
				fl.s, fl.sTs, fl.sKey = i, ts, key
			case "f":
				fl.nf++
				fl.f, fl.fTs, fl.fKey, fl.fNext = i, ts, key, e.Bp != "e"
			}
		case "b", "e", "P", "O", "N", "D", "R", "c", "(", ")", "v", "V":
			// async, object, sample, mark, memory events: not checked further
		default:
			return bad(i, "unknown ph %q", ph)
		}
	}
	keys := make([]string, 0, len(tracks))
	for k := range tracks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		tr := tracks[k]
		if len(tr.open) > 0 {
			return bad(tr.open[0], "B on track %s never ended", k)
		}
		if err := nested(tr.spans); err != nil {
			return st, fmt.Errorf("%w: track %s: %v", ErrInvalid, k, err)
		}
	}
	for _, id := range flowOrder {
		fl := flows[id]
		switch {
		case fl.ns != 1 || fl.nf != 1:
			return st, fmt.Errorf("%w: flow id %s has %d starts and %d ends, want one of each", ErrInvalid, id, fl.ns, fl.nf)
		case fl.fTs < fl.sTs:
			return st, fmt.Errorf("%w: flow id %s ends at %v before it starts at %v", ErrInvalid, id, fl.fTs, fl.sTs)
		case !encloses(tracks[fl.sKey].spans, fl.sTs):
			return st, fmt.Errorf("%w: flow id %s starts at %v on track %s outside every slice", ErrInvalid, id, fl.sTs, fl.sKey)
		case !fl.fNext && !encloses(tracks[fl.fKey].spans, fl.fTs):
			return st, fmt.Errorf("%w: flow id %s ends at %v on track %s outside every slice", ErrInvalid, id, fl.fTs, fl.fKey)
		case fl.fNext && !startsAfter(tracks[fl.fKey].spans, fl.fTs):
			return st, fmt.Errorf("%w: flow id %s ends at %v on track %s with no slice after it", ErrInvalid, id, fl.fTs, fl.fKey)
		}
		st.Flows++
	}
	return st, nil
}

// nested reports an error if two slices partially overlap.
func nested(spans []span) error {
	s := append([]span(nil), spans...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].start != s[j].start {
			return s[i].start < s[j].start
		}
		return s[i].end > s[j].end // the outer one first
	})
	var stack []span
	for _, x := range s {
		for len(stack) > 0 && stack[len(stack)-1].end <= x.start {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && x.end > stack[len(stack)-1].end {
			top := stack[len(stack)-1]
			return fmt.Errorf("slices [%v, %v] and [%v, %v] (ns) overlap without nesting", top.start, top.end, x.start, x.end)
		}
		stack = append(stack, x)
	}
	return nil
}

func encloses(spans []span, us float64) bool {
	ts := nanos(us)
	for _, s := range spans {
		if s.start <= ts && ts <= s.end {
			return true
		}
	}
	return false
}

func startsAfter(spans []span, us float64) bool {
	ts := nanos(us)
	for _, s := range spans {
		if s.start >= ts {
			return true
		}
	}
	return false
}
