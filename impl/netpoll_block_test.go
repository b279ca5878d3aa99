package impl

import (
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"go.uber.org/goleak"
)

// TestNetpollBlockForIO: with no timers, an M with nothing to run blocks in
// the poller while a G waits on the network (netpollAnyWaiters), and the
// G's event (NetpollReady) breaks the sleep: the poller returns with the G
// (NetpollReady) and runs it on the idle P (NetpollPidleget). No sysmon,
// so nothing else polls.
func TestNetpollBlockForIO(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells[:2] {
		t.Run(sh.name, func(t *testing.T) {
			acts := newEventLog(EvAction)
			cfg := sh.cfg
			cfg.Procs, cfg.NoSysmon, cfg.Trace = 1, true, acts.trace
			s := newTestSched(t, cfg)
			io := startNetpollWaiter(t, s)
			awaitSched(t, s, "an M blocked in the poller", func() bool { return s.lastpoll.Load() == 0 })
			io.ready(t, s)
			if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
				t.Fatalf("Wait returned %v, err %v", ok, err)
			}
			acts.mu.Lock()
			defer acts.mu.Unlock()
			seen := map[spec.ActionKind]int{}
			for _, e := range acts.evs {
				seen[e.Action]++
			}
			for _, k := range []spec.ActionKind{spec.ActNetpollBlock, spec.ActNetpollReady, spec.ActNetpollPidleget} {
				if seen[k] == 0 {
					t.Errorf("no %v event: %v", k, seen)
				}
			}
		})
	}
}
