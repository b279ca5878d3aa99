package conform

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// WriteEvents writes a recorded run of impl.Sched as text, one event a
// line: kind, action, M, P, victim, G, injected G, from, to, N, on, with
// the kinds, actions and statuses by name, so that a saved trace (a
// rejected run kept for TestImplReplay, or a regression trace in
// testdata/impl) stays readable when the enums are reordered.
func WriteEvents(w io.Writer, evs []impl.Event) error {
	bw := bufio.NewWriter(w)
	for _, e := range evs {
		on := 0
		if e.On {
			on = 1
		}
		fmt.Fprintf(bw, "%v %v %d %d %d %d %d %v %v %d %d\n", e.Kind, e.Action, e.M, e.P, e.Victim, e.G, e.Inj, e.From, e.To, e.N, on)
	}
	return bw.Flush()
}

// ReadEvents reads what WriteEvents wrote.
func ReadEvents(r io.Reader) ([]impl.Event, error) {
	kinds := map[string]impl.EventKind{}
	for k := impl.EventKind(0); ; k++ {
		n := k.String()
		if strings.HasPrefix(n, "EventKind(") {
			break
		}
		kinds[n] = k
	}
	acts := map[string]spec.ActionKind{}
	for _, a := range spec.ActionKinds() {
		acts[a.String()] = a
	}
	stat := map[string]impl.Gstatus{}
	for s := impl.Gstatus(0); s < 64; s++ {
		stat[s.String()] = s
	}
	var evs []impl.Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 11 {
			return nil, fmt.Errorf("line %d: %d fields, want 11", line, len(f))
		}
		var e impl.Event
		var ok1, ok2, ok3, ok4 bool
		e.Kind, ok1 = kinds[f[0]]
		e.Action, ok2 = acts[f[1]]
		e.From, ok3 = stat[f[7]]
		e.To, ok4 = stat[f[8]]
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, fmt.Errorf("line %d: unknown kind, action or status in %q", line, sc.Text())
		}
		var n [7]int64
		for i, x := range []string{f[2], f[3], f[4], f[5], f[6], f[9], f[10]} {
			v, err := strconv.ParseInt(x, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", line, err)
			}
			n[i] = v
		}
		e.M, e.P, e.Victim = int32(n[0]), int32(n[1]), int32(n[2])
		e.G, e.Inj, e.N, e.On = uint64(n[3]), uint64(n[4]), int32(n[5]), n[6] != 0
		// Files recorded before the event contract carry 0 where it
		// has -1 (impl.Event.Normalized); the scheduler writes -1.
		evs = append(evs, e.Normalized())
	}
	return evs, sc.Err()
}
