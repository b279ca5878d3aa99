package impl

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// pollWorkload is total G lifecycles that wait on the poller: each G
// spawns up to two more, yields now and then, and parks on the poller a
// few times; an outside goroutine (the kernel) delivers the events of
// parked Gs in batches of one to four, so that findRunnable's netpoll
// returns several Gs at once and injects the rest with its P.
type pollWorkload struct {
	s       *Sched
	total   int64
	created atomic.Int64
	done    []atomic.Int32
	ended   atomic.Int64
	parks   atomic.Int64 // NetpollPark calls
	resumes atomic.Int64 // NetpollPark returns
	events  atomic.Int64 // Gs passed to NetpollReady

	mu     sync.Mutex
	parked []Task
}

func (w *pollWorkload) spawn(parent Task, seed uint64) {
	idx := w.created.Add(1) - 1
	if idx >= w.total {
		return
	}
	goFrom(w.s, parent, func(tk Task) { w.body(tk, idx, seed) })
}

func (w *pollWorkload) body(tk Task, idx int64, seed uint64) {
	r := rand.New(rand.NewPCG(seed, uint64(idx)))
	g := tk.(*G)
	for round := range 1 + r.IntN(4) {
		if round < 2 {
			w.spawn(tk, r.Uint64())
		}
		if r.IntN(4) == 0 {
			tk.Gosched()
		}
		tk.Checkpoint()
		w.mu.Lock()
		w.parked = append(w.parked, tk)
		w.parks.Add(1)
		g.NetpollPark(&w.mu)
		w.resumes.Add(1)
	}
	w.done[idx].Add(1)
	w.ended.Add(1)
}

// kernel delivers events until every lifecycle has ended.
func (w *pollWorkload) kernel(seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 1))
	for w.ended.Load() < w.total {
		w.mu.Lock()
		n := min(len(w.parked), 1+r.IntN(4))
		batch := append([]Task(nil), w.parked[:n]...)
		w.parked = w.parked[n:]
		w.mu.Unlock()
		if n == 0 {
			runtime.Gosched()
			continue
		}
		if err := w.s.NetpollReady(batch...); err != nil {
			return err
		}
		w.events.Add(int64(n))
	}
	return nil
}

// TestNetpollStress: real goroutines block on the poller and come back
// through findRunnable's netpoll (one G run, the rest injected with the
// M's P), sysmon's poll, or the last idle M's; every G is accounted for
// (each lifecycle ends once, every park is resumed by exactly one event),
// and the scheduler ends quiescent.
//
// Which poll takes an event is the threads' race: on a loaded machine
// sysmon's poll or the last M's can take nearly all of them. A run where
// findRunnable's netpoll took none, or injected none, checked the rest
// but not that path, so it runs again, up to netpollStressAttempts times;
// if none exercised the path the test fails.
func TestNetpollStress(t *testing.T) {
	defer goleak.VerifyNone(t)
	total := 40_000
	if testing.Short() || raceEnabled {
		total = 4_000
	}
	for _, variant := range []string{"carrier", "handoff", "nosysmon"} {
		for _, procs := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/procs=%d", variant, procs), func(t *testing.T) {
				cfg := Config{Procs: procs, QueueCapacity: 4, HandoffShell: variant == "handoff", NoSysmon: variant == "nosysmon"}
				for attempt := 1; ; attempt++ {
					st := netpollStressRun(t, cfg, int64(total/3))
					if st.Netpolled > 0 && st.Injected > 0 {
						break
					}
					if attempt == netpollStressAttempts {
						t.Fatalf("in %d runs findRunnable's netpoll never both returned and injected Gs (last: %d and %d): the path went unexercised", attempt, st.Netpolled, st.Injected)
					}
					t.Logf("run %d: findRunnable's netpoll returned %d Gs and injected %d; again", attempt, st.Netpolled, st.Injected)
				}
			})
		}
	}
}

const netpollStressAttempts = 5

// netpollStressRun runs one pollWorkload of total lifecycles on a new
// scheduler, checks its accounting and quiescence, and returns its stats.
func netpollStressRun(t *testing.T, cfg Config, total int64) Stats {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	w := &pollWorkload{s: s, total: total}
	w.done = make([]atomic.Int32, w.total)
	start := time.Now()
	kerr := make(chan error, 1)
	go func() { kerr <- w.kernel(uint64(cfg.Procs)) }()
	for range 2 * cfg.Procs {
		w.spawn(nil, rand.Uint64())
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := <-kerr; err != nil {
		t.Fatal(err)
	}
	for i := range w.done {
		if n := w.done[i].Load(); n != 1 {
			t.Fatalf("lifecycle %d ended %d times", i, n)
		}
	}
	if p, r, e := w.parks.Load(), w.resumes.Load(), w.events.Load(); p != r || p != e {
		t.Fatalf("parks %d, resumes %d, events %d", p, r, e)
	}
	if n, k := s.poll.nready.Load(), s.poll.nwait.Load(); n != 0 || k != 0 {
		t.Fatalf("poller not empty: %d ready, %d waiting", n, k)
	}
	quiesce(t, s)
	st := s.Stats()
	t.Logf("%d lifecycles, %d parks in %v: netpolled=%d injected=%d (the rest by sysmon or the last M) Ms=%d",
		w.total, w.parks.Load(), time.Since(start).Round(time.Millisecond), st.Netpolled, st.Injected, st.Ms)
	return st
}

// NetpollReady refuses a G that is not parked on the poller, readying
// none of the batch.
func TestNetpollReadyMisuse(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := New(Config{Procs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	var mu sync.Mutex
	var polled, parked Task
	s.Go(func(tk Task) {
		mu.Lock()
		polled = tk
		tk.(*G).NetpollPark(&mu)
	})
	s.Go(func(tk Task) {
		mu.Lock()
		parked = tk
		tk.ParkUnlock("plain", &mu)
	})
	for {
		mu.Lock()
		ok := polled != nil && parked != nil && s.poll.nwait.Load() == 1 && parked.(*G).Status() == Gwaiting
		mu.Unlock()
		if ok {
			break
		}
		runtime.Gosched()
	}
	if err := s.NetpollReady(polled, parked); err == nil {
		t.Fatal("NetpollReady of a G parked with Park succeeded")
	}
	if err := s.NetpollReady(polled, polled); err == nil {
		t.Fatal("NetpollReady of the same G twice succeeded")
	}
	if err := s.NetpollReady(polled); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(parked); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
}
