package impl

import (
	"slices"
	"sync"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// The direct hand-off on one P, without sysmon: a runs, c waits in the
// ring, b is parked; a's ReadyHandoff(b) puts b in runnext and a at the
// ring's tail (goyield), so b runs next, then c, then a. With Gosched
// instead a goes to the global queue, which the 1/61 check reads first
// only once in SchedTickPeriod: b, then c, then a as well on one P, but
// through sched.runq, which the run's events tell apart.
func TestReadyHandoffRunsWaiterNext(t *testing.T) {
	for range 20 {
		var evs []Event
		var mu sync.Mutex
		s := newTestSched(t, Config{Procs: 1, NoSysmon: true, Trace: func(e Event) {
			mu.Lock()
			evs = append(evs, e)
			mu.Unlock()
		}})
		var order []string
		var slot parkSlot
		err := s.Go(func(tk Task) {
			a := tk.(*G)
			if err := a.Go(func(b Task) { slot.park(b, "sema"); order = append(order, "b") }); err != nil {
				t.Error(err)
			}
			b := slot.await(a) // b runs and parks
			if err := a.Go(func(Task) { order = append(order, "c") }); err != nil {
				t.Error(err)
			}
			// c is in runnext: a ReadyHandoff kicks it to the ring.
			if err := a.ReadyHandoff(b); err != nil {
				t.Error(err)
			}
			order = append(order, "a")
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Wait(); err != nil {
			t.Fatal(err)
		}
		if want := []string{"b", "c", "a"}; !slices.Equal(order, want) {
			t.Fatalf("order %v, want %v", order, want)
		}
		// a went to its P's ring (a RunqPut of a, not into runnext),
		// never to the global queue, after its Goyield.
		// Ms still emit their idle steps after Wait returns: read a
		// snapshot under the trace's lock.
		mu.Lock()
		seen := slices.Clone(evs)
		mu.Unlock()
		var acts []spec.ActionKind
		put := false
		for _, e := range seen {
			if e.Kind == EvAction && (e.Action == spec.ActReadyHandoff || e.Action == spec.ActGoyield) {
				acts = append(acts, e.Action)
			}
			if e.Kind == EvRunqPut && len(acts) == 2 && !e.On {
				put = true
			}
			if e.Kind == EvGlobPut && len(acts) == 2 {
				t.Fatalf("the yielding G went to the global queue: %v", e)
			}
		}
		if !slices.Equal(acts, []spec.ActionKind{spec.ActReadyHandoff, spec.ActGoyield}) || !put {
			t.Fatalf("actions %v, ring put %v; want ReadyHandoff then Goyield onto the ring", acts, put)
		}
	}
}

// ReadyHandoff of a G that is not parked fails and yields nothing.
func TestReadyHandoffNotParked(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1, NoSysmon: true})
	done := make(chan error, 1)
	err := s.Go(func(tk Task) {
		a := tk.(*G)
		done <- a.ReadyHandoff(a)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("ReadyHandoff of the running G itself succeeded")
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
}

// The Driver takes the spec's hand-off step for step: the shortest spec
// path to a Goyield (through ReadyHandoff and its wakep), then the M's
// search, which finds the waiter in runnext first and runs it while the
// yielder waits in the ring.
func TestDriverReadyHandoff(t *testing.T) {
	b := spec.Bounds{Ps: 1, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Goyield: true}
	walk := shortestSpecPath(t, b, func(a spec.Action) bool { return a.Kind == spec.ActGoyield })
	walk = append(walk, "m0: Global61Miss", "m0: RunqGet")
	r, err := newSpecRun(b, spec.Go126, spec.BugNone, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := walkRun(r, walk); err != nil {
		t.Fatalf("after %d steps of %v: %v", n, walk, err)
	}
	sn := r.d.Sched().Snapshot()
	if g := sn.Ms[0].CurG; g == nil || g.Status() != Grunning || len(sn.Ps[0].Ring) != 1 || sn.Ps[0].Ring[0] == g {
		t.Fatalf("want the waiter running and the yielder in the ring after %v: %+v", walk, sn)
	}
}

// shortestSpecPath is the shortest path of spec actions under b that ends
// with an action last accepts, by name.
func shortestSpecPath(t *testing.T, b spec.Bounds, last func(spec.Action) bool) []string {
	t.Helper()
	md, err := spec.NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	type node struct {
		s    spec.State
		path []string
	}
	seen := map[string]bool{}
	queue := []node{{md.Init(), nil}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, a := range md.Enabled(n.s) {
			ns, err := md.Step(n.s, a)
			if err != nil {
				continue
			}
			path := append(slices.Clone(n.path), a.String())
			if last(a) {
				return path
			}
			if k := ns.Key(); !seen[k] {
				seen[k] = true
				queue = append(queue, node{ns, path})
			}
		}
	}
	t.Fatalf("no path under %v", b)
	return nil
}
