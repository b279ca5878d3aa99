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
// parks, readies a parked G, enters or leaves a syscall; sysmon preempts or
// retakes a P; a parked G is readied from outside. The real scheduler code
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
			switch op := next() % 11; op {
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
				cmd = fmt.Sprintf("retake p%d", p)
				_, err = d.Retake(p)
			}
			if err != nil {
				continue // not applicable now; the driver changed nothing
			}
			trail = append(trail, cmd)
			if msg := checkSnapshot(d.Sched().Snapshot()); msg != "" {
				return fmt.Errorf("Procs %d, capacity %d, schedtick %d: after %d commands: %s\ncommands: %s",
					cfg.Procs, cfg.QueueCapacity, cfg.SchedTickPeriod, len(trail), msg, strings.Join(trail, "; "))
			}
		}
	}
	return nil
}

// checkSnapshot checks what must hold between any two scheduler steps:
// a runnable G is on exactly one run queue (a P's runnext or ring, or the
// global queue) and no other G is on any; each running or syscall G is the
// current G of exactly one M, which is in MRun; each P is held by at most
// one M, and a held P is running; npidle and nmspinning count what they
// name.
func checkSnapshot(sn impl.Snapshot) string {
	var problems []string
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
	holder := map[int]int{}
	spinning := 0
	for i, m := range sn.Ms {
		if m.Spinning {
			spinning++
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
		}
	}
	for p, n := range holder {
		if n > 1 {
			problems = append(problems, fmt.Sprintf("p%d is held by %d Ms", p, n))
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
		delete(onQueue, g)
	}
	for g := range onQueue {
		problems = append(problems, fmt.Sprintf("%v is on a run queue but not among the scheduler's Gs", g))
	}
	idle := 0
	for _, ps := range sn.Ps {
		if ps.Status == spec.PIdle {
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
