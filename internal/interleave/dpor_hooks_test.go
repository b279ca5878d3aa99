//go:build gmpcheck_hooks

package interleave

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Small scenarios whose every schedule can be run without reduction, to
// check that DPOR with sleep sets misses no outcome.
var crossCheck = []Scenario{
	{
		Name: "put-put-steal", Cap: 4, Queues: 2,
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: Put, G: 1}, {Kind: Put, G: 2}}},
			{Name: "thief", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}}},
		},
	},
	{
		Name: "runnext-three-way", Cap: 2, Queues: 3,
		Init: []QueueInit{{RunNext: 1}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: Get}}},
			{Name: "thief1", Queue: 1, Script: []Call{{Kind: StealNext, Q: 0}}},
			{Name: "thief2", Queue: 2, Script: []Call{{Kind: StealNext, Q: 0}}},
		},
	},
	{
		Name: "overflow-steal-small", Cap: 2, Queues: 2,
		Init: []QueueInit{{Ring: []spec.GID{1}}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: Put, G: 2}, {Kind: Put, G: 3}}},
			{Name: "thief", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}}},
		},
	},
	{
		Name: "runnext-steal-small", Cap: 2, Queues: 2,
		Init: []QueueInit{{RunNext: 1}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{{Kind: PutNext, G: 2}, {Kind: Get}}},
			{Name: "thief", Queue: 1, Script: []Call{{Kind: StealNext, Q: 0}}},
		},
	},
}

// outcome is what a schedule produced: every call's result and the final
// queues; with windows, also which calls' windows preceded which.
func outcome(ex *Execution, windows bool) string {
	var b strings.Builder
	for i := range ex.Calls {
		c := &ex.Calls[i]
		fmt.Fprintf(&b, "%d.%d:%d,%v,%v,%v;", c.Actor, c.Index, c.G, c.Inherit, c.Gs, c.Empty)
	}
	for _, q := range ex.Final {
		b.WriteString(q.Key() + "/")
	}
	fmt.Fprint(&b, ex.FinalGlobal.Gs)
	if windows {
		for i := range ex.Calls {
			for j := range ex.Calls {
				if ex.Calls[i].Last < ex.Calls[j].First {
					fmt.Fprintf(&b, " %d<%d", i, j)
				}
			}
		}
	}
	return b.String()
}

func outcomes(t *testing.T, sc *Scenario, opt Options, windows bool) (map[string]bool, Result) {
	t.Helper()
	set := map[string]bool{}
	also := opt.OnExecution
	opt.OnExecution = func(ex *Execution) {
		set[outcome(ex, windows)] = true
		if also != nil {
			also(ex)
		}
	}
	r, err := Explore(context.Background(), sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation != nil {
		t.Fatal(r.Violation.Report())
	}
	if !r.Complete {
		t.Fatalf("incomplete: %v", r)
	}
	return set, r
}

func missing(want, got map[string]bool) []string {
	var out []string
	for k := range want {
		if !got[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestDPORReachesEveryOutcome compares DPOR (with sleep sets), and
// StateCache, with the plain enumeration of every schedule: each must
// reach the same set of outcomes (results and final queues; with
// WindowOrders, which only DPOR has, also every order of the calls'
// windows), and StateCache's count of Mazurkiewicz traces must be the
// number of distinct traces among all the schedules.
func TestDPORReachesEveryOutcome(t *testing.T) {
	setBug(t, impl.NoBug)
	for _, sc := range crossCheck {
		for _, windows := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/windows=%v", sc.Name, windows), func(t *testing.T) {
				traces := map[string]bool{}
				all, rAll := outcomes(t, &sc, Options{Reduction: NoReduction, PreemptionBound: -1,
					OnExecution: func(ex *Execution) { traces[traceKey(ex)] = true }}, windows)
				red, rRed := outcomes(t, &sc, Options{Reduction: DPOR, PreemptionBound: -1, WindowOrders: windows}, windows)
				t.Logf("%d outcomes; all schedules %d, dpor %d (+%d abandoned)", len(all), rAll.Executions, rRed.Executions, rRed.SleepBlocked)
				if m := missing(all, red); len(m) > 0 {
					t.Errorf("DPOR missed %d of %d outcomes, e.g. %s", len(m), len(all), m[0])
				}
				if m := missing(red, all); len(m) > 0 {
					t.Errorf("DPOR reached %d outcomes the full search did not, e.g. %s", len(m), m[0])
				}
				if rRed.Executions >= rAll.Executions && rAll.Executions > 10 {
					t.Errorf("DPOR ran %d schedules, no fewer than all %d", rRed.Executions, rAll.Executions)
				}
				if !windows {
					st, rSt := outcomes(t, &sc, Options{Reduction: StateCache, PreemptionBound: -1}, false)
					t.Logf("state: %v", rSt)
					if m := missing(all, st); len(m) > 0 {
						t.Errorf("StateCache missed %d of %d outcomes, e.g. %s", len(m), len(all), m[0])
					}
					if m := missing(st, all); len(m) > 0 {
						t.Errorf("StateCache reached %d outcomes the full search did not, e.g. %s", len(m), m[0])
					}
					if rSt.Traces != uint64(len(traces)) {
						t.Errorf("StateCache counted %d Mazurkiewicz traces; the %d schedules have %d", rSt.Traces, rAll.Executions, len(traces))
					}
				}
			})
		}
	}
}

// TestPreemptionBound: bound 0 runs each actor to the end once started, so
// it runs one schedule per order of the actors; larger bounds run more, up
// to the unbounded count.
func TestPreemptionBound(t *testing.T) {
	setBug(t, impl.NoBug)
	sc := crossCheck[0]
	count := func(bound int) int {
		r, err := Explore(context.Background(), &sc, Options{Reduction: NoReduction, PreemptionBound: bound})
		if err != nil || r.Violation != nil || !r.Complete {
			t.Fatalf("bound %d: %v %v", bound, err, r)
		}
		return r.Executions
	}
	if n := count(0); n != 2 {
		t.Errorf("preemption bound 0 with 2 actors: %d schedules, want 2", n)
	}
	prev := 2
	for b := 1; b <= 3; b++ {
		n := count(b)
		if n < prev {
			t.Errorf("preemption bound %d: %d schedules, fewer than bound %d's %d", b, n, b-1, prev)
		}
		prev = n
	}
	if all := count(-1); all < prev {
		t.Errorf("unbounded: %d schedules, fewer than bound 3's %d", all, prev)
	}
}

// TestDPORCoversBoundedSearch: on the built-in scenarios, too big to
// enumerate whole, every outcome (results and final queues) that the plain
// enumeration of all schedules with at most 3 preemptions reaches, DPOR
// and StateCache reach too.
func TestDPORCoversBoundedSearch(t *testing.T) {
	setBug(t, impl.NoBug)
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			bounded, rb := outcomes(t, &sc, Options{Reduction: NoReduction, PreemptionBound: 3}, false)
			red, rr := outcomes(t, &sc, DefaultOptions(), false)
			t.Logf("bound 3: %d schedules, %d outcomes; dpor: %d schedules, %d outcomes", rb.Executions, len(bounded), rr.Executions, len(red))
			if m := missing(bounded, red); len(m) > 0 {
				t.Errorf("DPOR missed %d of the %d outcomes of the bounded search, e.g. %s", len(m), len(bounded), m[0])
			}
			st, _ := outcomes(t, &sc, Options{Reduction: StateCache, PreemptionBound: -1}, false)
			if m := missing(bounded, st); len(m) > 0 {
				t.Errorf("StateCache missed %d of the %d outcomes of the bounded search, e.g. %s", len(m), len(bounded), m[0])
			}
		})
	}
}

// TestEveryOpHasADependence: every access impl names has its own case in
// accessOf, and an unknown one is dependent with everything, so a new
// yield point cannot make the reduction skip orders it must run.
func TestEveryOpHasADependence(t *testing.T) {
	for op := impl.Op(1); !strings.HasPrefix(op.String(), "Op("); op++ {
		if w, _ := accessOf(op); w == wordAny {
			t.Errorf("%v has no case in accessOf", op)
		}
	}
	unknown := impl.Op(255)
	w, write := accessOf(unknown)
	u := access{obj: 0, word: w, write: write}
	for _, other := range []access{{obj: 1, word: wordHead}, {obj: GlobalObj, word: wordLock, write: true}} {
		if !dependent(u, other) || !dependent(other, u) {
			t.Errorf("an unknown access is independent of %+v", other)
		}
	}
}
