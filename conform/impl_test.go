package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// implTraces records and checks perProcs runs at each of procsList; a
// rejected run is an error of t (and is dumped with CONFORM_DUMP) past the
// first tolerate of them, which are logged and dumped. It returns the
// accepted runs, the inconclusive ones, and the observations checked in
// accepted runs.
func implTraces(t *testing.T, procsList []int, perProcs, gs, tolerate int) (acc, inc, actions int, checkTime time.Duration) {
	t.Helper()
	ctx := context.Background()
	for _, procs := range procsList {
		for i := range perProcs {
			r := ImplRun{Procs: procs, Seed: uint64(1000*procs + i), Gs: gs}
			evs, q, err := r.Record(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			res := CheckImpl(ctx, evs, r.Options(q))
			checkTime += time.Since(t0)
			switch res.Verdict {
			case Accepted:
				acc++
				actions += res.Actions
			case Inconclusive:
				inc++
				t.Logf("procs %d seed %d: %v", procs, r.Seed, res)
			default:
				if tolerate > 0 {
					tolerate--
					t.Logf("procs %d seed %d (tolerated): %v", procs, r.Seed, res)
				} else {
					t.Errorf("procs %d seed %d: %v", procs, r.Seed, res)
				}
				dumpTrace(t, evs, procs, r.Seed)
			}
		}
	}
	return
}

// TestImplTraces is the default tier: a dozen concurrent runs of the
// reference scheduler (four under -race, where the checker is ten times
// slower), checked against the spec. One run of the dozen not accepted
// (rejected, or inconclusive: more candidate configurations than the
// checker keeps) is tolerated, logged and dumped; a second fails the test,
// and the long tier tolerates no rejection. CI's rejection of 2 December
// found an event emitted out of order, a spec step coarser than proc.go's
// and two filters too narrow; with those mended 2,400 runs at this test's
// Procs 4 bounds were all accepted, but under load two iterations in 100
// still failed; the one kept met handoffp's fused reads in an M's own
// hand-off (stoplockedm: its load of nmspinning during another M's wakep),
// which then only the retake's hand-off had a filter for, and a later
// reproduction met runqputslow's two steps (docs/conformance.md). Both
// have filters now; splitting handoffp in the spec is what would make
// this strict again.
func TestImplTraces(t *testing.T) {
	n := 6
	if testing.Short() || raceEnabled {
		n = 2
	}
	acc, inc, actions, d := implTraces(t, []int{2, 4}, n, 24, 1)
	t.Logf("%d accepted, %d inconclusive; %d actions checked in %v", acc, inc, actions, d)
	if acc < 2*n-1 {
		t.Errorf("only %d of %d runs accepted", acc, 2*n)
	}
}

// TestImplTracesLong is the long tier (GMPCHECK_LONG=1): 1,002 runs, 334
// at each of Procs 2, 4 and 8, of 40 Gs each. A rejected run fails it (and
// is dumped with CONFORM_DUMP): every rejection met so far was a gap of the
// spec, the checker or impl's events, since closed, and the 3,006 runs
// measured after them were all accepted (docs/conformance.md). Inconclusive
// runs (too many candidate configurations) are tolerated up to a tenth.
func TestImplTracesLong(t *testing.T) {
	if os.Getenv("GMPCHECK_LONG") == "" {
		t.Skip("GMPCHECK_LONG=1 runs the long tier")
	}
	t0 := time.Now()
	const per = 334
	acc, inc, actions, d := implTraces(t, []int{2, 4, 8}, per, 40, 0)
	n := 3 * per
	t.Logf("%d accepted, %d rejected, %d inconclusive, in %v; %d actions checked in %v (%.0f actions/s)", acc, n-acc-inc, inc, time.Since(t0), actions, d, float64(actions)/d.Seconds())
	if acc < n*9/10 {
		t.Errorf("only %d of %d runs accepted", acc, n)
	}
}

// mutate applies one alteration to a copy of an accepted trace: each
// models a scheduler bug's footprint, and the checker must reject it.
var mutations = []struct {
	name string
	f    func(evs []impl.Event) bool // false: nothing to mutate
}{
	// The event contract (impl.Event.Check): a G status change with a
	// victim, as the sites that left the field at 0 once wrote.
	{"status-change-names-a-victim", func(evs []impl.Event) bool {
		for i, e := range evs {
			if e.Kind == impl.EvGStatus {
				evs[i].Victim = 0
				return true
			}
		}
		return false
	}},
	{"runqget-runs-another-g", func(evs []impl.Event) bool {
		for i, e := range evs {
			if e.Kind == impl.EvAction && e.Action == spec.ActRunqGet {
				for j := i - 1; j >= 0; j-- {
					if o := evs[j]; o.Kind == impl.EvAction && o.G != 0 && o.G != e.G {
						evs[i].G = o.G
						return true
					}
				}
			}
		}
		return false
	}},
	{"steal-from-another-victim", func(evs []impl.Event) bool {
		for i, e := range evs {
			if e.Kind == impl.EvAction && e.Action == spec.ActSteal {
				evs[i].Victim = (e.Victim + 1) % 4
				if evs[i].Victim == e.P {
					evs[i].Victim = (evs[i].Victim + 1) % 4
				}
				return true
			}
		}
		return false
	}},
	{"gosched-as-park", func(evs []impl.Event) bool {
		for i, e := range evs {
			if e.Kind == impl.EvAction && e.Action == spec.ActGosched {
				evs[i].Action = spec.ActPark
				return true
			}
		}
		return false
	}},
	{"spinlimit-as-becomespinning", func(evs []impl.Event) bool {
		for i, e := range evs {
			if e.Kind == impl.EvAction && e.Action == spec.ActBecomeSpinning {
				evs[i].Action = spec.ActSpinLimit
				return true
			}
		}
		return false
	}},
	{"stopm-dropped", func(evs []impl.Event) bool {
		for i, e := range evs {
			if e.Kind == impl.EvAction && e.Action == spec.ActStopM {
				evs[i].Kind = impl.EvSpinning // no longer an action
				return true
			}
		}
		return false
	}},
	{"exit-syscall-fast-on-another-p", func(evs []impl.Event) bool {
		for i, e := range evs {
			if e.Kind == impl.EvAction && e.Action == spec.ActExitSyscallFast {
				evs[i].P = (e.P + 1) % 4
				return true
			}
		}
		return false
	}},
}

// TestImplCheckBites shows the impl trace check rejects altered traces:
// every mutation of accepted runs is rejected.
func TestImplCheckBites(t *testing.T) {
	ctx := context.Background()
	done := map[string]bool{}
	for seed := uint64(1); seed <= 6 && len(done) < len(mutations); seed++ {
		r := ImplRun{Procs: 4, Seed: seed, Gs: 24}
		if raceEnabled {
			r.Gs = 12
		}
		evs, q, err := r.Record(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res := CheckImpl(ctx, evs, r.Options(q)); res.Verdict != Accepted {
			continue
		}
		for _, m := range mutations {
			if done[m.name] {
				continue
			}
			mev := append([]impl.Event(nil), evs...)
			if !m.f(mev) {
				continue
			}
			done[m.name] = true
			res := CheckImpl(ctx, mev, r.Options(q))
			if res.Verdict != Rejected {
				t.Errorf("%s: %v, want rejected", m.name, res.Verdict)
			} else {
				t.Logf("%s: rejected at event %d: %v", m.name, res.Index, res.Event)
			}
		}
	}
	for _, m := range mutations {
		if !done[m.name] {
			t.Errorf("%s: no accepted run had an event to mutate", m.name)
		}
	}
}

// dumpTrace writes a rejected run's events to $CONFORM_DUMP/, if set, for
// TestImplReplay.
func dumpTrace(t *testing.T, evs []impl.Event, procs int, seed uint64) {
	dir := os.Getenv("CONFORM_DUMP")
	if dir == "" {
		return
	}
	js, err := json.Marshal(evs)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("conform-p%d-s%d.json", procs, seed)), js, 0o644)
	}
	if err != nil {
		t.Log(err)
	}
}

// recordedFilters maps a filter's name to the option that turns it off.
var recordedFilters = map[string]func(*ImplOptions){
	"steal-retry":         func(o *ImplOptions) { o.StealRetry = false },
	"stale-handoff":       func(o *ImplOptions) { o.StaleHandoff = false },
	"runnext-kick":        func(o *ImplOptions) { o.RunnextKick = false },
	"runqput-spill":       func(o *ImplOptions) { o.RunqputSpill = false },
	"long-syscall-retake": func(o *ImplOptions) { o.LongSyscallRetake = false },
}

// TestImplRecorded re-checks the runs kept in testdata/impl, each once
// rejected by the checker: pP-sSEED-WHY.events.gz, recorded at Procs P.
// Each must be accepted now, by the command's options. When WHY names a
// filter, the run must be rejected with that filter off (the filter is
// what accepts it); otherwise WHY names a fix of the checker or of the
// impl's emission order.
func TestImplRecorded(t *testing.T) {
	if raceEnabled {
		t.Skip("the checker is sequential and ten times slower under -race; the default build runs this")
	}
	files, err := filepath.Glob("testdata/impl/*.events.gz")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded runs in testdata/impl")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".events.gz")
		t.Run(name, func(t *testing.T) {
			var procs int
			var seed uint64
			var why string
			if _, err := fmt.Sscanf(name, "p%d-s%d-%s", &procs, &seed, &why); err != nil {
				t.Fatalf("%s: want pP-sSEED-WHY: %v", name, err)
			}
			evs, err := readTraceFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			opt := ImplRun{Procs: procs}.Options(true)
			res := CheckImpl(ctx, evs, opt)
			if res.Verdict != Accepted {
				t.Fatalf("%v", res)
			}
			t.Logf("%v", res)
			if off, ok := recordedFilters[why]; ok {
				if res.Filtered[why] == 0 {
					t.Errorf("accepted without filter %s", why)
				}
				off(&opt)
				if res := CheckImpl(ctx, evs, opt); res.Verdict != Rejected {
					t.Errorf("without filter %s: %v, want rejected", why, res.Verdict)
				}
			}
		})
	}
}

// TestCanonG checks the G renumbering of candidates: a renumbered state
// has the live Gs in goid order, with every reference (queues, curg,
// lockedg, the binding, kicks) following its G; and on a recorded run the
// search reaches the same verdict with and without it, with no more
// candidates at once.
func TestCanonG(t *testing.T) {
	md, err := spec.NewModel(spec.Bounds{Ps: 2, Ms: 4, Gs: 5, Cap: 4, SchedTick: 7, Syscalls: true, LockOSThread: true, Spawn: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := md.Init()
	// g4 runs on m0 locked to it, g2 in p0's runnext, g5 in p1's ring,
	// g1 in sched.runq; g3 is dead. goids: g4=10, g2=20, g5=30, g1=40.
	st.G[1], st.G[2], st.G[3], st.G[4], st.G[5] = spec.GRunnable, spec.GRunnable, spec.GDead, spec.GRunning, spec.GRunnable
	st.P[0].RunNext = 2
	st.P[1].Ring[0], st.P[1].N = 5, 1
	st.Runq.Gs[0], st.Runq.N = 1, 1
	st.M[0] = spec.MState{PC: spec.MRun, P: 0, CurG: 4, LockedG: 4}
	cf := config{st: st, bind: []binding{{10, 4}, {20, 2}, {30, 5}, {40, 1}}, kicks: []kick{{0, 1, 5}}}
	canonG(&cf)
	want := []binding{{10, 1}, {20, 2}, {30, 3}, {40, 4}}
	if !slices.Equal(cf.bind, want) {
		t.Errorf("bind %v, want %v", cf.bind, want)
	}
	s := &cf.st
	if s.M[0].CurG != 1 || s.M[0].LockedG != 1 || s.G[1] != spec.GRunning {
		t.Errorf("m0's G: curg %v locked %v status %v, want g1 running", s.M[0].CurG, s.M[0].LockedG, s.G[1])
	}
	if s.P[0].RunNext != 2 || s.P[1].Ring[0] != 3 || s.Runq.Gs[0] != 4 || cf.kicks[0].g != 3 {
		t.Errorf("queues not renumbered: %v, kick %v", s, cf.kicks)
	}
	if s.G[5] != spec.GDead {
		t.Errorf("the dead slot is %v, want last", s.G[5])
	}

	if raceEnabled {
		return
	}
	evs, err := readTraceFile("testdata/impl/p4-s1020-steal-retry.events.gz")
	if err != nil {
		t.Fatal(err)
	}
	opt := ImplRun{Procs: 4}.Options(true)
	with := CheckImpl(context.Background(), evs, opt)
	noCanonG = true
	without := CheckImpl(context.Background(), evs, opt)
	noCanonG = false
	t.Logf("with canonG: %v, frontier %d; without: %v, frontier %d", with.Verdict, with.MaxFrontier, without.Verdict, without.MaxFrontier)
	if with.Verdict != Accepted || without.Verdict != Accepted {
		t.Errorf("verdicts %v with canonG, %v without; want both accepted", with.Verdict, without.Verdict)
	}
	if with.MaxFrontier > without.MaxFrontier {
		t.Errorf("frontier %d with canonG > %d without", with.MaxFrontier, without.MaxFrontier)
	}
}

// TestEventsRoundTrip: WriteEvents then ReadEvents gives the events back,
// every field of every kind (a recorded run's), and a damaged line is an
// error.
func TestEventsRoundTrip(t *testing.T) {
	r := ImplRun{Procs: 2, Seed: 7, Gs: 12}
	evs, _, err := r.Record(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	evs = append(evs, impl.Event{Kind: impl.EvSteal, M: 3, P: 1, Victim: 2, G: 99, Inj: 5, N: -1, On: true, From: impl.Gwaiting, To: impl.Gdead})
	var b strings.Builder
	if err := WriteEvents(&b, evs); err != nil {
		t.Fatal(err)
	}
	got, err := ReadEvents(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, evs) {
		t.Fatalf("read back %d events, differ from the %d written", len(got), len(evs))
	}
	for _, bad := range []string{"Action NoSuchAction 0 0 0 0 0 idle idle 0 0\n", "Action\n", "GStatus NewProc x 0 0 0 0 idle idle 0 0\n"} {
		if _, err := ReadEvents(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
