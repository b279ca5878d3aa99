package impl

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

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
	// checkEvent, if set, judges each action event the impl emits, with
	// the spec's states before and after the action.
	checkEvent func(e Event, before, after *spec.State) error
	// orderOK[p]: before the action, the impl would run P p's due timers
	// in the spec's order (timerOrders).
	orderOK []bool
}

func newSpecRun(b spec.Bounds, implGo spec.GoVersion, implBug spec.Bug, seed uint64) (*specRun, error) {
	return newSpecRunCfg(b, Config{Procs: b.Ps, QueueCapacity: b.Cap, SchedTickPeriod: b.SchedTick, Seed: seed, Go: implGo}, implBug)
}

// newSpecRunCfg is newSpecRun with the impl's Config given (its Procs,
// QueueCapacity and SchedTickPeriod b's).
func newSpecRunCfg(b spec.Bounds, cfg Config, implBug spec.Bug) (*specRun, error) {
	md, err := spec.NewModel(b)
	if err != nil {
		return nil, err
	}
	if ib, ok := PollImplBug(implBug); ok {
		// The poller's and timers' seeded bugs are the impl's own
		// mechanism bugs of the same names.
		if err := cfg.SetImplBug(ib); err != nil {
			return nil, err
		}
	} else if err := cfg.SetBug(implBug); err != nil {
		return nil, err
	}
	d, err := NewDriver(cfg)
	if err != nil {
		return nil, err
	}
	if b.PollBlock {
		d.UseNetpoll(b.Timers > 0)
	}
	r := &specRun{md: md, st: md.Init(), d: d, gid: map[*G]spec.GID{d.Main(): 1}, checkEvent: noPEvent}
	r.slots[1] = d.Main()
	return r, r.compare()
}

var errPruned = errors.New("spec M bound reached")

// errGap ends a trace where the impl, following the runtime, takes a step
// the spec abstracts differently (gapReason says which); the trace is cut
// there, as at the M bound, and counted.
type errGap struct{ reason string }

func (e errGap) Error() string { return "spec abstraction gap: " + e.reason }

// The gaps of the poller and timers (see gapBefore, gapAfter).
const (
	// Two or more due timers of one P run in one check: the runtime (and
	// the impl) ready their Gs in the order of their whens, the spec in
	// G order (its ages stop at 0, "due", so it cannot tell).
	gapTimerOrder = "timer-order"
	// Two pollUntils both past: the runtime (and the impl) compares their
	// times, the spec's ages stop at "due" and compare equal, so the
	// impl may netpollBreak where the spec stops.
	gapDuePollUntils = "due-pollUntils"
	// go1.17dev: the G an M keeps for its lock check after putting it on
	// sched.runq ran, exited and its slot was reused before the check:
	// the spec names Gs by slot, the impl by the G it holds.
	gapLockCheckG = "lockcheck-g-reused"
)

// step takes one action chosen by c. It returns errPruned when the spec's M
// bound stops the run (the impl would create another M).
func (r *specRun) step(c Chooser) error {
	a, err := r.pick(c)
	if err != nil {
		return err
	}
	if err := r.retakeRefusals(); err != nil {
		return err
	}
	return r.apply(a)
}

// retakeRefusals checks that the impl's sysmon refuses the retakes the
// spec's refuses. The walk plays only enabled actions, so an impl whose
// retake took more Ps than the rule allows would never be asked; here,
// for every P whose M holds a G in a syscall and for which the spec has no
// Retake (its rule false: no local work, and an M spinning or a P idle),
// the driver's Retake must not take it. A refused retake changes nothing
// and emits nothing, so the probe leaves the impl as it found it.
func (r *specRun) retakeRefusals() error {
	if !r.md.Bounds().Syscalls || r.st.RetakeP != 0 {
		return nil
	}
	var enabled [spec.MaxPs]bool
	for _, a := range r.md.Enabled(r.st) {
		if a.Kind == spec.ActRetake {
			enabled[a.P] = true
		}
	}
	for m := 0; m < r.st.NumMs(); m++ {
		ms := &r.st.M[m]
		if ms.P == spec.NoP || ms.CurG == spec.NoG || r.st.G[ms.CurG] != spec.GSyscall || ms.Wake != spec.WakeNone {
			continue
		}
		p := int(ms.P)
		if enabled[p] || r.st.P[p].Status != spec.PRunning {
			continue
		}
		took, err := r.d.Retake(p)
		if err != nil {
			return r.fail("probing sysmon's retake of p%d: %v", p, err)
		}
		if took {
			return r.fail("the impl's sysmon took p%d from m%d's syscall, which the spec's retake rule refuses here", p, m)
		}
		if acts := r.d.Actions(); len(acts) != 0 {
			return r.fail("a refused retake of p%d took actions %v", p, acts)
		}
	}
	return nil
}

// pick chooses step's action (errPruned if none is enabled).
func (r *specRun) pick(c Chooser) (spec.Action, error) {
	en := r.md.Enabled(r.st)
	if len(en) == 0 {
		return spec.Action{}, errPruned
	}
	a := en[c.Intn(len(en), "action")]
	park := a.Kind == spec.ActPark && !r.md.Bounds().Netpoll
	if (a.Kind == spec.ActGoExit || park) && c.Intn(3, "redraw") != 0 {
		// Exits and parks end traces early (nothing left to run): make
		// them rarer so that traces get long. With netpoll a parked G
		// comes back, and two parked Gs are what injectglist needs.
		a = en[c.Intn(len(en), "action2")]
	}
	return a, nil
}

// apply takes the enabled spec action a on the impl (it says which M
// steps, or what a G or sysmon does) and compares: the impl's actions,
// then both states.
func (r *specRun) apply(a spec.Action) error {
	r.orderOK = r.timerOrders(r.orderOK[:0])
	newG, err := r.d.Apply(a, &r.slots)
	if err != nil {
		return r.fail("%v: %v", a, err)
	}
	// One step of the driver is one spec action, followed by the steps of
	// a wakep it ends with: the impl runs wakep to its end at once, which
	// is one of the interleavings the spec has (the M does nothing else
	// inside wakep; the others may, and the spec explores that).
	acts := r.d.Actions()
	if r.d.badEvent != nil {
		return r.fail("after %v: malformed event: %v", a, r.d.badEvent)
	}
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
		if gap := r.gapBefore(ia); gap != "" {
			return errGap{gap}
		}
		next, err := r.md.Step(r.st, ia)
		if errors.Is(err, spec.ErrNoIdleM) {
			return errPruned
		}
		if err != nil {
			if gap := r.gapAfter(ia); gap != "" {
				return errGap{gap}
			}
			return r.fail("impl took %v: %v", ia, err)
		}
		if r.checkEvent != nil {
			if err := r.checkEvent(e, &r.st, &next); err != nil {
				return r.fail("%v: %v", ia, err)
			}
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
	gid := func(goid uint64) spec.GID { return r.gid[r.findG(goid)] }
	return e.SpecAction(gid), nil
}

// dueTimers counts the due timers on P p's heap in the spec's state.
func (r *specRun) dueTimers(p int) int {
	n := 0
	for g := 1; g <= r.st.NumGs(); g++ {
		if int(r.st.TimerP[g]) == p+1 && r.st.TimerWhen[g] == 0 {
			n++
		}
	}
	return n
}

// gapBefore reports the gap (if any) the impl's action a, about to be
// taken on the spec, falls into: a check that runs two due timers or
// more.
func (r *specRun) gapBefore(a spec.Action) string {
	switch a.Kind {
	case spec.ActCheckTimers, spec.ActStealTimers:
		p := int(a.P)
		if a.Kind == spec.ActCheckTimers {
			p = int(r.st.M[a.M].P)
		}
		if p < len(r.orderOK) && !r.orderOK[p] {
			return gapTimerOrder
		}
	}
	return ""
}

// timerOrders appends, for each P, whether the impl would run its due
// timers in the spec's order (G order; trivially with fewer than two), by
// popping a copy of its heap.
func (r *specRun) timerOrders(dst []bool) []bool {
	s := r.d.Sched()
	now := s.nanotime()
	for p, pp := range s.ps().allp {
		if r.dueTimers(p) < 2 {
			dst = append(dst, true)
			continue
		}
		ts := &pp.timers
		ts.mu.Lock()
		cp := timers{heap: append([]timer(nil), ts.heap...)}
		ts.mu.Unlock()
		var order []spec.GID
		for len(cp.heap) > 0 && cp.heap[0].when <= now {
			if t := cp.pop(); t.g.x.sleepSeq.Load() == t.seq {
				order = append(order, r.gid[t.g])
			}
		}
		dst = append(dst, slices.IsSorted(order))
	}
	return dst
}

// gapAfter reports the gap (if any) that explains why the spec refused
// the impl's action a.
func (r *specRun) gapAfter(a spec.Action) string {
	switch a.Kind {
	case spec.ActNetpollBreak:
		if r.st.M[a.M].PollUntil == 1 && r.st.PollUntil == 1 {
			return gapDuePollUntils
		}
	}
	return ""
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
	got.RetakeP = int8(sn.RetakeP)
	for p, ps := range sn.Ps {
		q := spec.PState{Status: ps.Status, SchedTick: uint8(ps.SchedTick % uint32(r.md.Bounds().SchedTick))}
		if p+1 == sn.RetakeP {
			// The runtime's takeP stores _Pidle; the P is on no idle
			// list, which is what the spec's PRunning without an M says.
			q.Status = spec.PRunning
		}
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
			ms = spec.MState{PC: x.PC, P: int8(x.P), Spinning: x.Spinning, Scan: uint8(x.Scan), NextP: int8(x.NextP), Victim: int8(x.Victim), OldP: int8(x.OldP),
				Yield: r.d.yieldingM(m), Tainted: x.Tainted}
			if r.md.Bounds().ProcResize {
				// The spec keeps the allp snapshot's size only where
				// procresize can make it differ from every P slot.
				ms.SnapPs = int8(x.SnapPs)
			}
			if b := r.md.Bounds(); b.PollBlock {
				ms.WasSpinning, ms.Checked, ms.Inherit = x.WasSpinning, x.Checked, x.Inherit
				ms.PollUntil = pollUntilTicks(x.PollUntil, sn.Now)
				normalizePollFields(&ms)
			} else if ms.PC == spec.MPollCheck {
				// Without the blocking poller the tail is stopm.
				ms.PC = spec.MStop
			}
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
					if x.PC == spec.MExitLockCheck {
						return got, errGap{gapLockCheckG}
					}
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
	if len(sn.Pidle) != int(sn.NPIdle) || len(sn.Pidle) > spec.MaxPs {
		return got, fmt.Errorf("sched.pidle holds %d Ps, npidle is %d", len(sn.Pidle), sn.NPIdle)
	}
	for i, p := range sn.Pidle {
		got.IdlePs[i] = int8(p)
	}
	got.NMSpinning = int8(sn.NMSpinning)
	got.NeedSpinning = sn.NeedSpinning == 1
	if r.md.Bounds().STW {
		got.GCWaiting, got.StopWait, got.Procs = sn.GCWaiting, int8(sn.StopWait), int8(len(sn.Ps))
	}
	if r.md.Bounds().PollBlock {
		got.LastPoll = sn.LastPoll != 0
		got.PollUntil = pollUntilTicks(sn.PollUntil, sn.Now)
		got.TimerP, got.TimerWhen = [spec.MaxGs + 1]uint8{}, [spec.MaxGs + 1]uint8{}
		for _, t := range sn.Timers {
			k, err := id(t.G)
			if err != nil {
				return got, err
			}
			if t.P >= got.NumPs() || got.TimerP[k] != 0 {
				return got, fmt.Errorf("timer of %v on p%d", t.G, t.P)
			}
			got.TimerP[k] = uint8(t.P + 1)
			got.TimerWhen[k] = uint8(max(t.When-sn.Now, 0))
		}
	}
	return got, nil
}

// pollUntilTicks is a time (0: none) in the spec's encoding of pollUntil,
// against the Driver's clock now (ticks of 1 ns): 0 none, 1 due, k+1 due
// in k ticks.
func pollUntilTicks(when, now int64) uint8 {
	if when == 0 {
		return 0
	}
	return uint8(max(when-now, 0) + 1)
}

// normalizePollFields clears the spec's M fields of the poller and timers
// where the spec keeps none (its normalizePollFields): findRunnable's
// locals outside findRunnable, and the flags outside the pcs they belong
// to. The impl keeps its locals in the M and leaves them stale there.
func normalizePollFields(ms *spec.MState) {
	switch ms.PC {
	case spec.MLocal, spec.MPoll, spec.MSpin, spec.MSteal, spec.MStealNext, spec.MDrop, spec.MDropSpin, spec.MRecheck,
		spec.MRecheckRunqs, spec.MRecheckP, spec.MTimersNoP, spec.MPollCheck:
	case spec.MSched:
		if !ms.Checked {
			ms.PollUntil = 0
		}
	default:
		ms.PollUntil = 0
	}
	if ms.PC != spec.MSched {
		ms.Checked = false
	}
	if ms.PC != spec.MResetSpin {
		ms.Inherit = false
	}
	switch ms.PC {
	case spec.MTimersNoP, spec.MPollCheck, spec.MNetpoll, spec.MNetpollRet, spec.MNetpollLock:
	default:
		ms.WasSpinning = false
	}
}

func (r *specRun) compare() error {
	got, err := r.implState()
	var gap errGap
	if errors.As(err, &gap) {
		return gap
	}
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
		Goyield:      c.Intn(3, "goyield") == 0,
	}
}

// drawSTW adds a stop-the-world (spec.Bounds.STW) to a third of the Go
// 1.26 bounds, and to half of those a procresize (the no-P recheck walks
// its allp snapshot's Ps on both sides); drawn after every other draw, for
// the same reason.
func drawSTW(c Chooser, b *spec.Bounds) {
	if b.Go == spec.Go126 && c.Intn(3, "stw") == 0 {
		b.STW = true
		b.ProcResize = c.Intn(2, "procresize") == 0
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

// drawPollBounds draws a small bound with the blocking poller
// (spec.Bounds.PollBlock) and, in two of three, timers (Timers 1 or 2):
// one or two Ps, two or three G slots, and the other parts of the
// scheduler drawn as in drawBounds; Go 1.26, or with timers sometimes
// Go 1.15.
func drawPollBounds(c Chooser) spec.Bounds {
	ticks := []int{1, 2, 61}
	caps := []int{2, 4}
	b := spec.Bounds{
		Ps:        1 + c.Intn(2, "ps"),
		Ms:        spec.MaxMs,
		Gs:        2 + c.Intn(2, "gs"),
		Cap:       caps[c.Intn(len(caps), "cap")],
		Spawn:     c.Intn(4, "spawn"),
		SchedTick: ticks[c.Intn(len(ticks), "tick")],
		Netpoll:   true,
		PollBlock: true,
		Timers:    c.Intn(3, "timers"),
		Syscalls:  c.Intn(2, "syscalls") == 1,
	}
	b.SyscallBlock = c.Intn(3, "syscallblock") == 0
	b.LockOSThread = c.Intn(3, "lockosthread") == 0
	b.InjectList = c.Intn(4, "injectlist") == 0
	// Drawn last, so that the earlier draws keep their meaning: with
	// timers, a quarter of the bounds follow Go 1.15, without 1.16's two
	// timer wake-ups (golang/go#38860), so that the impl's go1.15 is
	// compared with the spec's step by step too.
	if b.Timers > 0 && c.Intn(4, "go115") == 0 {
		b.Go = spec.Go115
	}
	return b
}

// CheckPollAgainstSpec is CheckAgainstSpec on bounds with the blocking
// poller and timers (drawPollBounds): the Driver also takes every action of
// spec.PollActionKinds.
func CheckPollAgainstSpec(c Chooser, steps int) error {
	return checkPollAgainstSpec(c, spec.BugNone, steps, nil, nil)
}

// checkPollAgainstSpec is CheckPollAgainstSpec with the impl built with
// implBug (a seeded bug of spec.PollBugs, or none); seen, if set, is told
// every action compared, and gaps, if set, counts the traces cut at a gap
// of the spec's abstraction (errGap), by reason.
func checkPollAgainstSpec(c Chooser, implBug spec.Bug, steps int, seen func(spec.Action), gaps map[string]int) error {
	b := drawPollBounds(c)
	if implBug == spec.BugTimersNotStolen && b.Timers == 0 {
		b.Timers = 1 // the bug needs timers to show
	}
	// Last of all: a stop-the-world, with a procresize in half, whose
	// destroy moves the dead P's timers to p0 on both sides.
	drawSTW(c, &b)
	r, err := newSpecRun(b, b.Go, implBug, uint64(c.Intn(1<<30, "seed")))
	if err != nil {
		return err
	}
	r.seen = seen
	for range steps {
		if err := r.step(c); err != nil {
			var gap errGap
			switch {
			case errors.Is(err, errPruned):
				return nil
			case errors.As(err, &gap):
				if gaps != nil {
					gaps[gap.reason]++
				}
				return nil
			}
			return fmt.Errorf("bounds %+v: %w", b, err)
		}
	}
	return nil
}
