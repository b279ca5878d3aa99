package fuzz

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// maxSchedCommands bounds one input's workload.
const maxSchedCommands = 300

// FuzzScheduler reads a configuration (Ps 1-3, ring capacity 2 or 4,
// schedtick period 2-4) and then a workload of driver commands from the
// bytes: an M takes a scheduler step, or its G spawns, exits, yields,
// parks, readies a parked G, enters or leaves a syscall, enters a blocking
// syscall (entersyscallblock), locks or unlocks its M (LockOSThread);
// sysmon preempts or retakes a P; a parked G is readied from outside; an
// outside caller stops the world, or restarts it once every P stopped,
// with GOMAXPROCS 1-3 (SetProcs's procresize). The real scheduler code
// runs each command deterministically (impl.Driver); after every one the
// snapshot must satisfy the scheduler's structural invariants (see
// checkSnapshot). Commands that do not apply in the current state (the
// driver returns an error and changes nothing) are skipped.
func FuzzScheduler(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := runScheduler(data); err != nil {
			t.Fatal(err)
		}
	})
}

func runScheduler(data []byte) error {
	{
		if len(data) < 3 {
			return nil
		}
		cfg := impl.Config{
			Procs:           1 + int(data[0])%3,
			QueueCapacity:   []int{2, 4}[int(data[1])%2],
			SchedTickPeriod: 2 + int(data[2])%3,
			MaxMs:           8,
		}
		d, err := impl.NewDriver(cfg)
		if err != nil {
			return err
		}
		data = data[3:]
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		var parked []*impl.G
		var trail []string
		for i := 0; i < maxSchedCommands && len(data) > 0; i++ {
			sn := d.Sched().Snapshot()
			m, p := next()%len(sn.Ms), next()%len(sn.Ps)
			var cmd string
			var err error
			// The operation byte: 0-241 the first eleven operations, as
			// before the later ones existed (so that older corpus inputs
			// keep their meaning), 242-253 the next three, 254 and 255
			// stop-the-world and its restart (until they came, those two
			// were the first two of the three).
			b := next()
			op := b % 11
			switch {
			case b >= 254:
				op = 14 + b - 254
			case b >= 242:
				op = 11 + (b-242)%3
			}
			switch op {
			case 0:
				cmd, err = fmt.Sprintf("step m%d", m), d.Step(m)
			case 1:
				cmd = fmt.Sprintf("m%d newproc", m)
				if len(sn.Gs) < 10 {
					_, err = d.NewProc(m)
				}
			case 2:
				cmd, err = fmt.Sprintf("m%d goexit", m), d.GoExit(m)
			case 3:
				cmd, err = fmt.Sprintf("m%d gosched", m), d.Gosched(m)
			case 4:
				cmd = fmt.Sprintf("m%d park", m)
				g := sn.Ms[m].CurG
				if err = d.Park(m); err == nil {
					parked = append(parked, g)
				}
			case 5, 10:
				if len(parked) == 0 {
					continue
				}
				k := next() % len(parked)
				g := parked[k]
				if op == 5 {
					cmd, err = fmt.Sprintf("m%d ready %v", m, g), d.Ready(m, g)
				} else {
					cmd, err = fmt.Sprintf("inject %v", g), d.Inject(g)
				}
				if err == nil {
					parked = slices.Delete(parked, k, k+1)
				}
			case 6:
				cmd, err = fmt.Sprintf("m%d entersyscall", m), d.EnterSyscall(m)
			case 7:
				cmd, err = fmt.Sprintf("m%d exitsyscall", m), d.ExitSyscall(m)
			case 8:
				cmd, err = fmt.Sprintf("preempt p%d", p), d.Preempt(p)
			case 9:
				// sysmon: its retake's handoffp while it holds a P it
				// took, else a retake (takeP) of p.
				if h := sn.RetakeP - 1; h >= 0 {
					cmd, err = fmt.Sprintf("retake-handoff p%d", h), d.RetakeHandoff(h)
				} else {
					cmd = fmt.Sprintf("retake p%d", p)
					_, err = d.Retake(p)
				}
			case 11:
				cmd, err = fmt.Sprintf("m%d entersyscallblock", m), d.EnterSyscallBlock(m)
			case 12:
				cmd, err = fmt.Sprintf("m%d lockosthread", m), d.LockOSThread(m)
			case 13:
				cmd, err = fmt.Sprintf("m%d unlockosthread", m), d.UnlockOSThread(m)
			case 14:
				cmd, err = "stoptheworld", d.StopTheWorld()
			case 15:
				procs := 1 + next()%3
				cmd, err = fmt.Sprintf("starttheworld procs=%d", procs), d.StartTheWorld(procs)
			}
			if err != nil {
				continue // not applicable now; the driver changed nothing
			}
			trail = append(trail, cmd)
			if msg := checkSnapshot(d.Sched().Snapshot(), cfg.QueueCapacity); msg != "" {
				return fmt.Errorf("Procs %d, capacity %d, schedtick %d: after %d commands: %s\ncommands: %s",
					cfg.Procs, cfg.QueueCapacity, cfg.SchedTickPeriod, len(trail), msg, strings.Join(trail, "; "))
			}
		}
	}
	return nil
}

// checkSnapshot checks what must hold between any two scheduler steps,
// spec/'s invariants (spec.Model.Check, numbered as in docs/spec.md) on the
// real scheduler's snapshot: a runnable G is on exactly one run queue (a
// P's runnext or ring, or the global queue) and no other G is on any (1,
// 6); each running or syscall G is the current G of exactly one M, which is
// in MRun, and a running G's M holds a P (1); no ring holds more than its
// capacity (2); a spinning M holds a P whose local queue is empty (3); an
// idle P has an empty local queue and no holder, a running P exactly one
// holder, and a held P is running (4); npidle and nmspinning count what
// they name (5); an M's P, current G and spinning flag fit its state (7);
// a G locked to an M is held or run by no other M, and a locked M holds
// no other G (8).
func checkSnapshot(sn impl.Snapshot, capacity int) string {
	var problems []string
	for p, ps := range sn.Ps {
		if len(ps.Ring) > capacity {
			problems = append(problems, fmt.Sprintf("p%d's ring holds %d > capacity %d", p, len(ps.Ring), capacity))
		}
	}
	emptyP := func(p int) bool { return sn.Ps[p].RunNext == nil && len(sn.Ps[p].Ring) == 0 }
	for i, m := range sn.Ms {
		// A spinning M holds a P with an empty queue, except in the one
		// step between releasing its P and dropping nmspinning, and once it
		// has found work (a steal or a batch fills its queue before its
		// resetspinning; injectglist may put Gs there before its wakep).
		filled := m.PC == spec.MResetSpin || m.PC == spec.MInjectWake
		if m.Spinning && m.PC != spec.MDropSpin && (m.P < 0 || !emptyP(m.P) && !filled) {
			problems = append(problems, fmt.Sprintf("m%d spins holding p%d, which is none or has local work", i, m.P))
		}
		switch m.PC {
		case spec.MIdle, spec.MRecheck, spec.MRecheckRunqs, spec.MStop, spec.MLockedWait:
			if m.P >= 0 || m.CurG != nil || m.Spinning {
				problems = append(problems, fmt.Sprintf("m%d in %v holds p%d, curg %v, spinning=%v", i, m.PC, m.P, m.CurG, m.Spinning))
			}
		case spec.MDropSpin:
			if m.P >= 0 || m.CurG != nil || !m.Spinning {
				problems = append(problems, fmt.Sprintf("m%d in %v holds p%d, curg %v, spinning=%v", i, m.PC, m.P, m.CurG, m.Spinning))
			}
		case spec.MSched, spec.MSteal, spec.MDrop:
			if m.P < 0 || m.CurG != nil {
				problems = append(problems, fmt.Sprintf("m%d in findRunnable holds p%d, curg %v", i, m.P, m.CurG))
			}
		}
	}
	onQueue := map[*impl.G]int{}
	for _, ps := range sn.Ps {
		if ps.RunNext != nil {
			onQueue[ps.RunNext]++
		}
		for _, g := range ps.Ring {
			onQueue[g]++
		}
	}
	for _, g := range sn.Runq {
		onQueue[g]++
	}
	curOf := map[*impl.G]int{}
	withP := map[*impl.G]bool{}
	holder := map[int]int{}
	spinning := 0
	for i, m := range sn.Ms {
		if m.Spinning {
			spinning++
		}
		if m.NextP > 0 {
			// startlockedm handed this locked M a P it has not taken yet.
			holder[m.NextP-1]++
			if m.LockedG == nil || m.PC != spec.MSched {
				problems = append(problems, fmt.Sprintf("m%d in %v has nextp p%d, locked to %v", i, m.PC, m.NextP-1, m.LockedG))
			}
		}
		if m.LockedG != nil {
			// A locked G runs only on its M (8), and a locked M runs
			// nothing else.
			for j, m2 := range sn.Ms {
				if j != i && (m2.LockedG == m.LockedG || m2.PC == spec.MRun && m2.CurG == m.LockedG) {
					problems = append(problems, fmt.Sprintf("%v is locked to m%d but held by m%d (%v)", m.LockedG, i, j, m2.PC))
				}
			}
			if m.CurG != nil && m.CurG != m.LockedG {
				problems = append(problems, fmt.Sprintf("m%d is locked to %v but holds %v", i, m.LockedG, m.CurG))
			}
		}
		if m.P >= 0 {
			holder[m.P]++
			if sn.Ps[m.P].Status != spec.PRunning {
				problems = append(problems, fmt.Sprintf("m%d holds p%d, which is %v", i, m.P, sn.Ps[m.P].Status))
			}
		}
		if m.PC == spec.MRun {
			if m.CurG == nil {
				problems = append(problems, fmt.Sprintf("m%d is running no G", i))
			} else if st := m.CurG.Status(); st != impl.Grunning && st != impl.Gsyscall {
				problems = append(problems, fmt.Sprintf("m%d runs %v, which is %v", i, m.CurG, st))
			}
		}
		if m.CurG != nil && m.PC == spec.MRun {
			curOf[m.CurG]++
			withP[m.CurG] = m.P >= 0
		}
		// An M holds a runnable G in hand: exitsyscallNoP until its lock
		// section queues or executes it; a spinning M that found work until
		// its resetspinning; findRunnable's netpoll during injectglist (the
		// G it will run, and the Gs not yet queued); an M that found a G
		// locked to another M until its startlockedm, and that M until
		// it takes the G from m.nextp.
		switch m.PC {
		case spec.MSyscallNoP, spec.MResetSpin, spec.MInjectGlob, spec.MInjectStart, spec.MInjectLocal, spec.MInjectWake, spec.MStartLocked:
			if m.CurG != nil {
				onQueue[m.CurG]++
			}
		}
		for _, g := range m.Inj {
			onQueue[g]++
		}
		if m.NextP > 0 && m.LockedG != nil {
			onQueue[m.LockedG]++ // handed over with the P, not yet run
		}
	}
	for p, n := range holder {
		if n > 1 {
			problems = append(problems, fmt.Sprintf("p%d is held by %d Ms", p, n))
		}
	}
	if h := sn.RetakeP - 1; h >= 0 {
		// sysmon's retake took p (takeP stores _Pidle) and has not handed
		// it off: on no idle list, held by no M.
		if h >= len(sn.Ps) || sn.Ps[h].Status != spec.PIdle || holder[h] != 0 {
			problems = append(problems, fmt.Sprintf("sysmon holds p%d, which is not _Pidle and unheld", h))
		}
	}
	for p, ps := range sn.Ps {
		switch {
		case p+1 == sn.RetakeP:
		case ps.Status == spec.PIdle && !emptyP(p):
			problems = append(problems, fmt.Sprintf("idle p%d has local work", p))
		case ps.Status == spec.PRunning && holder[p] != 1:
			problems = append(problems, fmt.Sprintf("running p%d is held by %d Ms", p, holder[p]))
		}
	}
	for _, g := range sn.Gs {
		st := g.Status()
		if want := map[bool]int{true: 1, false: 0}[st == impl.Grunnable]; onQueue[g] != want {
			problems = append(problems, fmt.Sprintf("%v is %v and on %d run queues", g, st, onQueue[g]))
		}
		if running := st == impl.Grunning || st == impl.Gsyscall; running && curOf[g] != 1 {
			problems = append(problems, fmt.Sprintf("%v is %v and the current G of %d running Ms", g, st, curOf[g]))
		}
		if st == impl.Grunning && curOf[g] == 1 && !withP[g] {
			problems = append(problems, fmt.Sprintf("%v is running on an M without a P", g))
		}
		delete(onQueue, g)
	}
	for g := range onQueue {
		problems = append(problems, fmt.Sprintf("%v is on a run queue but not among the scheduler's Gs", g))
	}
	idle := 0
	for p, ps := range sn.Ps {
		if ps.Status == spec.PIdle && p+1 != sn.RetakeP {
			idle++
		}
	}
	if int(sn.NPIdle) != idle {
		problems = append(problems, fmt.Sprintf("npidle=%d but %d Ps are idle", sn.NPIdle, idle))
	}
	if int(sn.NMSpinning) != spinning {
		problems = append(problems, fmt.Sprintf("nmspinning=%d but %d Ms spin", sn.NMSpinning, spinning))
	}
	return strings.Join(problems, "; ")
}

// TestCheckSnapshotInvariants: each invariant checkSnapshot adds beyond
// where the Gs are is broken by a hand-made snapshot, and reported; a
// consistent snapshot passes.
func TestCheckSnapshotInvariants(t *testing.T) {
	g := impl.NewG(1) // a fresh G: idle, so on no queue and no M
	base := func() impl.Snapshot {
		return impl.Snapshot{
			Gs:     []*impl.G{g},
			Ps:     []impl.PSnapshot{{Status: spec.PRunning}, {Status: spec.PIdle}},
			Ms:     []impl.MSnapshot{{PC: spec.MSched, P: 0}, {PC: spec.MIdle, P: -1}},
			NPIdle: 1,
		}
	}
	if msg := checkSnapshot(base(), 2); msg != "" {
		t.Fatalf("consistent snapshot: %s", msg)
	}
	other := impl.NewG(2)
	tests := []struct {
		name    string
		breakIt func(*impl.Snapshot)
		want    string
	}{
		{"ring over capacity", func(s *impl.Snapshot) { s.Ps[0].Ring = []*impl.G{other, other, other} }, "ring holds 3 > capacity 2"},
		{"spinning with local work", func(s *impl.Snapshot) {
			s.Ms[0].Spinning, s.NMSpinning, s.Ps[0].RunNext = true, 1, other
		}, "m0 spins holding p0"},
		{"spinning without a P", func(s *impl.Snapshot) {
			s.Ms[1].Spinning, s.NMSpinning = true, 1
		}, "m1 spins holding p-1"},
		{"idle P with work", func(s *impl.Snapshot) { s.Ps[1].Ring = []*impl.G{other} }, "idle p1 has local work"},
		{"running P without a holder", func(s *impl.Snapshot) { s.Ms[0] = impl.MSnapshot{PC: spec.MIdle, P: -1} }, "running p0 is held by 0 Ms"},
		{"idle M holding a P", func(s *impl.Snapshot) { s.Ms[1].P = 1 }, "m1 in"},
		{"findRunnable without a P", func(s *impl.Snapshot) { s.Ms[0].P = -1 }, "m0 in findRunnable holds p-1"},
		{"locked G held by another M", func(s *impl.Snapshot) {
			s.Ms[1].LockedG, s.Ms[1].PC = g, spec.MLockedWait
			s.Ms[0].LockedG = g
		}, "g1 is locked to m0 but held by m1"},
		{"nextp of an unlocked M", func(s *impl.Snapshot) { s.Ms[1].NextP = 2 }, "m1 in idle has nextp p1"},
		{"sysmon holds a running P", func(s *impl.Snapshot) { s.RetakeP = 1 }, "sysmon holds p0"},
		{"sysmon's P counted idle", func(s *impl.Snapshot) { s.RetakeP = 2 }, "npidle=1 but 0 Ps are idle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sn := base()
			tt.breakIt(&sn)
			if msg := checkSnapshot(sn, 2); !strings.Contains(msg, tt.want) {
				t.Fatalf("checkSnapshot = %q, want it to report %q", msg, tt.want)
			}
		})
	}
}
