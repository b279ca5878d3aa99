package spec

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// injectglist with a P reads npidle once: a P that goes idle after the
// read finds nothing (the Gs are not queued yet), and its M stops. Go 1.23
// closed that window with a wakep at the end of injectglist; without it
// (go1.22, golang/go#63555) the explorer finds the lost wakeup, and 1.26
// passes the same bound.
func TestInjectglistFinalWakep(t *testing.T) {
	sequentialUnderRace(t)
	parallelSearch(t)
	b := Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, InjectList: true}
	for _, c := range []struct {
		v    GoVersion
		fail bool
	}{{Go122, true}, {Go126, false}} {
		b.Go = c.v
		r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
		if err != nil {
			t.Fatal(err)
		}
		v := r.Violation
		if !c.fail {
			if v != nil || !r.Complete {
				t.Fatalf("%v: %v\n%v", c.v, r, v)
			}
			continue
		}
		if v == nil || v.Kind != KindWorkConservation || v.Trace.Len() != 21 {
			t.Fatalf("%v: want a 21-step lost wakeup, got %v\n%v", c.v, r, v)
		}
		acts := fmt.Sprint(v.Trace.Actions())
		for _, step := range []string{"m0: NetpollInject(g1, g2)", "m1: ReleaseP", "m1: RecheckMiss(p0)", "m0: InjectRunqput", "m0: InjectWakep", "m1: StopM"} {
			if !strings.Contains(acts, step) {
				t.Errorf("%v: the counterexample lacks %q: %s", c.v, step, acts)
			}
		}
		checkTraceReplays(t, b, v.Trace)
	}
}

// The global way of injectglist: with an idle P read, the G goes to
// sched.runq under the lock and startIdle starts a non-spinning M for it.
func TestInjectglistGlobalWay(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, SchedTick: 2, Netpoll: true, InjectList: true})
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init()
	s = steps(t, md, s, mAct(ActPark, 0), mAct(ActGlobal61Miss, 0), mAct(ActGlobRunqMiss, 0))
	s.G[2] = GWaiting // a second G parked on the poller
	s = steps(t, md, s,
		Action{Kind: ActNetpollInject, M: 0, P: NoP, G: 1, Inj: 2},
		mAct(ActInjectGlobrunq, 0), mAct(ActInjectStartIdle, 0), mAct(ActInjectWakep, 0))
	if s.Runq.N != 1 || s.Runq.Gs[0] != 2 || s.M[1].P != 1 || s.M[1].Spinning || s.M[0].CurG != 1 || s.G[1] != GRunning || s.M[0].Wake != WakePending {
		t.Fatalf("want g2 in sched.runq, m1 started on p1, m0 running g1 and in its wakep:\n%v", s)
	}
}
