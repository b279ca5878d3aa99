package impl

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
	"go.uber.org/goleak"
)

// The runtime-style tests of timers and the blocking poller, in the spirit
// of the runtime's TestTimerFairness and TestNetpollBreak. As in stw_test.go
// each body returns an error, for TestHooksImplBugsCaught, and time limits only
// turn hangs into errors.

// timerFairness is TestTimerFairness's body: two Gs sleep in loops (rounds
// sleeps each) while more CPU-bound Gs than Ps run; every sleep must end
// (the sleepers finish within limit), which needs the CPU-bound Gs' Ps to
// run their timers at schedule points or other Ps to steal them.
func timerFairness(cfg Config, rounds int, limit time.Duration) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	defer s.Shutdown()
	l, err := startLoad(s, 2*cfg.Procs, 0, 0, 0)
	if err != nil {
		return err
	}
	defer l.stop.Store(true) // before Shutdown, which waits for the Gs to yield
	var slept atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		if err := s.Go(func(tk Task) {
			defer wg.Done()
			for range rounds {
				tk.(TimerTask).Sleep(100 * time.Microsecond)
				slept.Add(1)
			}
		}); err != nil {
			return err
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		l.stop.Store(true)
		return fmt.Errorf("the sleepers woke %d times of %d within %v: %s", slept.Load(), 2*rounds, limit, s.SchedTrace())
	}
	l.stop.Store(true)
	if ok, err := waitWithin(s, limit); !ok || err != nil {
		return fmt.Errorf("the CPU-bound Gs did not finish (returned %v, err %v)", ok, err)
	}
	return nil
}

// TestTimerFairness: two sleeping loops complete while twice as many
// CPU-bound Gs as Ps run, in each shell, with sysmon's preemption.
func TestTimerFairness(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/procs=%d", sh.name, procs), func(t *testing.T) {
				cfg := sh.cfg
				cfg.Procs = procs
				cfg.ForcePreempt = 500 * time.Microsecond
				if err := timerFairness(cfg, 10, stwLimit); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// timerStolen is the body of TestTimersStolen: with no sysmon (so no
// preemption), a G sleeps and the G it spawned just before runs a CPU loop
// on the same P until the sleeper is awake again. Only another P's M can
// run that timer, in stealWork's last round, after sleeping in the poller
// until it is due. The loop gives up after limit (the timer never fired).
// The set-up needs the spinner on the sleeper's P; when a thief took it
// elsewhere the round is retried.
func timerStolen(cfg Config, limit time.Duration) error {
	cfg.NoSysmon = true
	cfg.Procs = 2
	for try := 0; try < 20; try++ {
		s, err := New(cfg)
		if err != nil {
			return err
		}
		var fired, gaveUp atomic.Bool
		var sleeperP, spinnerP atomic.Int32
		sleeperP.Store(-1)
		spinnerP.Store(-2)
		if err := s.Go(func(tk Task) {
			tk.Go(func(tk Task) {
				spinnerP.Store(curM(tk).p.Load().id)
				deadline := time.Now().Add(limit)
				for !fired.Load() {
					if time.Now().After(deadline) {
						gaveUp.Store(true)
						return
					}
				}
			})
			sleeperP.Store(curM(tk).p.Load().id)
			tk.(TimerTask).Sleep(time.Millisecond)
			fired.Store(true)
		}); err != nil {
			s.Shutdown()
			return err
		}
		ok, err := waitWithin(s, limit+stwLimit)
		s.Shutdown()
		if !ok || err != nil {
			return fmt.Errorf("Wait returned %v, err %v", ok, err)
		}
		if sleeperP.Load() != spinnerP.Load() {
			continue // the spinner was stolen: not the scenario
		}
		if gaveUp.Load() {
			return fmt.Errorf("the timer of a sleeping G on p%d never fired while its P ran a CPU loop for %v and the other P idled", sleeperP.Load(), limit)
		}
		return nil
	}
	return errors.New("the spinner never ran on the sleeper's P in 20 tries")
}

// TestTimersStolen: a timer on a P whose G never yields fires anyway: an
// idle P's M sleeps in the poller until it is due and steals it.
func TestTimersStolen(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells[:2] {
		t.Run(sh.name, func(t *testing.T) {
			if err := timerStolen(sh.cfg, 5*time.Second); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// eventLog collects the events of the kinds asked for.
type eventLog struct {
	mu    sync.Mutex
	kinds map[EventKind]bool
	evs   []Event
}

func newEventLog(kinds ...EventKind) *eventLog {
	l := &eventLog{kinds: map[EventKind]bool{}}
	for _, k := range kinds {
		l.kinds[k] = true
	}
	return l
}

func (l *eventLog) trace(e Event) {
	if l.kinds[e.Kind] {
		l.mu.Lock()
		l.evs = append(l.evs, e)
		l.mu.Unlock()
	}
}

// count is how many events of kind k were seen (with On == on, if on is
// not nil).
func (l *eventLog) count(k EventKind, on *bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.evs {
		if e.Kind == k && (on == nil || e.On == *on) {
			n++
		}
	}
	return n
}

// awaitSched polls cond every 100 µs until it holds; past stwLimit it
// fails the test, naming what it waited for, with s's schedtrace.
func awaitSched(t *testing.T, s *Sched, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(stwLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %s", what, stwLimit, s.SchedTrace())
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// netpollWaiter is a G that parks waiting on the network (NetpollPark)
// and closes done when it runs again.
type netpollWaiter struct {
	mu   sync.Mutex
	g    Task
	done chan struct{}
}

func startNetpollWaiter(t *testing.T, s *Sched) *netpollWaiter {
	t.Helper()
	w := &netpollWaiter{done: make(chan struct{})}
	if err := s.Go(func(tk Task) {
		w.mu.Lock()
		w.g = tk
		tk.(*G).NetpollPark(&w.mu)
		close(w.done)
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

// parked reports whether the G has parked on the network.
func (w *netpollWaiter) parked() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.g != nil && w.g.(*G).Status() == Gwaiting
}

// ready delivers the G's network event and waits, up to stwLimit, for it
// to run.
func (w *netpollWaiter) ready(t *testing.T, s *Sched) {
	t.Helper()
	if !w.parked() {
		t.Fatal("the network event is for a G that has not parked")
	}
	if err := s.NetpollReady(w.g); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.done:
	case <-time.After(stwLimit):
		t.Fatalf("the G whose network event came did not run within %v: %s", stwLimit, s.SchedTrace())
	}
}

// TestNetpollBreak: an M asleep in the poller until a far timer (30 s) is
// woken when a nearer one is added (wakeNetPoller's netpollBreak), so the
// G with the near timer runs long before the far one is due. Also: an
// event that NetpollReady delivers meanwhile breaks the sleep too.
func TestNetpollBreak(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells[:2] {
		t.Run(sh.name, func(t *testing.T) {
			log := newEventLog(EvNetpollBlock, EvNetpollBreak)
			cfg := sh.cfg
			cfg.Procs = 1
			cfg.Trace = log.trace
			s := newTestSched(t, cfg)
			on := true
			await := func(what string, cond func() bool) { t.Helper(); awaitSched(t, s, what, cond) }
			if err := s.Go(func(tk Task) { tk.(TimerTask).Sleep(30 * time.Second) }); err != nil {
				t.Fatal(err)
			}
			await("an M asleep in the poller", func() bool { return log.count(EvNetpollBlock, &on) == 1 && s.lastpoll.Load() == 0 })
			near := make(chan struct{})
			if err := s.Go(func(tk Task) {
				tk.(TimerTask).Sleep(time.Millisecond)
				close(near)
			}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-near:
			case <-time.After(stwLimit):
				t.Fatalf("a 1 ms sleep did not end within %v: the poller slept on to its 30 s timer", stwLimit)
			}
			if log.count(EvNetpollBreak, nil) == 0 {
				t.Fatal("no netpollBreak")
			}
			// The poller sleeps again (30 s); an I/O event must break it.
			await("the poller asleep again", func() bool { return s.lastpoll.Load() == 0 })
			io := startNetpollWaiter(t, s)
			await("the I/O G parked", io.parked)
			await("the poller asleep again", func() bool { return s.lastpoll.Load() == 0 })
			breaks := log.count(EvNetpollBreak, nil)
			io.ready(t, s)
			if log.count(EvNetpollBreak, nil) == breaks {
				t.Fatal("NetpollReady did not break the poller's sleep")
			}
			s.Shutdown()
		})
	}
}

// TestSleepZero: Sleep(0) and negative durations return at once; Sleep is
// refused on a G that is not running.
func TestSleepZero(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	log := newEventLog(EvTimerSleep)
	s := newTestSched(t, Config{Procs: 1, Trace: log.trace})
	var g Task
	if err := s.Go(func(tk Task) {
		tk.(TimerTask).Sleep(0)
		tk.(TimerTask).Sleep(-time.Second)
		g = tk
	}); err != nil {
		t.Fatal(err)
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("returned %v, err %v", ok, err)
	}
	if n := log.count(EvTimerSleep, nil); n != 0 {
		t.Fatalf("%d timers for sleeps of 0 and less", n)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Sleep on an exited G did not panic")
		}
	}()
	g.(TimerTask).Sleep(time.Millisecond)
}

// TestNetpollBlockTimeout: the event of an M that blocks in the poller
// carries its timeout as netpoll's delay argument does: -1 (block until an
// event) when no timer is pending, else the microseconds to the earliest
// timer, here at most 30 s; its NetpollBlock action names no P (the M
// released its P before it blocks).
func TestNetpollBlockTimeout(t *testing.T) {
	defer goleak.VerifyNone(t)
	log := newEventLog(EvNetpollBlock, EvAction)
	s := newTestSched(t, Config{Procs: 1, Trace: log.trace})
	// lastBlock is the timeout of the latest block (ok false: none yet).
	lastBlock := func() (n int32, ok bool) {
		log.mu.Lock()
		defer log.mu.Unlock()
		for _, e := range log.evs {
			if e.Kind == EvNetpollBlock && e.On {
				n, ok = e.N, true
			}
		}
		return n, ok
	}
	io := startNetpollWaiter(t, s)
	awaitSched(t, s, "an M asleep in the poller for the I/O G", func() bool {
		_, ok := lastBlock()
		return ok && s.lastpoll.Load() == 0
	})
	if n, _ := lastBlock(); n != -1 {
		t.Errorf("no timer pending: the poller's timeout is %d µs, want -1 (block until an event)", n)
	}
	io.ready(t, s)
	before := log.count(EvNetpollBlock, nil)
	if err := s.Go(func(tk Task) { tk.(TimerTask).Sleep(30 * time.Second) }); err != nil {
		t.Fatal(err)
	}
	awaitSched(t, s, "an M asleep in the poller until the timer", func() bool {
		return log.count(EvNetpollBlock, nil) > before && s.lastpoll.Load() == 0
	})
	if n, _ := lastBlock(); n <= 0 || n > 30_000_000 {
		t.Errorf("a 30 s timer pending: the poller's timeout is %d µs, want 0 < n <= 30,000,000", n)
	}
	s.Shutdown()
	blocks := 0
	log.mu.Lock()
	defer log.mu.Unlock()
	for _, e := range log.evs {
		if e.Kind == EvAction && e.Action == spec.ActNetpollBlock {
			blocks++
			if e.P != -1 {
				t.Errorf("%v: a NetpollBlock action with P %d, want -1", e, e.P)
			}
		}
	}
	if blocks < 2 {
		t.Errorf("%d NetpollBlock actions, want 2 (one per sleep in the poller)", blocks)
	}
}
