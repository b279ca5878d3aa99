package spec

import "testing"

// TestWakeCASOnlyByOwnWakep checks the fact the liveness checker's
// per-M fairness leans on for wakep's lock section: an M's wakep stage
// becomes WakeCAS only by that M's own Wakep step, and leaves it only by
// its own WakepStartM or WakepNoP. So every cycle in which an M takes
// WakepNoP also has that M take Wakep, itself a step of family M(m), and
// whether WakepNoP discharges M(m) (schedStep) never decides a component's
// fairness: docs/mutation.md argues spec/actions.go:212:31 equivalent on
// this. The models are searched breadth-first from their initial state;
// each must take WakepNoP, or the test would say nothing.
func TestWakeCASOnlyByOwnWakep(t *testing.T) {
	for _, b := range []Bounds{
		{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 2, SchedTick: 2},
		{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true, InjectList: true, LockOSThread: true, STW: true, ProcResize: true},
		{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, PollBlock: true, Timers: 2, Goyield: true, SyscallBlock: true, Syscalls: true},
	} {
		md, err := NewModel(b)
		if err != nil {
			t.Fatal(err)
		}
		noP := 0
		n := breadthFirst(md, 40000, func(State) bool { return !t.Failed() }, func(from State, a Action, to State) {
			if a.Kind == ActWakepNoP {
				noP++
			}
			for m := 0; m < int(from.nM); m++ {
				was, is := from.M[m].Wake == WakeCAS, to.M[m].Wake == WakeCAS
				own := int(a.M) == m
				switch {
				case !was && is && (!own || a.Kind != ActWakep):
					t.Errorf("%+v: %v puts m%d in WakeCAS\nfrom %v", b, a, m, from)
				case was && !is && (!own || a.Kind != ActWakepStartM && a.Kind != ActWakepNoP):
					t.Errorf("%+v: %v takes m%d out of WakeCAS\nfrom %v", b, a, m, from)
				}
			}
		})
		if noP == 0 {
			t.Errorf("%+v: WakepNoP never taken in %d states", b, n)
		}
		t.Logf("%+v: %d states, %d WakepNoP steps", b, n, noP)
	}
}
