package impl

import (
	"sync"
	"testing"
	"time"

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
			var mu sync.Mutex
			var io Task
			done := make(chan struct{})
			if err := s.Go(func(tk Task) {
				mu.Lock()
				io = tk
				tk.(*G).NetpollPark(&mu)
				close(done)
			}); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(stwLimit)
			for s.lastpoll.Load() != 0 {
				if time.Now().After(deadline) {
					t.Fatalf("no M blocked in the poller within %v: %s", stwLimit, s.SchedTrace())
				}
				time.Sleep(100 * time.Microsecond)
			}
			mu.Lock()
			g := io
			mu.Unlock()
			if err := s.NetpollReady(g); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(stwLimit):
				t.Fatalf("the G whose event came did not run within %v: %s", stwLimit, s.SchedTrace())
			}
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
