package impl

import (
	"fmt"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"pgregory.net/rapid"
)

// TestDriverMatchesSpecPoll is TestDriverMatchesSpec on bounds with the
// blocking poller and timers: the poller's and timers' steps of the real
// scheduler, stepped by the Driver, keep it equal to the spec after every
// action, sched.lastpoll, sched.pollUntil, every timer and the Ms' poll
// state included.
func TestDriverMatchesSpecPoll(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		if err := CheckPollAgainstSpec(rapidChooser{t}, 80); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDriverMatchesSpecPollLong runs many random traces on bounds with the
// blocking poller and timers and requires every action of
// spec.PollActionKinds to have been compared at least once. Traces cut at
// one of the spec's known abstraction gaps (errGap) are counted and
// logged; they may not be most of them.
func TestDriverMatchesSpecPollLong(t *testing.T) {
	n := 4000
	if testing.Short() || raceEnabled {
		n = 1500 // the race detector adds nothing here: no goroutines
	}
	c := newRandChooser(13, 17)
	var count [256]int
	seen := func(a spec.Action) { count[a.Kind]++ }
	gaps := map[string]int{}
	missing := func() bool {
		for _, k := range spec.PollActionKinds() {
			if count[k] == 0 && k.InGo126() {
				return true
			}
		}
		return false
	}
	traces := 0
	for ; traces < n || (missing() && traces < 4*n); traces++ {
		if err := checkPollAgainstSpec(c, spec.BugNone, 200, seen, gaps); err != nil {
			t.Fatal(err)
		}
	}
	cut := 0
	for _, v := range gaps {
		cut += v
	}
	if cut > traces/4 {
		t.Errorf("%d of %d traces cut at a gap of the spec's abstraction: %v", cut, traces, gaps)
	}
	got := map[string]int{}
	for _, k := range spec.PollActionKinds() {
		got[k.String()] = count[k]
		if count[k] == 0 && k.InGo126() {
			t.Errorf("no %v compared in %d traces", k, traces)
		}
	}
	t.Logf("poll and timer actions compared in %d traces: %v; traces cut at a gap: %v", traces, got, gaps)
}

// handoffKeepsPoller is the directed check of handoffp's last-P clause, on
// the Driver: with two Ps, g1 locks itself to m0 and parks on the network
// poller; m0's stoplockedm hands p0 off while p1 is idle and nobody polls.
// handoffp must start an M on p0, which will block in the poller; without
// the clause p0 goes idle and no M is left to watch the network.
func handoffKeepsPoller(cfg Config) error {
	cfg.Procs = 2
	d, err := NewDriver(cfg)
	if err != nil {
		return err
	}
	d.UseNetpoll(false)
	if err := d.LockOSThread(0); err != nil {
		return err
	}
	if err := d.Park(0); err != nil {
		return err
	}
	if err := d.Step(0); err != nil { // stoplockedm → handoffp(p0)
		return err
	}
	p0 := d.Sched().ps().allp[0]
	if p0.status.Load() == uint32(spec.PIdle) {
		return fmt.Errorf("handoffp put the last running P idle while %v waits on the network and nobody polls (lastpoll %d)",
			d.Main(), d.Sched().lastpoll.Load())
	}
	// The started M finds nothing and blocks in the poller.
	m := p0.m.Load()
	if m == nil {
		return fmt.Errorf("p0 is %v with no M", spec.PStatus(p0.status.Load()))
	}
	for i := 0; i < 20 && m.pc != spec.MNetpoll; i++ {
		if err := d.Step(int(m.id)); err != nil {
			return err
		}
	}
	if m.pc != spec.MNetpoll || d.Sched().lastpoll.Load() != 0 {
		return fmt.Errorf("the M handoffp started is %v, not asleep in the poller", m.pc)
	}
	return nil
}

// TestHandoffKeepsPoller: see handoffKeepsPoller.
func TestHandoffKeepsPoller(t *testing.T) {
	if err := handoffKeepsPoller(Config{}); err != nil {
		t.Fatal(err)
	}
}

// netpollBreakWalk is the breadth-first shortest way to NetpollBreak on
// pollBreakBounds: m0 blocks in the poller for g2 (no timeout); g1's
// sleep, on m2, breaks it (wakeNetPoller: the poller sleeps past the new
// timer); m2 then finds nothing and, the poller not yet back (lastpoll
// still 0, its pollUntil none), breaks it again before stopm (NetpollBreak,
// the 20th step). Then the poller comes back (NetpollWake), takes p0
// (NetpollPidleget) and, once g1's timer is due, runs it (CheckTimers,
// whose wakep m1, spinning since the first wakep, makes a skip).
var netpollBreakWalk = []string{
	"m0: NewProc", "m0: Wakep", "m0: WakepStartM", "m0: Park", "m0: Global61Miss",
	"m0: RunqGet", "m0: Park", "m0: Global61Miss", "m0: GlobRunqMiss", "m0: SpinLimit",
	"m0: ReleaseP", "netpoll: InjectGList(g1)", "m0: NetpollBlock", "m2: Global61", "m2: TimerSleep(1 ticks)",
	"m2: Global61Miss", "m2: GlobRunqMiss", "m2: SpinLimit", "m2: ReleaseP", "m2: NetpollBreak",
	"m2: StopM", "m0: NetpollWake", "m0: NetpollPidleget", "clock: TimerTick", "m0: CheckTimers",
	"m0: WakepSkip",
}

var pollBreakBounds = spec.Bounds{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1}

// TestDriverNetpollBreakWalk takes netpollBreakWalk on the spec and the
// Driver, comparing after each step: the rarest poller step of the random
// comparison (NetpollBreak), and the poller's way back, directed.
func TestDriverNetpollBreakWalk(t *testing.T) {
	r, err := newSpecRun(pollBreakBounds, spec.Go126, spec.BugNone, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := walkRun(r, netpollBreakWalk); err != nil {
		t.Fatal(err)
	}
}
