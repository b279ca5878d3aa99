package perfetto

import (
	"fmt"
	"math/rand/v2"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// DriverConfig is a random walk of the deterministic driver (impl.Driver):
// at each step one command is drawn among those that apply to the state
// (an M's scheduler step, its G's newproc, exit, Gosched, park, ready or
// syscall, sysmon's preemption or retake, a ready from outside).
type DriverConfig struct {
	Procs int    // Ps, 1..8 (default 2)
	Steps int    // commands to take (default 200)
	MaxGs int    // live Gs at most; NewProc is not drawn past it (default 6)
	Seed  uint64 // the walk's random choices
	Cap   int    // local ring capacity (default 4)
}

// StepMicros is the driver trace's clock: one command of the walk is one
// millisecond, so the timeline reads in steps.
const StepMicros = 1000

// DriverTrace runs the walk with a Recorder on the driver's events: every
// action is an instant on its M's track, and time advances by StepMicros
// per command. It returns the recorder (finished) and the number of
// commands taken (fewer than Steps if every G exited or nothing was left
// to do).
func DriverTrace(dc DriverConfig) (*Recorder, int, error) {
	if dc.Procs == 0 {
		dc.Procs = 2
	}
	if dc.Steps == 0 {
		dc.Steps = 200
	}
	if dc.MaxGs == 0 {
		dc.MaxGs = 6
	}
	if dc.Cap == 0 {
		dc.Cap = 4
	}
	if dc.Procs < 1 || dc.Procs > 8 {
		return nil, 0, fmt.Errorf("perfetto: driver Procs %d: want 1..8", dc.Procs)
	}
	step := 0
	sub := 0.0
	rec := NewRecorder(Options{AllActions: true, MinGap: 1, Now: func() float64 {
		sub++
		return float64(step*StepMicros) + sub
	}})
	d, err := impl.NewDriver(impl.Config{Procs: dc.Procs, QueueCapacity: dc.Cap, SchedTickPeriod: 3, Seed: dc.Seed + 1, Trace: rec.Event})
	if err != nil {
		return nil, 0, err
	}
	rec.Running(d.Main().ID(), 0, 0)
	rng := rand.New(rand.NewPCG(dc.Seed, 0x9e3779b97f4a7c15))
	taken := 0
	for taken < dc.Steps {
		step++
		sub = 0
		cmds := commands(d, dc.MaxGs)
		if len(cmds) == 0 {
			break
		}
		c := cmds[rng.IntN(len(cmds))]
		if c.weight > 1 && rng.IntN(c.weight) != 0 { // rare commands: draw again
			c = cmds[rng.IntN(len(cmds))]
		}
		if err := c.do(); err != nil {
			return rec, taken, fmt.Errorf("perfetto: driver step %d (%s): %w", taken, c.name, err)
		}
		taken++
	}
	step++
	rec.Finish()
	return rec, taken, nil
}

type command struct {
	name   string
	weight int // > 1: taken only one time in weight when drawn
	do     func() error
}

// commands lists what may happen next in the driver's state.
func commands(d *impl.Driver, maxGs int) []command {
	sn := d.Sched().Snapshot()
	var waiting []*impl.G
	live := 0
	for _, g := range sn.Gs {
		switch g.Status() {
		case impl.Gwaiting:
			waiting = append(waiting, g)
			live++
		case impl.Grunnable, impl.Grunning, impl.Gsyscall:
			live++
		}
	}
	var out []command
	for i, m := range sn.Ms {
		i := i
		switch {
		case m.CurG != nil && m.CurG.Status() == impl.Grunning && m.P >= 0:
			if live < maxGs {
				nc := command{"newproc", 1, func() error { _, err := d.NewProc(i); return err }}
				out = append(out, nc, nc)
			}
			if live > 1 { // the last G exits only at the end of the walk
				out = append(out, command{"goexit", 6, func() error { return d.GoExit(i) }})
			}
			out = append(out,
				command{"gosched", 1, func() error { return d.Gosched(i) }},
				command{"park", 4, func() error { return d.Park(i) }},
				command{"entersyscall", 3, func() error { return d.EnterSyscall(i) }})
			for _, g := range waiting {
				out = append(out, command{"ready", 1, func() error { return d.Ready(i, g) }})
			}
			out = append(out, command{"preempt", 2, func() error { return d.Preempt(m.P) }})
		case m.CurG != nil && m.CurG.Status() == impl.Gsyscall:
			out = append(out, command{"exitsyscall", 1, func() error { return d.ExitSyscall(i) }})
			if m.P >= 0 && sn.RetakeP == 0 {
				p := m.P
				out = append(out, command{"retake", 1, func() error { _, err := d.Retake(p); return err }})
			}
		case m.PC != spec.MRun && m.PC != spec.MIdle:
			// a scheduler step, drawn twice as often: Ms look for work
			step := command{"step", 1, func() error { return d.Step(i) }}
			out = append(out, step, step)
		}
	}
	if p := sn.RetakeP - 1; p >= 0 {
		// sysmon holds the P it took: its handoffp comes next of its steps.
		out = append(out, command{"retake-handoff", 1, func() error { return d.RetakeHandoff(p) }})
	}
	if len(waiting) > 0 && (len(out) == 0 || len(waiting) == live) {
		g := waiting[0]
		out = append(out, command{"inject", 1, func() error { return d.Inject(g) }})
	}
	return out
}
