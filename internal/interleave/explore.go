package interleave

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
)

// Reduction selects how Explore prunes the tree of schedules.
type Reduction int

const (
	// DPOR is Flanagan and Godefroid's dynamic partial-order reduction
	// with sleep sets: it runs schedules of distinct classes (schedules
	// that order every pair of dependent steps the same way) and reaches
	// every outcome, but not one schedule of every class: on
	// two-thieves-drain it runs 820 of the 1,161 (docs/interleave.md).
	DPOR Reduction = iota
	// NoReduction runs every schedule.
	NoReduction
	// StateCache explores each pair of a state and a sleep set once
	// (stateful.go): sleep sets over the graph of states, which counts
	// the Mazurkiewicz traces without running each.
	StateCache
)

var reductionNames = [...]string{DPOR: "dpor", NoReduction: "none", StateCache: "state"}

func (r Reduction) String() string {
	if int(r) < len(reductionNames) {
		return reductionNames[r]
	}
	return fmt.Sprintf("Reduction(%d)", int(r))
}

// ParseReduction reads a Reduction's String form.
func ParseReduction(s string) (Reduction, error) {
	for r, name := range reductionNames {
		if name == s {
			return Reduction(r), nil
		}
	}
	return 0, fmt.Errorf("unknown reduction %q (known: dpor, state, none)", s)
}

// Options configure Explore.
type Options struct {
	Reduction Reduction
	// PreemptionBound, when >= 0, limits each schedule to that many
	// preemptions (switches away from an actor that could have gone on),
	// as CHESS does. A bounded search enumerates without reduction, because
	// DPOR's backtracking points are not sound under a bound; it is
	// complete only up to the bound, which Result reports.
	PreemptionBound int
	// WindowOrders makes DPOR also explore every order of the steps that
	// open and close calls' windows (see dpor.go), so linearizability is
	// checked under every real-time order, not one per class of schedules.
	WindowOrders bool
	// MaxExecutions stops the search after that many schedules (0: no
	// limit); a search stopped early is inconclusive.
	MaxExecutions int
	Run           RunOptions
	// OnExecution, if set, sees every execution that ran to its end (for
	// tests that compare what different searches reach). With StateCache
	// those are the executions that reached a terminal state along an
	// edge not explored before: every outcome at least once, not every
	// class of schedules.
	OnExecution func(*Execution)
	// Progress, if set, receives a line every few seconds.
	Progress io.Writer

	noMemo  bool // StateCache without its memo: the plain sleep-set search (tests)
	noSleep bool // DPOR without sleep sets (tests)
}

// DefaultOptions: DPOR, no preemption bound, no execution limit.
func DefaultOptions() Options { return Options{Reduction: DPOR, PreemptionBound: -1} }

// Result is what Explore found.
type Result struct {
	Scenario        string
	Reduction       Reduction
	PreemptionBound int
	WindowOrders    bool
	Executions      int // schedules run to the end (or to a violation); see also Runs
	Cut             int // schedules cut at RunOptions.MaxSteps
	SleepBlocked    int // schedules abandoned by sleep sets as redundant
	// Traces is the number of Mazurkiewicz traces of complete schedules
	// (classes of schedules equal up to swapping adjacent independent
	// steps), valid when Complete: with DPOR and sleep sets each complete
	// execution is one trace; StateCache counts them without running
	// each. TracesOverflow: the count passed 2^64-1 (Traces saturates).
	Traces         uint64
	TracesOverflow bool
	// StateCache only: Runs is every execution started (those stopped at
	// a state already explored included), States the (state, sleep set)
	// nodes explored, StatesSeen the executions stopped at one.
	Runs, States, StatesSeen int
	MaxSteps                 int // the longest schedule's length
	Elapsed                  time.Duration
	// Complete: every schedule (within the bound) was run and none was
	// cut. A search that is neither complete nor failed is inconclusive.
	Complete  bool
	Violation *Violation
	// StopReason says why an incomplete search stopped.
	StopReason string
}

func (r Result) String() string {
	bound := "unbounded"
	if r.PreemptionBound >= 0 {
		bound = fmt.Sprintf("preemption bound %d", r.PreemptionBound)
	}
	red := r.Reduction.String()
	if r.Reduction == DPOR && r.WindowOrders {
		red += "+windows"
	}
	if r.SleepBlocked > 0 {
		bound += fmt.Sprintf("; %d more abandoned by sleep sets", r.SleepBlocked)
	}
	s := fmt.Sprintf("%s: %d interleavings (%s, %s), longest %d steps, %v",
		r.Scenario, r.Executions, red, bound, r.MaxSteps, r.Elapsed.Round(time.Millisecond))
	if r.Reduction == StateCache {
		s = fmt.Sprintf("%s: %d executions (%d to the end, %d stopped at a state already explored, %d abandoned by sleep sets; state, unbounded), %d states, longest %d steps, %v",
			r.Scenario, r.Runs, r.Executions, r.StatesSeen, r.SleepBlocked, r.States, r.MaxSteps, r.Elapsed.Round(time.Millisecond))
	}
	if r.Complete && r.Violation == nil && r.Reduction == StateCache {
		over := ""
		if r.TracesOverflow {
			over = " or more"
		}
		s += fmt.Sprintf(", %d%s Mazurkiewicz traces", r.Traces, over)
	}
	switch {
	case r.Violation != nil:
		s += ", VIOLATION " + string(r.Violation.Kind)
	case !r.Complete:
		s += ", INCOMPLETE: " + r.StopReason
	}
	return s
}

// node is one decision point on the current path of the search.
type node struct {
	enabled   uint16 // actors that could move
	last      int    // the actor that took the previous step
	chosen    int
	backtrack uint16 // actors to try here
	done      uint16 // actors tried here
	preempt   int    // preemptions on the path before this node
	sleep     uint16 // actors asleep here (DPOR's sleep sets)
	pend      []access
}

// errSleepBlocked ends an execution whose runnable actors are all asleep.
var errSleepBlocked = errors.New("interleave: every runnable actor is asleep")

// noObj marks a finished actor's pending access.
const noObj = -1000

// Explore runs sc under every schedule (every one that matters, with DPOR;
// every one within the bound, with a preemption bound) and stops at the
// first violation. Its error is for misuse (a bad scenario, no hooks, a
// nondeterministic scenario); a violation is in the Result.
func Explore(ctx context.Context, sc *Scenario, opt Options) (res Result, err error) {
	res = Result{Scenario: sc.Name, Reduction: opt.Reduction, PreemptionBound: opt.PreemptionBound, WindowOrders: opt.WindowOrders}
	if opt.PreemptionBound >= 0 {
		res.Reduction = NoReduction
	}
	if opt.Run.Backend == nil && !impl.HooksEnabled() {
		return res, ErrNoHooks
	}
	if err := sc.Validate(); err != nil {
		return res, err
	}
	start := time.Now()
	lastReport := start
	defer func() { res.Elapsed = time.Since(start) }()
	if res.Reduction == StateCache {
		err = exploreStateful(ctx, sc, opt, &res)
		return res, err
	}
	var stack []node
	dpor := res.Reduction == DPOR
	choose := func(pos int, enabled uint16, last int, pending []Step) (int, error) {
		if pos < len(stack) {
			n := &stack[pos]
			if n.enabled != enabled || n.last != last {
				return 0, fmt.Errorf("interleave: scenario %s is not deterministic: replaying step %d found runnable %s after actor %d, first run had %s after %d",
					sc.Name, pos, maskString(enabled), last, maskString(n.enabled), n.last)
			}
			return n.chosen, nil
		}
		n := node{enabled: enabled, last: last}
		if pos > 0 {
			p := &stack[pos-1]
			n.preempt = p.preempt
			if isPreemption(p.enabled, p.last, p.chosen) {
				n.preempt++
			}
			if dpor && !opt.noSleep {
				// Sleep sets: an actor explored at the parent before this
				// child's step, or asleep there, stays asleep here while
				// its pending step commutes with the step taken: running
				// it here would only repeat a class already explored.
				for q, a := range p.pend {
					if q != p.chosen && (p.sleep|p.done)&(1<<q) != 0 && a.obj != noObj && !dependent(a, p.pend[p.chosen]) {
						n.sleep |= 1 << q
					}
				}
			}
		}
		if dpor {
			n.pend = make([]access, len(pending))
			for q, st := range pending {
				n.pend[q] = access{obj: noObj}
				if st.Actor >= 0 {
					n.pend[q] = accessOfStep(st)
					n.pend[q].hist = opt.WindowOrders && st.Op != OpJoin
				}
			}
		}
		awake := enabled &^ n.sleep
		if awake == 0 {
			stack = append(stack, n)
			return 0, errSleepBlocked
		}
		c := keepRunning(awake, last)
		n.chosen, n.backtrack, n.done = c, 1<<c, 1<<c
		if !dpor {
			n.backtrack = enabled
			if opt.PreemptionBound >= 0 && n.preempt >= opt.PreemptionBound && last >= 0 && enabled&(1<<last) != 0 {
				n.backtrack = 1 << last
			}
		}
		stack = append(stack, n)
		return c, nil
	}
	for {
		if err := ctx.Err(); err != nil {
			res.StopReason = "cancelled: " + err.Error()
			return res, nil
		}
		if opt.MaxExecutions > 0 && res.Executions >= opt.MaxExecutions {
			res.StopReason = fmt.Sprintf("reached the limit of %d executions", opt.MaxExecutions)
			return res, nil
		}
		var ex *Execution
		ex, err = run(sc, choose, opt.Run)
		if err == errSleepBlocked {
			// Every runnable actor is asleep: whatever follows repeats
			// explored classes. Its races still count.
			err = nil
			res.SleepBlocked++
			stack = stack[:len(ex.Steps)]
			addRaces(stack, ex, opt.WindowOrders)
		} else if err != nil {
			return res, err
		} else {
			res.Executions++
			res.MaxSteps = max(res.MaxSteps, len(ex.Steps))
			if opt.OnExecution != nil && ex.Complete {
				opt.OnExecution(ex)
			}
			if v := Check(ex); v != nil {
				res.Violation = v
				return res, nil
			}
			if ex.Cut {
				res.Cut++
			} else if dpor {
				addRaces(stack, ex, opt.WindowOrders)
			}
		}
		if opt.Progress != nil && time.Since(lastReport) > 5*time.Second {
			lastReport = time.Now()
			fmt.Fprintf(opt.Progress, "%s: %d interleavings, %v\n", sc.Name, res.Executions, time.Since(start).Round(time.Second))
		}
		// Backtrack to the deepest decision with an actor left to try.
		d := len(stack) - 1
		for ; d >= 0; d-- {
			if alt := stack[d].backtrack &^ stack[d].done &^ stack[d].sleep; alt != 0 {
				p := bits.TrailingZeros16(alt)
				stack[d].done |= 1 << p
				stack[d].chosen = p
				stack = stack[:d+1]
				break
			}
		}
		if d < 0 {
			if res.Cut > 0 {
				res.StopReason = fmt.Sprintf("%d schedules were cut at %d steps", res.Cut, ex.maxSteps(opt.Run))
				return res, nil
			}
			res.Complete = true
			return res, nil
		}
	}
}

func (e *Execution) maxSteps(o RunOptions) int {
	if o.MaxSteps > 0 {
		return o.MaxSteps
	}
	return DefaultMaxSteps
}

// isPreemption: choosing chosen after last, which could have gone on.
func isPreemption(enabled uint16, last, chosen int) bool {
	return last >= 0 && chosen != last && enabled&(1<<last) != 0
}
