package impl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// go122InjectWalk is the explorer's counterexample for injectglist without
// its final wakep (golang/go#63555), as
//
//	gmpcheck explore -q -netpoll -injectlist -thread-limit -syscalls=false -gs 2 -go go1.22
//
// prints it: m0 polls g1 and g2 with npidle read as 0 (m1 still holds p1),
// so g2 goes on p0's own queue; meanwhile m1 gives p1 back, looks at p0's
// queue before g2 is there, and stops. p1 stays idle with g2 runnable.
var go122InjectWalk = []string{
	"m0: NewProc", "m0: Wakep", "m0: WakepStartM", "m0: Park", "m0: Global61Miss",
	"m0: RunqGet", "m0: Park", "m0: Global61Miss", "m0: GlobRunqMiss", "m0: NetpollInject(g1, g2)",
	"m1: Global61Miss", "m1: GlobRunqMiss", "m1: StealEmptyRing(p0)", "m1: StealMiss(p0)", "m1: ReleaseP", "m1: DropSpinning",
	"m1: RecheckMiss(p0)", "m0: InjectRunqput", "m0: InjectWakep", "m1: RecheckMiss(p1)", "m1: StopM",
}

var injectBounds = spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, InjectList: true}

// walk takes the named spec actions one by one on the spec (as specGo)
// and on the Driver (as implGo), comparing after each. It returns how many
// steps matched and the first divergence.
func walk(t *testing.T, specGo, implGo spec.GoVersion, steps []string) (*specRun, int, error) {
	t.Helper()
	b := injectBounds
	b.Go = specGo
	r, err := newSpecRun(b, implGo, spec.BugNone, 1)
	if err != nil {
		t.Fatal(err)
	}
	n, err := walkRun(r, steps)
	return r, n, err
}

// walkRun takes steps, by their printed names, on the spec and the impl
// of r, comparing after each; it returns how many steps matched and the
// first divergence.
func walkRun(r *specRun, steps []string) (int, error) {
	for i := 0; i < len(steps); {
		want := steps[i]
		var a spec.Action
		found := false
		for _, e := range r.md.Enabled(r.st) {
			if e.String() == want {
				a, found = e, true
			}
		}
		if !found {
			return i, fmt.Errorf("step %d: %s not enabled in the spec: %v", i+1, want, r.md.Enabled(r.st))
		}
		before := len(r.trace)
		if err := r.apply(a); err != nil {
			return i, fmt.Errorf("step %d (%s): %w", i+1, want, err)
		}
		// The Driver runs a wakep to its end within the step that calls
		// it: the walk's next steps are those of the wakep.
		for _, got := range r.trace[before:] {
			if i >= len(steps) || steps[i] != got {
				return i, fmt.Errorf("step %d: impl took %v, the walk says otherwise", i+1, r.trace[before:])
			}
			i++
		}
	}
	return len(steps), nil
}

// The impl as Go 1.22 takes the counterexample's 21 steps as the spec
// does, and ends where it does: g2 runnable on p0's queue, p1 idle, no M
// spinning, m1 and m2 asleep. Nobody will run g2 until g1 blocks.
func TestDriverGo122InjectLostWakeup(t *testing.T) {
	r, n, err := walk(t, spec.Go122, spec.Go122, go122InjectWalk)
	if err != nil {
		t.Fatalf("after %d steps: %v", n, err)
	}
	sn := r.d.Sched().Snapshot()
	g2 := r.slots[2]
	if g2.Status() != Grunnable || len(sn.Ps[0].Ring) != 1 || sn.Ps[0].Ring[0] != g2 {
		t.Fatalf("want g2 runnable on p0's queue, got %v and p0 %+v", g2.Status(), sn.Ps[0])
	}
	if sn.NPIdle != 1 || sn.Ps[1].Status != spec.PIdle || sn.NMSpinning != 0 {
		t.Fatalf("want p1 idle and nobody spinning: npidle=%d p1=%v nmspinning=%d", sn.NPIdle, sn.Ps[1].Status, sn.NMSpinning)
	}
	for i, m := range sn.Ms {
		if m.Spinning || (i > 0 && m.PC != spec.MIdle) {
			t.Fatalf("m%d: %+v, want m1 and m2 idle and nobody spinning", i, m)
		}
	}
}

// The impl as Go 1.26 leaves the Go 1.22 walk where the fix is: its
// injectglist ends with wakep, which the go1.22 spec has not.
func TestDriverGo126InjectWakesUp(t *testing.T) {
	_, n, err := walk(t, spec.Go122, spec.Go126, go122InjectWalk)
	if err == nil {
		t.Fatal("the impl as go1.26 followed the go1.22 counterexample to its end")
	}
	if go122InjectWalk[n] != "m0: InjectWakep" || !strings.Contains(err.Error(), "Wakep") {
		t.Fatalf("want a divergence at InjectWakep, where the impl calls wakep; got at step %d: %v", n+1, err)
	}
	t.Logf("go1.26 impl, go1.22 spec: %.300s", err)
	// As Go 1.26 on both sides the same walk goes through: InjectWakep's
	// wakep (which the Driver runs to its end within the step) starts m2
	// spinning on p1, and m2 will steal g2.
	walk126 := append(append([]string(nil), go122InjectWalk[:19]...), "m0: Wakep", "m0: WakepStartM", "m1: RecheckMiss(p1)", "m1: StopM")
	r, n, err := walk(t, spec.Go126, spec.Go126, walk126)
	if err != nil {
		t.Fatalf("go1.26, after %d steps: %v", n, err)
	}
	sn := r.d.Sched().Snapshot()
	if sn.NPIdle != 0 || sn.NMSpinning != 1 || !sn.Ms[2].Spinning || sn.Ms[2].P != 1 {
		t.Fatalf("want m2 spinning on p1: npidle=%d nmspinning=%d m2=%+v", sn.NPIdle, sn.NMSpinning, sn.Ms[2])
	}
}

// The impl's injectglist takes any number of Gs, as the runtime's does
// (the spec's takes one): netpoll returns g1, g2, g3 with one P idle; g1
// stays in hand, g2 (one per idle P) goes to sched.runq with an M started
// for it, g3 to the M's own queue, then g1 runs and wakep finds no P.
func TestDriverNetpollInjectsMany(t *testing.T) {
	d, err := NewDriver(Config{Procs: 2, QueueCapacity: 4, SchedTickPeriod: 61})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Sched()
	until := func(i int, pc spec.MPC) {
		t.Helper()
		for range 20 {
			if s.allm[i].pc == pc {
				d.Actions()
				return
			}
			if err := d.Step(i); err != nil {
				t.Fatal(err)
			}
		}
		t.Fatalf("m%d never reached %v (at %v)", i, pc, s.allm[i].pc)
	}
	g1 := d.Main()
	g2, err := d.NewProc(0) // wakep starts m1 spinning on p1
	if err != nil {
		t.Fatal(err)
	}
	g3, err := d.NewProc(0)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 { // g1, then g3 (runnext), then g2 run on m0 and park
		if err := d.Park(0); err != nil {
			t.Fatal(err)
		}
		if k < 2 {
			until(0, spec.MRun)
		}
	}
	until(0, spec.MPoll)
	until(1, spec.MIdle) // m1 finds nothing and stops: p1 idle
	if err := d.Netpoll(0, g1, g2, g3); err != nil {
		t.Fatal(err)
	}
	for _, pc := range []spec.MPC{spec.MInjectStart, spec.MInjectLocal, spec.MInjectWake, spec.MRun} {
		if err := d.Step(0); err != nil {
			t.Fatal(err)
		}
		if s.allm[0].pc != pc {
			t.Fatalf("m0 at %v, want %v", s.allm[0].pc, pc)
		}
	}
	var got []string
	for _, e := range d.Actions() {
		got = append(got, e.Action.String())
	}
	want := "[NetpollInject InjectGlobrunq InjectStartIdle InjectRunqput InjectWakep Wakep WakepNoP]"
	if fmt.Sprint(got) != want {
		t.Fatalf("actions %v, want %s", got, want)
	}
	sn := s.Snapshot()
	if len(sn.Runq) != 1 || sn.Runq[0] != g2 || len(sn.Ps[0].Ring) != 1 || sn.Ps[0].Ring[0] != g3 {
		t.Fatalf("want g2 in sched.runq and g3 on p0: runq %v, p0 %+v", sn.Runq, sn.Ps[0])
	}
	if sn.Ms[0].CurG != g1 || g1.Status() != Grunning || sn.Ms[1].PC != spec.MSched || sn.Ms[1].P != 1 || sn.Ms[1].Spinning {
		t.Fatalf("want g1 running on m0 and m1 started, not spinning, on p1: %+v", sn.Ms)
	}
	if sn.NeedSpinning != 1 || sn.NPIdle != 0 {
		t.Fatalf("want wakep to find no P and set needspinning: npidle=%d needspinning=%d", sn.NPIdle, sn.NeedSpinning)
	}
	if st := s.Stats(); st.Netpolled != 3 || st.Injected != 2 {
		t.Fatalf("netpolled %d injected %d, want 3 and 2", st.Netpolled, st.Injected)
	}
}
