// Package viz draws a spec counterexample as one self-contained HTML page:
// a column per state (the initial state, then the state after each action),
// a lane per P, per M, the global queue, the sched counters and the Gs;
// what each step changed is highlighted, the cycle of a liveness lasso is
// marked, and the arrow keys move a focus column whose state is drawn large
// under the strip. Everything is inline (CSS, a few lines of JavaScript, the
// states as server-rendered HTML): the page needs no network.
package viz

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Page is one counterexample page.
type Page struct {
	Title string
	// Bounds, if set (Ps != 0), is shown under the title, and its Cap sizes
	// the drawn ring slots; otherwise the longest ring in the trace does.
	Bounds    spec.Bounds
	Violation *spec.Violation
	// StepLabels, if set, replaces the action label of the columns it
	// names (1 is the first step): "who: what", for steps the spec's
	// actions do not name (a TLA+ trace's step the spec does not take).
	StepLabels map[int]string
	// Note, if set, is a line under the verdict (where the trace came from).
	Note string
}

// WriteTraceHTML writes the page for violation v titled title.
func WriteTraceHTML(w io.Writer, title string, v *spec.Violation) error {
	return Write(w, Page{Title: title, Violation: v})
}

// Write renders p as one HTML document.
func Write(w io.Writer, p Page) error {
	if p.Violation == nil {
		return errors.New("viz: no violation to draw")
	}
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, build(p)); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteFile writes the page for p to the file path.
func WriteFile(path string, p Page) error {
	var buf bytes.Buffer
	if err := Write(&buf, p); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// gbox is one G in a queue slot or a curg; Name "" is an empty slot.
type gbox struct {
	Name string
	ID   int // colour index, 1..MaxGs
	Chg  bool
}

type pcell struct {
	Name      string // "p0"
	Running   bool
	Tick      int
	RunNext   gbox
	Ring      []gbox // Cap slots, empties last
	HM        *mcell // the M holding the P, for the large view
	StatusChg bool
	TickChg   bool
	Chg       bool
	Target    bool // the P named by the step's action
}

type mcell struct {
	Name     string // "m0"
	PC       string
	P        string // "p0" or ""
	CurG     gbox
	Spinning bool
	Scan     string // "{p0}" or ""
	PCChg    bool
	PChg     bool
	SpinChg  bool
	ScanChg  bool
	Chg      bool
	Actor    bool // the M that took the step
}

type qcell struct {
	Gs  []gbox
	Chg bool
}

type counter struct {
	Name  string
	Short string
	Val   int
	Chg   bool
}

type gchip struct {
	Name   string
	ID     int
	Status string
	Chg    bool
}

type column struct {
	I     int
	Head  string   // "initial" or "step 3"
	Who   string   // "m1", "sysmon", "netpoll", "" for the initial state
	What  []string // "Steal(p0)", in pieces that may wrap: "Recheck", "Runqs", "NoP(p0)"
	Label string   // the action as spec prints it, "initial state" for column 0
	Class string   // classes every cell of the column gets
	Mark  string   // a badge under the label
	Ps    []pcell
	Ms    []mcell
	Free  []mcell // Ms without a P, for the large view
	Runq  qcell
	Sched []counter
	SChg  bool
	G     []gchip
	GChg  bool
}

type page struct {
	Title, Bounds      string
	Note               string
	Kind, Detail, Err  string
	Safety             bool // the last state is the bad one
	Steps, Loop        int
	Stutter            bool
	Cycle              bool
	Prefix, CycleSpan  int // header band: columns before the cycle, columns in it
	CycleFrom          int // the cycle's first step
	Focus              int
	Rows               int // body rows of the strip, for the end marker's rowspan
	Cols               []column
	PIdx, MIdx         []int
	Last               int
	End                string // end marker text
	EndTitle           string
	Summary            string
	LoopHead, LastHead string
	Witness            string // what holds throughout the cycle or stutter
	PWit               []bool // P lanes idle throughout it (work conservation)
	QWit               string // Gs in sched.runq throughout it (starvation)
}

func gname(g spec.GID) string {
	if g == spec.NoG {
		return ""
	}
	return "g" + strconv.Itoa(int(g))
}

func box(g spec.GID, chg bool) gbox {
	return gbox{Name: gname(g), ID: int(g), Chg: chg && g != spec.NoG}
}

// targetsP reports whether the action's P parameter is meaningful.
func targetsP(k spec.ActionKind) bool {
	switch k {
	case spec.ActSteal, spec.ActStealMiss, spec.ActRecheckFound,
		spec.ActRecheckMiss, spec.ActPreempt, spec.ActRetake, spec.ActRetakeHandoff:
		return true
	}
	return false
}

// byM reports whether an M takes the action (not sysmon or netpoll).
func byM(k spec.ActionKind) bool {
	return k != spec.ActPreempt && k != spec.ActRetake && k != spec.ActRetakeHandoff && k != spec.ActInjectGList
}

func scanString(mask uint8) string {
	if mask == 0 {
		return ""
	}
	var parts []string
	for p := 0; p < spec.MaxPs; p++ {
		if mask&(1<<p) != 0 {
			parts = append(parts, "p"+strconv.Itoa(p))
		}
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func build(pg Page) page {
	v := pg.Violation
	t := v.Trace
	states := make([]spec.State, 0, len(t.Steps)+1)
	states = append(states, t.Init)
	for _, st := range t.Steps {
		states = append(states, st.State)
	}
	init := &states[0]
	np, nm, ng := init.NumPs(), init.NumMs(), init.NumGs()
	capSlots := pg.Bounds.Cap
	if pg.Bounds.Ps == 0 || capSlots <= 0 {
		capSlots = 1
		for i := range states {
			for p := 0; p < np; p++ {
				capSlots = max(capSlots, int(states[i].P[p].N))
			}
		}
	}

	d := page{
		Title: pg.Title, Kind: v.Kind.String(), Detail: v.Detail, Note: pg.Note,
		Steps: len(t.Steps), Loop: -1, Stutter: t.Stutter, Last: len(t.Steps),
	}
	if pg.Bounds.Ps != 0 {
		d.Bounds = pg.Bounds.String()
	}
	if v.Err != nil && !strings.Contains(v.Detail, v.Err.Error()) {
		d.Err = v.Err.Error()
	}
	d.Safety = !v.Kind.Liveness()
	if t.Loop >= 0 && t.Loop < len(t.Steps) {
		d.Loop, d.Cycle = t.Loop, true
		d.Prefix, d.CycleSpan, d.CycleFrom = t.Loop+1, len(t.Steps)-t.Loop, t.Loop+1
	}
	for i := 0; i < np; i++ {
		d.PIdx = append(d.PIdx, i)
	}
	for i := 0; i < nm; i++ {
		d.MIdx = append(d.MIdx, i)
	}
	d.Rows = np + nm + 4 // the action row, then P, runq, M, sched and G lanes

	for i := range states {
		s := &states[i]
		var prev *spec.State
		if i > 0 {
			prev = &states[i-1]
		}
		c := column{I: i, Head: "initial", Label: "initial state"}
		var act spec.Action
		if i > 0 {
			act = t.Steps[i-1].Action
			c.Head = "step " + strconv.Itoa(i)
			c.Label = act.String()
			if l, ok := pg.StepLabels[i]; ok {
				c.Label = l
			}
			who, what, _ := strings.Cut(c.Label, ": ")
			c.Who, c.What = who, camelPieces(what)
		}
		// Ps.
		for p := 0; p < np; p++ {
			ps := &s.P[p]
			pc := pcell{Name: "p" + strconv.Itoa(p), Running: ps.Status == spec.PRunning, Tick: int(ps.SchedTick)}
			var pp *spec.PState
			if prev != nil {
				pp = &prev.P[p]
				pc.StatusChg = pp.Status != ps.Status
				pc.TickChg = pp.SchedTick != ps.SchedTick
			}
			pc.RunNext = box(ps.RunNext, pp != nil && pp.RunNext != ps.RunNext)
			for j := 0; j < max(capSlots, int(ps.N)); j++ {
				var g spec.GID
				if j < int(ps.N) {
					g = ps.Ring[j]
				}
				chg := pp != nil && (j >= int(pp.N) || pp.Ring[j] != g)
				pc.Ring = append(pc.Ring, box(g, chg))
			}
			ringChg := pp != nil && (pp.N != ps.N || pp.Ring != ps.Ring)
			pc.Chg = pc.StatusChg || pc.TickChg || pc.RunNext.Chg || (pp != nil && pp.RunNext != ps.RunNext) || ringChg
			pc.Target = i > 0 && targetsP(act.Kind) && int(act.P) == p
			c.Ps = append(c.Ps, pc)
		}
		// Ms.
		for m := 0; m < nm; m++ {
			ms := &s.M[m]
			mc := mcell{Name: "m" + strconv.Itoa(m), PC: pcString(ms), Spinning: ms.Spinning, Scan: scanString(ms.Scan)}
			if ms.P != spec.NoP {
				mc.P = "p" + strconv.Itoa(int(ms.P))
			}
			if prev != nil {
				pm := &prev.M[m]
				mc.PCChg = pm.PC != ms.PC || pm.Wake != ms.Wake
				mc.PChg = pm.P != ms.P
				mc.SpinChg = pm.Spinning != ms.Spinning
				mc.ScanChg = pm.Scan != ms.Scan
				mc.CurG = box(ms.CurG, pm.CurG != ms.CurG)
				mc.Chg = mc.PCChg || mc.PChg || mc.SpinChg || mc.ScanChg || pm.CurG != ms.CurG
			} else {
				mc.CurG = box(ms.CurG, false)
			}
			mc.Actor = i > 0 && byM(act.Kind) && int(act.M) == m
			c.Ms = append(c.Ms, mc)
			if ms.P == spec.NoP {
				c.Free = append(c.Free, mc)
			}
		}
		for m := range c.Ms {
			if p := s.M[m].P; p != spec.NoP && int(p) < np {
				c.Ps[p].HM = &c.Ms[m]
			}
		}
		// Global queue: a slot changed if it differs from the previous one.
		for j := 0; j < int(s.Runq.N); j++ {
			g := s.Runq.Gs[j]
			c.Runq.Gs = append(c.Runq.Gs, box(g, prev != nil && (j >= int(prev.Runq.N) || prev.Runq.Gs[j] != g)))
		}
		c.Runq.Chg = prev != nil && prev.Runq != s.Runq
		// Counters.
		need := 0
		if s.NeedSpinning {
			need = 1
		}
		vals := []int{int(s.NPIdle), int(s.NMSpinning), need, int(s.SpawnLeft)}
		var pvals []int
		if prev != nil {
			pneed := 0
			if prev.NeedSpinning {
				pneed = 1
			}
			pvals = []int{int(prev.NPIdle), int(prev.NMSpinning), pneed, int(prev.SpawnLeft)}
		}
		for k, name := range []string{"npidle", "nmspinning", "needspinning", "spawn left"} {
			ct := counter{Name: name, Short: []string{"npidle", "nmspin", "need", "spawn"}[k], Val: vals[k]}
			ct.Chg = pvals != nil && pvals[k] != vals[k]
			c.SChg = c.SChg || ct.Chg
			c.Sched = append(c.Sched, ct)
		}
		// Gs.
		for g := 1; g <= ng; g++ {
			ch := gchip{Name: "g" + strconv.Itoa(g), ID: g, Status: s.G[g].String()}
			ch.Chg = prev != nil && prev.G[g] != s.G[g]
			c.GChg = c.GChg || ch.Chg
			c.G = append(c.G, ch)
		}
		// Marks.
		var cls []string
		if d.Cycle && i > d.Loop {
			cls = append(cls, "cyc")
		}
		if d.Cycle && i == d.Loop {
			cls = append(cls, "cycstart")
			c.Mark = "↻ the cycle returns here"
		}
		if i == len(states)-1 {
			switch {
			case d.Safety:
				cls = append(cls, "bad")
				c.Mark = "✗ " + d.Kind
			case t.Stutter:
				cls = append(cls, "stay")
				c.Mark = "∞ stays here forever"
			case d.Cycle:
				c.Mark = "= state of " + headOf(d.Loop)
			}
		}
		c.Class = strings.Join(cls, " ")
		d.Cols = append(d.Cols, c)
	}

	switch {
	case d.Safety:
		d.Focus = d.Last
		d.End, d.EndTitle = "✗", "the last state is the violation"
		d.Summary = "The last state breaks the check."
	case d.Cycle:
		d.Focus = d.Loop
		d.End, d.EndTitle = "↩ "+headOf(d.Loop), "after the last step the behaviour is back in the state of "+headOf(d.Loop)+": the cycle repeats forever"
		d.Summary = "A lasso: after " + headOf(d.Loop) + " the steps " + strconv.Itoa(d.Loop+1) + "–" + strconv.Itoa(d.Last) +
			" (↻) lead back to the state of " + headOf(d.Loop) + " and repeat forever."
	case t.Stutter:
		d.Focus = d.Last
		d.End, d.EndTitle = "∞", "no fair action is enabled: the behaviour stays in the last state forever"
		d.Summary = "The behaviour stays in the last state forever: no fair action is enabled there."
	default:
		d.Focus = d.Last
	}
	d.LoopHead, d.LastHead = headOf(d.Loop), headOf(d.Last)
	d.PWit = make([]bool, np)
	switch {
	case d.Safety:
	case d.Cycle:
		witness(&d, v.Kind, states[d.Loop:], "Throughout the cycle")
	case t.Stutter:
		witness(&d, v.Kind, states[d.Last:], "In the last state, forever")
	}
	return d
}

// witness says what holds in every state of the lasso's loop: for work
// conservation the idle Ps, the runnable Gs and whether any M spins; for
// starvation the Gs that stay in the global queue; for a stop-the-world
// that never completes the Ps that never stop.
func witness(d *page, kind spec.ViolationKind, loop []spec.State, where string) {
	s0 := &loop[0]
	var parts []string
	switch kind {
	case spec.KindWorkConservation:
		var ps, gs []string
		for p := 0; p < s0.NumPs(); p++ {
			all := true
			for i := range loop {
				all = all && loop[i].P[p].Status == spec.PIdle
			}
			if all {
				d.PWit[p] = true
				ps = append(ps, "p"+strconv.Itoa(p))
			}
		}
		for g := 1; g <= s0.NumGs(); g++ {
			all := true
			for i := range loop {
				all = all && loop[i].G[g] == spec.GRunnable
			}
			if all {
				gs = append(gs, "g"+strconv.Itoa(g))
			}
		}
		spin := false
		for i := range loop {
			spin = spin || loop[i].NMSpinning != 0
		}
		if len(ps) > 0 {
			parts = append(parts, strings.Join(ps, ", ")+" idle")
		}
		if len(gs) > 0 {
			parts = append(parts, strings.Join(gs, ", ")+" runnable")
		}
		if !spin {
			parts = append(parts, "no M spinning")
		}
	case spec.KindGlobalStarvation:
		var gs []string
		for j := 0; j < int(s0.Runq.N); j++ {
			g := s0.Runq.Gs[j]
			all := true
			for i := range loop {
				in := false
				for k := 0; k < int(loop[i].Runq.N); k++ {
					in = in || loop[i].Runq.Gs[k] == g
				}
				all = all && in
			}
			if all {
				gs = append(gs, gname(g))
			}
		}
		if len(gs) > 0 {
			d.QWit = strings.Join(gs, ", ") + " stuck"
			parts = append(parts, strings.Join(gs, ", ")+" in sched.runq")
		}
	case spec.KindSTWStuck:
		var ps []string
		for p := 0; p < s0.NumPs(); p++ {
			stopped := true
			for i := range loop {
				st := loop[i].P[p].Status
				stopped = stopped && (st == spec.PGCStop || st == spec.PDead)
			}
			if !stopped {
				ps = append(ps, "p"+strconv.Itoa(p))
			}
		}
		parts = append(parts, "sched.gcwaiting set")
		if len(ps) > 0 {
			parts = append(parts, strings.Join(ps, ", ")+" not stopped")
		}
	}
	if len(parts) > 0 {
		d.Witness = where + ": " + strings.Join(parts, ", ") + "."
	}
}

func headOf(i int) string {
	if i <= 0 {
		return "the initial state"
	}
	return "step " + strconv.Itoa(i)
}

// camelPieces splits an action name where a capital follows a lower-case
// letter, so that a narrow column wraps "ExitSyscallFast" between words.
func camelPieces(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i-1] >= 'a' && s[i-1] <= 'z' {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

// pcString is an M's pc, with the wakep stage it is in, if any: "run in
// wakep-cas".
func pcString(ms *spec.MState) string {
	if ms.Wake == spec.WakeNone {
		return ms.PC.String()
	}
	return ms.PC.String() + " in " + ms.Wake.String()
}
