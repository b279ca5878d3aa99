//go:build gmpcheck_hooks

package interleave

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// Tests of the StateCache reduction (stateful.go) and of the scripts'
// control flow (loops, conditionals, joins).

func stateOptions() Options {
	opt := DefaultOptions()
	opt.Reduction = StateCache
	return opt
}

// traceKey is the canonical form of ex's Mazurkiewicz trace, its Foata
// normal form: each step's level is one more than the highest level of the
// earlier steps it depends on (those of its own actor included), and the
// steps are listed by level, then actor. Schedules of one trace have the
// same dependence graph, hence the same form.
func traceKey(ex *Execution) string {
	acc := accesses(ex, false)
	n := len(ex.Steps)
	level := make([]int, n)
	for j := range n {
		for i := range j {
			if level[i] >= level[j] && (ex.Steps[i].Actor == ex.Steps[j].Actor || dependent(acc[i], acc[j])) {
				level[j] = level[i] + 1
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		i, j := order[x], order[y]
		if level[i] != level[j] {
			return level[i] < level[j]
		}
		return ex.Steps[i].Actor < ex.Steps[j].Actor
	})
	out := make([]byte, n)
	for k, i := range order {
		out[k] = byte('0' + ex.Steps[i].Actor)
	}
	return string(out)
}

// TestStateCacheAgreesWithDPOR: on every built-in scenario (and, with
// GMPCHECK_LONG=1, the smaller loom ones), StateCache reaches the outcomes DPOR reaches and no others;
// its count of traces equals that of the plain sleep-set search (the same
// search without the memo of states, which runs one schedule per trace),
// whose schedules are pairwise distinct traces.
func TestStateCacheAgreesWithDPOR(t *testing.T) {
	setBug(t, impl.NoBug)
	scs := Scenarios()
	for _, name := range []string{"loom-steal-overflow", "loom-multi-stealer", "loom-chained-steal"} {
		if os.Getenv("GMPCHECK_LONG") == "" {
			break // seconds each: the long tier
		}
		sc, err := LookupLoom(name)
		if err != nil {
			t.Fatal(err)
		}
		scs = append(scs, sc)
	}
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			dpor, rd := outcomes(t, &sc, DefaultOptions(), false)
			state, rs := outcomes(t, &sc, stateOptions(), false)
			traces := map[string]bool{}
			opt := stateOptions()
			opt.noMemo = true
			opt.OnExecution = func(ex *Execution) { traces[traceKey(ex)] = true }
			_, rp := outcomes(t, &sc, opt, false)
			t.Logf("%d outcomes; dpor %d executions; state %d executions, %d states, %d traces; plain sleep sets %d executions, %d traces",
				len(dpor), rd.Executions, rs.Runs, rs.States, rs.Traces, rp.Executions, len(traces))
			if m := missing(dpor, state); len(m) > 0 {
				t.Errorf("StateCache missed %d of DPOR's %d outcomes, e.g. %s", len(m), len(dpor), m[0])
			}
			if m := missing(state, dpor); len(m) > 0 {
				t.Errorf("StateCache reached %d outcomes DPOR did not, e.g. %s", len(m), m[0])
			}
			if rs.Traces != rp.Traces || rp.Traces != uint64(rp.Executions) || len(traces) != rp.Executions {
				t.Errorf("traces: state %d, plain sleep sets %d from %d executions of %d distinct traces", rs.Traces, rp.Traces, rp.Executions, len(traces))
			}
			if uint64(rd.Executions) > rs.Traces {
				t.Errorf("DPOR ran %d executions, more than the %d traces", rd.Executions, rs.Traces)
			}
		})
	}
}

// TestStateCacheFindsSeededBugs: StateCache rejects every seeded queue bug
// in the scenario listed for it, as DPOR does.
func TestStateCacheFindsSeededBugs(t *testing.T) {
	for _, bug := range impl.Bugs {
		t.Run(string(bug), func(t *testing.T) {
			sc, err := Lookup(BugScenarios[bug])
			if err != nil {
				t.Fatal(err)
			}
			setBug(t, bug)
			r, err := Explore(context.Background(), &sc, stateOptions())
			if err != nil {
				t.Fatal(err)
			}
			if r.Violation == nil {
				t.Fatalf("seeded bug %s not found in %s: %v", bug, sc.Name, r)
			}
			t.Logf("%v: %v", r, r.Violation.Kind)
		})
	}
}

// TestStateCacheRefusesWindows: every window order is DPOR's.
func TestStateCacheRefusesWindows(t *testing.T) {
	sc := crossCheck[0]
	opt := stateOptions()
	opt.WindowOrders = true
	if _, err := Explore(context.Background(), &sc, opt); err == nil {
		t.Fatal("StateCache with WindowOrders: no error")
	}
}

// TestLoomScenarios explores the loom scenarios exhaustively with
// StateCache: all pass. loom-basic and loom-basic-flat take minutes, so
// they run only with GMPCHECK_LONG=1.
func TestLoomScenarios(t *testing.T) {
	setBug(t, impl.NoBug)
	for _, sc := range LoomScenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			if (sc.Name == "loom-basic" || sc.Name == "loom-basic-flat") && os.Getenv("GMPCHECK_LONG") == "" {
				t.Skip("minutes: GMPCHECK_LONG=1 runs it")
			}
			r, err := Explore(context.Background(), &sc, stateOptions())
			if err != nil {
				t.Fatal(err)
			}
			t.Log(r)
			if r.Violation != nil {
				t.Fatal(r.Violation.Report())
			}
			if !r.Complete || r.Traces == 0 {
				t.Fatalf("inconclusive: %v", r)
			}
		})
	}
}

// TestControlFlow: loops, conditionals and joins run as written, in every
// schedule: a While loop of gets stops at the first empty get, a thief
// whose steal got nothing returns, and the calls after a Join begin after
// the last step of the actor joined.
func TestControlFlow(t *testing.T) {
	setBug(t, impl.NoBug)
	sc := Scenario{
		Name: "control-flow", Cap: 4, Queues: 3,
		Init: []QueueInit{{Ring: []spec.GID{1}}},
		Actors: []Actor{
			{Name: "owner", Queue: 0, Script: []Call{Rounds(2, Call{Kind: Put}), {Kind: Join, Q: 1}, While(Call{Kind: Get})}},
			{Name: "thief", Queue: 1, Script: []Call{{Kind: Steal, Q: 0}, IfNone(Call{Kind: Return}), While(Call{Kind: Get})}},
			{Name: "reader", Queue: -1, Script: []Call{{Kind: Join, Q: 0}, {Kind: Empty, Q: 0}}},
		},
	}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{DefaultOptions(), stateOptions(), {Reduction: NoReduction, PreemptionBound: 2}} {
		t.Run(opt.Reduction.String(), func(t *testing.T) {
			runs := 0
			opt.OnExecution = func(ex *Execution) {
				runs++
				last := map[int]int{} // actor -> its last step
				for i, s := range ex.Steps {
					last[s.Actor] = i
				}
				var calls []string
				for _, c := range ex.Calls {
					calls = append(calls, fmt.Sprintf("%d:%v=%d", c.Actor, c.Call.Kind, c.G))
					if c.Call.Kind == Put && c.Call.G != spec.GID(FreshGBase+1) && c.Call.G != spec.GID(FreshGBase+2) {
						t.Errorf("the owner's fresh Gs are g%d and g%d, not g%d", FreshGBase+1, FreshGBase+2, c.Call.G)
					}
					if c.Actor == 0 && c.Call.Kind == Get && c.First <= last[1] {
						t.Errorf("the owner's get after joining the thief began at step %d, before the thief's last step %d", c.First, last[1])
					}
					if c.Actor == 2 && c.First <= last[0] {
						t.Errorf("the reader's call after joining the owner began at step %d, before the owner's last step %d", c.First, last[0])
					}
				}
				thief, owner := 0, 0
				for i, c := range ex.Calls {
					switch {
					case c.Actor == 1:
						thief++
						if c.Call.Kind == Steal && c.G == spec.NoG && i+1 < len(ex.Calls) && ex.Calls[i+1].Actor == 1 {
							t.Errorf("the thief went on after a steal that got nothing: %v", calls)
						}
					case c.Actor == 0 && c.Call.Kind == Get:
						owner++
						if c.G == spec.NoG && i+1 < len(ex.Calls) && ex.Calls[i+1].Actor == 0 {
							t.Errorf("the owner's loop went on after an empty get: %v", calls)
						}
					case c.Actor == 2 && !c.Empty:
						t.Errorf("the reader, after the owner emptied its queue, found it not empty: %v", calls)
					}
				}
				if owner == 0 || thief == 0 {
					t.Errorf("missing calls: %v", calls)
				}
			}
			r, err := Explore(context.Background(), &sc, opt)
			if err != nil {
				t.Fatal(err)
			}
			if r.Violation != nil {
				t.Fatal(r.Violation.Report())
			}
			if !r.Complete || runs == 0 {
				t.Fatalf("%v", r)
			}
			t.Log(r)
		})
	}
}
