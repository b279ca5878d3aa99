package impl

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gmpcheck/gmpcheck/spec"
)

// Chooser supplies the choices of a CheckAgainstSpec trace: rapid's draws
// (shrinkable) in tests, or a plain PRNG (RandChooser).
type Chooser interface {
	Intn(n int, label string) int
}

// RandChooser makes choices with r.
func RandChooser(r *rand.Rand) Chooser { return randChooser{r} }

type randChooser struct{ r *rand.Rand }

func (c randChooser) Intn(n int, _ string) int { return c.r.IntN(n) }

// specRun drives the impl scheduler and the spec model side by side. The
// spec says which actions are enabled; the test picks one. Goroutine
// actions and sysmon actions are scripted into the impl (the test plays the
// G and sysmon); for a scheduler step the test only says which M steps, and
// the impl decides what that step is. Either way the impl reports the spec
// action it took, which must be enabled in the spec state, and after the
// spec takes the same action the two states must be equal.
type specRun struct {
	seen   func(spec.Action) // if set, told every action compared
	waking int8              // the M inside wakep after the last action compared, or -1
	md     spec.Model
	st     spec.State
	d      *Driver
	slots  [spec.MaxGs + 1]*G // spec GID → impl G
	gid    map[*G]spec.GID
	trace  []string
}

func newSpecRun(b spec.Bounds, implGo spec.GoVersion, implBug spec.Bug, seed uint64) (*specRun, error) {
	md, err := spec.NewModel(b)
	if err != nil {
		return nil, err
	}
	cfg := Config{Procs: b.Ps, QueueCapacity: b.Cap, SchedTickPeriod: b.SchedTick, Seed: seed, Go: implGo}
	if err := cfg.SetBug(implBug); err != nil {
		return nil, err
	}
	d, err := NewDriver(cfg)
	if err != nil {
		return nil, err
	}
	r := &specRun{md: md, st: md.Init(), d: d, gid: map[*G]spec.GID{d.Main(): 1}}
	r.slots[1] = d.Main()
	return r, r.compare()
}

var errPruned = errors.New("spec M bound reached")

// step takes one action chosen by c. It returns errPruned when the spec's M
// bound stops the run (the impl would create another M).
func (r *specRun) step(c Chooser) error {
	en := r.md.Enabled(r.st)
	if len(en) == 0 {
		return errPruned
	}
	a := en[c.Intn(len(en), "action")]
	park := a.Kind == spec.ActPark && !r.md.Bounds().Netpoll
	if (a.Kind == spec.ActGoExit || park) && c.Intn(3, "redraw") != 0 {
		// Exits and parks end traces early (nothing left to run): make
		// them rarer so that traces get long. With netpoll a parked G
		// comes back, and two parked Gs are what injectglist needs.
		a = en[c.Intn(len(en), "action2")]
	}
	return r.apply(a)
}

// apply takes the enabled spec action a on the impl (it says which M
// steps, or what a G or sysmon does) and compares: the impl's actions,
// then both states.
func (r *specRun) apply(a spec.Action) error {
	newG, err := r.d.Apply(a, &r.slots)
	if err != nil {
		return r.fail("%v: %v", a, err)
	}
	// One step of the driver is one spec action, followed by the steps of
	// a wakep it ends with: the impl runs wakep to its end at once, which
	// is one of the interleavings the spec has (the M does nothing else
	// inside wakep; the others may, and the spec explores that).
	acts := r.d.Actions()
	if len(acts) == 0 {
		return r.fail("after %v: impl took no action", a)
	}
	for i, e := range acts {
		ia, err := r.toSpec(e)
		if err != nil {
			return r.fail("%v", err)
		}
		if i > 0 && (!isWakeStep(ia.Kind) || ia.M != r.waking) {
			return r.fail("after %v: impl took %v, want only the steps of the wakep m%d is in", a, acts, r.waking)
		}
		next, err := r.md.Step(r.st, ia)
		if errors.Is(err, spec.ErrNoIdleM) {
			return errPruned
		}
		if err != nil {
			return r.fail("impl took %v: %v", ia, err)
		}
		if i == 0 && newG != nil {
			r.mapNewG(newG, next)
		}
		r.trace = append(r.trace, ia.String())
		if r.seen != nil {
			r.seen(ia)
		}
		r.st = next
		r.waking = -1
		for m := 0; m < r.st.NumMs(); m++ {
			if r.st.M[m].Wake != spec.WakeNone {
				r.waking = int8(m)
			}
		}
	}
	if r.waking >= 0 {
		return r.fail("impl ended its step with m%d in wakep (%v)", r.waking, r.st.M[r.waking].Wake)
	}
	return r.compare()
}

// isWakeStep reports whether k is one of wakep's own steps.
func isWakeStep(k spec.ActionKind) bool {
	switch k {
	case spec.ActWakep, spec.ActWakepSkip, spec.ActWakepStartM, spec.ActWakepNoP:
		return true
	}
	return false
}

// mapNewG pairs the impl's new G with the slot the spec allocated.
func (r *specRun) mapNewG(g *G, next spec.State) {
	for k := 1; k <= next.NumGs(); k++ {
		if (r.st.G[k] == spec.GDead || r.st.G[k] == spec.GIdle) && next.G[k] == spec.GRunnable {
			if old := r.slots[k]; old != nil {
				delete(r.gid, old)
			}
			if j, ok := r.gid[g]; ok {
				r.slots[j] = nil
			}
			r.slots[k] = g
			r.gid[g] = spec.GID(k)
			return
		}
	}
}

func (r *specRun) toSpec(e Event) (spec.Action, error) {
	if e.Action == spec.ActNetpollInject && e.N != 1 {
		return spec.Action{}, fmt.Errorf("impl netpoll injects %d Gs, the spec one", e.N)
	}
	return e.SpecAction(func(goid uint64) spec.GID { return r.gid[r.findG(goid)] }), nil
}

func (r *specRun) findG(id uint64) *G {
	for g := range r.gid {
		if g.ID() == id {
			return g
		}
	}
	return nil
}

var gstatusToSpec = [...]spec.GStatus{
	Gidle: spec.GIdle, Grunnable: spec.GRunnable, Grunning: spec.GRunning,
	Gsyscall: spec.GSyscall, Gwaiting: spec.GWaiting, Gdead: spec.GDead,
}

// implState maps the impl's snapshot to a spec State.
func (r *specRun) implState() (spec.State, error) {
	sn := r.d.Sched().Snapshot()
	got := r.st // sizes and SpawnLeft (a model budget, not impl state)
	id := func(g *G) (spec.GID, error) {
		if g == nil {
			return spec.NoG, nil
		}
		k, ok := r.gid[g]
		if !ok {
			return 0, fmt.Errorf("impl holds unmapped %v", g)
		}
		return k, nil
	}
	for k := 1; k <= got.NumGs(); k++ {
		if g := r.slots[k]; g != nil {
			got.G[k] = gstatusToSpec[g.Status()]
		} else if r.st.G[k] != spec.GIdle {
			got.G[k] = spec.GDead
		}
	}
	if len(sn.Ps) > got.NumPs() || len(sn.Ps) != got.NumPs() && !r.md.Bounds().ProcResize {
		return got, fmt.Errorf("impl has %d Ps, spec %d", len(sn.Ps), got.NumPs())
	}
	for p := len(sn.Ps); p < got.NumPs(); p++ {
		got.P[p] = spec.PState{Status: spec.PDead} // beyond gomaxprocs
	}
	for p, ps := range sn.Ps {
		q := spec.PState{Status: ps.Status, SchedTick: uint8(ps.SchedTick % uint32(r.md.Bounds().SchedTick))}
		var err error
		if q.RunNext, err = id(ps.RunNext); err != nil {
			return got, err
		}
		if len(ps.Ring) > spec.MaxCap {
			return got, fmt.Errorf("p%d ring holds %d", p, len(ps.Ring))
		}
		for i, g := range ps.Ring {
			if q.Ring[i], err = id(g); err != nil {
				return got, err
			}
		}
		q.N = uint8(len(ps.Ring))
		got.P[p] = q
	}
	if len(sn.Ms) > got.NumMs() {
		return got, fmt.Errorf("impl has %d Ms, spec %d", len(sn.Ms), got.NumMs())
	}
	for m := 0; m < got.NumMs(); m++ {
		ms := spec.MState{PC: spec.MIdle, P: spec.NoP}
		if m < len(sn.Ms) {
			x := sn.Ms[m]
			if x.Scan > 0xf {
				return got, fmt.Errorf("m%d scan %#x beyond the spec's Ps", m, x.Scan)
			}
			ms = spec.MState{PC: x.PC, P: int8(x.P), Spinning: x.Spinning, Scan: uint8(x.Scan), NextP: int8(x.NextP)}
			var err error
			if ms.CurG, err = id(x.CurG); err != nil {
				return got, err
			}
			if ms.LockedG, err = id(x.LockedG); err != nil {
				return got, err
			}
			switch len(x.Inj) {
			case 0:
			case 1:
				if ms.Inj, err = id(x.Inj[0]); err != nil {
					return got, err
				}
			default:
				return got, fmt.Errorf("m%d holds %d Gs to inject, the spec one", m, len(x.Inj))
			}
		}
		got.M[m] = ms
	}
	got.Runq = spec.GlobalRunq{N: uint8(len(sn.Runq))}
	if len(sn.Runq) > spec.MaxGs {
		return got, fmt.Errorf("global queue holds %d", len(sn.Runq))
	}
	for i, g := range sn.Runq {
		var err error
		if got.Runq.Gs[i], err = id(g); err != nil {
			return got, err
		}
	}
	got.NPIdle = int8(sn.NPIdle)
	got.NMSpinning = int8(sn.NMSpinning)
	got.NeedSpinning = sn.NeedSpinning == 1
	if r.md.Bounds().STW {
		got.GCWaiting, got.StopWait, got.Procs = sn.GCWaiting, int8(sn.StopWait), int8(len(sn.Ps))
	}
	return got, nil
}

func (r *specRun) compare() error {
	got, err := r.implState()
	if err != nil {
		return r.fail("%v", err)
	}
	if got != r.st {
		return r.fail("states differ\nimpl:\n%v\nspec:\n%v", got, r.st)
	}
	return nil
}

func (r *specRun) fail(format string, args ...any) error {
	return fmt.Errorf("after %v: %s", r.trace, fmt.Sprintf(format, args...))
}

// numGoVersions is how many releases drawBounds draws from: Go126, Go119,
// Go121, Go122.
const numGoVersions = 4

func drawBounds(c Chooser) spec.Bounds {
	ticks := []int{1, 2, 3, 61}
	caps := []int{2, 4, 8}
	netpoll := c.Intn(2, "netpoll") == 1
	inject := netpoll && c.Intn(3, "injectlist") != 0
	return spec.Bounds{
		Netpoll:    netpoll,
		InjectList: inject,
		Ps:         1 + c.Intn(3, "ps"),
		Ms:         spec.MaxMs,
		Gs:         2 + c.Intn(5, "gs"),
		Cap:        caps[c.Intn(len(caps), "cap")],
		Spawn:      c.Intn(spec.MaxSpawn+1, "spawn"),
		SchedTick:  ticks[c.Intn(len(ticks), "tick")],
		Syscalls:   c.Intn(2, "syscalls") == 1,
		Go:         spec.GoVersion(c.Intn(numGoVersions, "go")),
		// Drawn last, so that the earlier draws of a fuzz input keep
		// their meaning; not with InjectList, whose rarest steps need
		// every draw they can get.
		LockOSThread: !inject && c.Intn(2, "lockosthread") == 1,
		SyscallBlock: !inject && c.Intn(3, "syscallblock") == 0,
	}
}

// drawSTW adds a stop-the-world (spec.Bounds.STW) to a third of the Go
// 1.26 bounds; drawn after every other draw, for the same reason.
// ProcResize is not drawn: after a shrink the impl's no-P recheck visits
// its allp snapshot's Ps, the spec's every P slot.
func drawSTW(c Chooser, b *spec.Bounds) {
	if b.Go == spec.Go126 && c.Intn(3, "stw") == 0 {
		b.STW = true
	}
}

// CheckAgainstSpec runs one random trace of up to steps actions on the
// Driver and on the spec model, with random bounds, and reports the first
// divergence. Its self-test, CheckSeededAgainstSpec, exists only in the
// instrumented build, where the scheduler's seeded bugs are.
func CheckAgainstSpec(c Chooser, steps int) error {
	return checkAgainstSpec(c, spec.BugNone, false, steps, nil)
}

// checkAgainstSpec is CheckAgainstSpec; otherGo runs the impl as another
// Go release than the spec's (a self-test), and seen, if set, is told every
// action compared.
func checkAgainstSpec(c Chooser, implBug spec.Bug, otherGo bool, steps int, seen func(spec.Action)) error {
	b := drawBounds(c)
	drawSTW(c, &b)
	implGo := b.Go
	if otherGo {
		implGo = (b.Go + 1) % numGoVersions
	}
	r, err := newSpecRun(b, implGo, implBug, uint64(c.Intn(1<<30, "seed")))
	if err != nil {
		return err
	}
	r.seen = seen
	for range steps {
		if err := r.step(c); err != nil {
			if errors.Is(err, errPruned) {
				return nil
			}
			return fmt.Errorf("bounds %+v: %w", b, err)
		}
	}
	return nil
}
