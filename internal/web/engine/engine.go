// Package engine is the interactive stepper's model of a session: the spec
// (package spec, the checked one) at chosen bounds, the path of states taken
// from its initial state, what is enabled in the last one and whether it
// breaks an invariant. It is pure Go: the web page runs it compiled to
// WebAssembly (internal/web/wasm) and the tests run it natively, so the
// page has no second implementation of the scheduler.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// BoundsJSON is the page's form: the spec's bounds and variant.
type BoundsJSON struct {
	Ps        int    `json:"ps"`
	Ms        int    `json:"ms"`
	Gs        int    `json:"gs"`
	Cap       int    `json:"cap"`
	Spawn     int    `json:"spawn"`
	SchedTick int    `json:"schedtick"`
	Syscalls  bool   `json:"syscalls"`
	Netpoll   bool   `json:"netpoll"`
	Go        string `json:"go"`  // go1.26, go1.21, go1.19
	Bug       string `json:"bug"` // "" or "none" or a seeded bug's name
}

// Bounds converts the form.
func (b BoundsJSON) Bounds() (spec.Bounds, error) {
	out := spec.Bounds{Ps: b.Ps, Ms: b.Ms, Gs: b.Gs, Cap: b.Cap, Spawn: b.Spawn, SchedTick: b.SchedTick,
		Syscalls: b.Syscalls, Netpoll: b.Netpoll}
	if b.Go != "" {
		v, err := spec.ParseGoVersion(b.Go)
		if err != nil {
			return out, err
		}
		out.Go = v
	}
	if b.Bug != "" {
		bug, err := spec.ParseBug(b.Bug)
		if err != nil {
			return out, err
		}
		out.Bug = bug
	}
	return out, out.Validate()
}

// Session is one stepper session: a model and a path through it.
type Session struct {
	md    spec.Model
	path  []spec.State
	acts  []spec.Action
	loop  int    // a loaded lasso: the index in path the cycle returns to, else -1
	stay  bool   // a loaded counterexample that stutters: it stays in its last state
	note  string // what was loaded
	viola string // the loaded counterexample's verdict
}

// New starts a session at the initial state of the bounds.
func New(b spec.Bounds) (*Session, error) {
	md, err := spec.NewModel(b)
	if err != nil {
		return nil, err
	}
	return &Session{md: md, path: []spec.State{md.Init()}, loop: -1}, nil
}

// Bounds are the session's bounds.
func (s *Session) Bounds() spec.Bounds { return s.md.Bounds() }

// State is the current (last) state.
func (s *Session) State() spec.State { return s.path[len(s.path)-1] }

// Enabled lists the actions enabled in the current state, in the spec's order.
func (s *Session) Enabled() []spec.Action { return s.md.Enabled(s.State()) }

// Step takes the i-th enabled action.
func (s *Session) Step(i int) error {
	en := s.Enabled()
	if i < 0 || i >= len(en) {
		return fmt.Errorf("no enabled action %d (%d enabled)", i, len(en))
	}
	s.stay = false // the behaviour left the state it was to stay in
	return s.take(en[i])
}

func (s *Session) take(a spec.Action) error {
	next, err := s.md.Step(s.State(), a)
	if err != nil {
		return fmt.Errorf("%v: %w", a, err)
	}
	s.path = append(s.path, next)
	s.acts = append(s.acts, a)
	return nil
}

// Undo goes back one step; it reports whether there was one.
func (s *Session) Undo() bool {
	if len(s.acts) == 0 {
		return false
	}
	s.path = s.path[:len(s.path)-1]
	s.acts = s.acts[:len(s.acts)-1]
	if s.loop >= len(s.path) {
		s.loop = -1
	}
	s.stay = false
	return true
}

// Reset goes back to the initial state.
func (s *Session) Reset() {
	s.path, s.acts, s.loop, s.note, s.viola, s.stay = s.path[:1], nil, -1, "", "", false
}

var stepLine = regexp.MustCompile(`^\s*(?:\d+\.\s+)?((?:m\d+|sysmon|netpoll): [A-Za-z0-9]+(?:\([a-z0-9]+\))?)\s*$`)

// Load replays a trace from the initial state: the explorer's printed
// counterexample ("  3. m1: Steal(p0)" lines, the states between them
// ignored) or one action per line as the spec prints them. Each action must
// be enabled where it is taken. A "-- cycle" line marks where a lasso's
// cycle starts.
func (s *Session) Load(text string) error {
	s.Reset()
	n := 0
	for ln, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "-- cycle") {
			s.loop = len(s.path) - 1
			continue
		}
		m := stepLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var found *spec.Action
		for _, a := range s.Enabled() {
			if a.String() == m[1] {
				a := a
				found = &a
				break
			}
		}
		if found == nil {
			return fmt.Errorf("line %d: %s is not enabled after %d steps", ln+1, m[1], n)
		}
		if err := s.take(*found); err != nil {
			return fmt.Errorf("line %d: %w", ln+1, err)
		}
		n++
	}
	if n == 0 {
		return errors.New("no action lines found (want lines like \"m1: Steal(p0)\")")
	}
	s.note = fmt.Sprintf("loaded a trace of %d steps", n)
	return nil
}

// Explore runs the spec's explorer at the session's bounds (the thread limit
// on, liveness too if asked) and loads the counterexample it finds, if any.
// It reports what it found.
func (s *Session) Explore(liveness bool, maxStates int, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := spec.Explore(ctx, s.md.Bounds(), spec.Options{Liveness: liveness, ThreadLimit: true, MaxStates: maxStates, Workers: 1})
	if err != nil {
		return "", err
	}
	if res.Violation == nil {
		s.Reset()
		if res.Complete {
			return fmt.Sprintf("no violation: %d states, all explored", res.Distinct), nil
		}
		return fmt.Sprintf("no violation in %d states, but the search was cut short (inconclusive)", res.Distinct), nil
	}
	v := res.Violation
	s.Reset()
	for i, st := range v.Trace.Steps {
		if i == v.Trace.Loop {
			s.loop = len(s.path) - 1
		}
		if err := s.take(st.Action); err != nil {
			return "", fmt.Errorf("replaying the explorer's trace: %w", err)
		}
	}
	if v.Trace.Stutter {
		s.loop, s.stay = -1, true
	}
	s.viola = fmt.Sprintf("%s: %s", v.Kind, v.Detail)
	s.note = fmt.Sprintf("the explorer's counterexample (%d states searched): %s", res.Distinct, s.viola)
	return s.note, nil
}

// View is what the page draws: the current state, lane by lane, the path,
// the enabled actions and the live checks.
type View struct {
	Bounds     string   `json:"bounds"`
	Cap        int      `json:"cap"` // ring slots to draw
	Step       int      `json:"step"`
	Path       []string `json:"path"` // the actions taken
	Loop       int      `json:"loop"`
	Stutter    bool     `json:"stutter"` // the loaded counterexample stays in this state forever
	Note       string   `json:"note,omitempty"`
	Violation  string   `json:"violation,omitempty"` // the loaded counterexample's verdict
	Ps         []PView  `json:"ps"`
	Ms         []MView  `json:"ms"`
	Runq       []int    `json:"runq"`
	NPIdle     int      `json:"npidle"`
	Pidle      []int    `json:"pidle"` // sched.pidle's Ps from the top (the next pidleget's)
	NMSpinning int      `json:"nmspinning"`
	NeedSpin   bool     `json:"needspinning"`
	SpawnLeft  int      `json:"spawnleft"`
	Gs         []string `json:"gs"` // status of g1..gN
	Enabled    []AView  `json:"enabled"`
	Invariant  string   `json:"invariant,omitempty"` // the invariant the state breaks
	Deadlock   bool     `json:"deadlock"`
	Text       string   `json:"text"` // the spec's own rendering of the state
	Changed    []string `json:"changed"`
}

// PView is one P.
type PView struct {
	Status  string `json:"status"`
	Tick    int    `json:"tick"`
	RunNext int    `json:"runnext"`
	Ring    []int  `json:"ring"`
	M       int    `json:"m"` // the M holding it, -1 for none
}

// MView is one M.
type MView struct {
	PC       string `json:"pc"`
	P        int    `json:"p"`
	CurG     int    `json:"curg"`
	Spinning bool   `json:"spinning"`
	Scan     []int  `json:"scan"`
}

// AView is one enabled action.
type AView struct {
	Label string `json:"label"`
	Who   string `json:"who"`
	Kind  string `json:"kind"`
	P     int    `json:"p"`
	M     int    `json:"m"`
}

// View returns the current view.
func (s *Session) View() View {
	st := s.State()
	v := View{Bounds: s.md.Bounds().String(), Cap: s.md.Bounds().Cap, Step: len(s.acts), Loop: s.loop, Stutter: s.stay, Note: s.note, Violation: s.viola,
		Runq: []int{}, Pidle: []int{}, Ps: []PView{}, Ms: []MView{}, Gs: []string{}, Enabled: []AView{}, Path: []string{}, Changed: []string{},
		NPIdle: int(st.NPIdle), NMSpinning: int(st.NMSpinning), NeedSpin: st.NeedSpinning, SpawnLeft: int(st.SpawnLeft),
		Text: st.String()}
	for _, a := range s.acts {
		v.Path = append(v.Path, a.String())
	}
	for i := int(st.NPIdle) - 1; i >= 0; i-- {
		v.Pidle = append(v.Pidle, int(st.IdlePs[i]))
	}
	for p := 0; p < st.NumPs(); p++ {
		ps := st.P[p]
		pv := PView{Status: ps.Status.String(), Tick: int(ps.SchedTick), RunNext: int(ps.RunNext), Ring: []int{}, M: -1}
		for i := 0; i < int(ps.N); i++ {
			pv.Ring = append(pv.Ring, int(ps.Ring[i]))
		}
		v.Ps = append(v.Ps, pv)
	}
	for m := 0; m < st.NumMs(); m++ {
		ms := st.M[m]
		mv := MView{PC: ms.PC.String(), P: int(ms.P), CurG: int(ms.CurG), Spinning: ms.Spinning, Scan: []int{}}
		if ms.Wake != spec.WakeNone {
			mv.PC += " in " + ms.Wake.String() // the M is inside wakep (spec.WakeStage)
		}
		for p := 0; p < spec.MaxPs; p++ {
			if ms.Scan&(1<<p) != 0 {
				mv.Scan = append(mv.Scan, p)
			}
		}
		if ms.P >= 0 && int(ms.P) < len(v.Ps) {
			v.Ps[ms.P].M = m
		}
		v.Ms = append(v.Ms, mv)
	}
	for i := 0; i < int(st.Runq.N); i++ {
		v.Runq = append(v.Runq, int(st.Runq.Gs[i]))
	}
	live := false
	for g := 1; g <= st.NumGs(); g++ {
		v.Gs = append(v.Gs, st.G[g].String())
		if st.G[g] != spec.GIdle && st.G[g] != spec.GDead && st.G[g] != spec.GWaiting {
			live = true
		}
	}
	en := s.Enabled()
	for _, a := range en {
		label := a.String()
		who, _, _ := strings.Cut(label, ": ")
		v.Enabled = append(v.Enabled, AView{Label: label, Who: who, Kind: a.Kind.String(), P: int(a.P), M: int(a.M)})
	}
	if err := s.md.Check(st); err != nil {
		v.Invariant = err.Error()
	}
	v.Deadlock = len(en) == 0 && live
	if len(s.path) > 1 {
		v.Changed = changed(s.path[len(s.path)-2], st)
	}
	return v
}

// changed names the lanes the last step changed: "p0", "m1", "runq",
// "sched", "g2".
func changed(a, b spec.State) []string {
	out := []string{}
	for p := 0; p < a.NumPs(); p++ {
		if a.P[p] != b.P[p] {
			out = append(out, fmt.Sprintf("p%d", p))
		}
	}
	for m := 0; m < a.NumMs(); m++ {
		if a.M[m] != b.M[m] {
			out = append(out, fmt.Sprintf("m%d", m))
		}
	}
	if a.Runq != b.Runq {
		out = append(out, "runq")
	}
	if a.NPIdle != b.NPIdle || a.IdlePs != b.IdlePs || a.NMSpinning != b.NMSpinning || a.NeedSpinning != b.NeedSpinning || a.SpawnLeft != b.SpawnLeft || a.RetakeP != b.RetakeP {
		out = append(out, "sched")
	}
	for g := 1; g <= a.NumGs(); g++ {
		if a.G[g] != b.G[g] {
			out = append(out, fmt.Sprintf("g%d", g))
		}
	}
	return out
}

// Options lists the form's choices: Go releases and seeded bugs.
type Options struct {
	Go   []string `json:"go"`
	Bugs []string `json:"bugs"`
}

// Choices returns the form's choices, from the spec.
func Choices() Options {
	o := Options{Go: []string{spec.Go126.String(), spec.Go121.String(), spec.Go119.String()}, Bugs: []string{spec.BugNone.String()}}
	for _, b := range spec.Bugs() {
		o.Bugs = append(o.Bugs, b.String())
	}
	return o
}

// JSON marshals v (it cannot fail for the view types).
func JSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return `{"error":` + fmt.Sprintf("%q", err.Error()) + `}`
	}
	return string(b)
}
