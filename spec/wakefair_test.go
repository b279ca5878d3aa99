package spec

import (
	"fmt"
	"testing"
)

// The liveness checker's fairness family M(m) is discharged in a component
// by any of m's schedule-loop steps on an edge inside it (schedStep). Three
// of those steps never decide it: each comes in every cycle with another
// of m's steps (or leaves m excused), so leaving it out of schedStep
// changes no verdict, and docs/mutation.md argues the three mutants that
// leave them out equivalent on the facts these tests check:
//   - WakepNoP (spec/actions.go:212:31): an M's wakep stage becomes
//     WakeCAS only by that M's own Wakep and leaves it only by its own
//     WakepStartM or WakepNoP, so a cycle with m's WakepNoP has m's Wakep;
//   - CheckTimersNoP (spec/actions.go:212:51) and Global61
//     (spec/actions.go:212:11): each moves its M to a stage where it is
//     excused or that it leaves only by another schedStep of its own
//     (thenExcusedOrOwnStep).
//
// Under M symmetry the same holds on the lift: going round a cycle until
// its permutation is the identity, m takes the paired step itself.

// fairnessModels are the models the tests search breadth-first from their
// initial state (a bounded prefix of each): the base model, most
// mechanisms, and the poller with timers, alone and with stop-the-world.
var fairnessModels = []Bounds{
	{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 2, SchedTick: 2},
	{Ps: 2, Ms: 3, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true, Netpoll: true, InjectList: true, LockOSThread: true, STW: true, ProcResize: true},
	{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, PollBlock: true, Timers: 2, Goyield: true, SyscallBlock: true, Syscalls: true},
	{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, PollBlock: true, Timers: 1, STW: true, ProcResize: true, LockOSThread: true},
}

// everyEdge calls check on every step taken from the first 20,000 states
// of each model that has the kind want, and fails a model that never
// takes want: the test would say nothing about it.
func everyEdge(t *testing.T, models []Bounds, want ActionKind, check func(b Bounds, from State, a Action, to State)) {
	t.Helper()
	sequentialUnderRace(t)
	for _, b := range models {
		md, err := NewModel(b)
		if err != nil {
			t.Fatal(err)
		}
		took := 0
		n := breadthFirst(md, 20000, func(State) bool { return !t.Failed() }, func(from State, a Action, to State) {
			if a.Kind == want {
				took++
			}
			check(b, from, a, to)
		})
		if took == 0 {
			t.Errorf("%+v: %v never taken in %d states", b, want, n)
		}
		t.Logf("%+v: %d states, %d %v steps", b, n, took, want)
	}
}

func TestWakeCASOnlyByOwnWakep(t *testing.T) {
	everyEdge(t, fairnessModels, ActWakepNoP, func(b Bounds, from State, a Action, to State) {
		for m := 0; m < int(from.nM); m++ {
			was, is := from.M[m].Wake == WakeCAS, to.M[m].Wake == WakeCAS
			own := int(a.M) == m
			switch {
			case !was && is && (!own || a.Kind != ActWakep):
				t.Errorf("%+v: %v puts m%d in WakeCAS\nfrom %v", b, a, m, from)
			case was && !is && (!own || a.Kind != ActWakepStartM && a.Kind != ActWakepNoP):
				t.Errorf("%+v: %v takes m%d out of WakeCAS\nfrom %v", b, a, m, from)
			}
		}
	})
}

// mStage is where an M is, as far as its own next step goes: its PC and
// its wakep stage.
type mStage struct {
	pc   MPC
	wake WakeStage
}

// thenExcusedOrOwnStep checks the fact behind the equivalence of leaving
// kind k out of schedStep: each k step moves its M to another stage, and
// there the M is either excused (its family disabled in that state, say
// running the G it took) or at a stage it leaves only by a schedStep of
// its own other than k. Either way a component with m's k edge has m
// excused in a state or taking another step of its family. One search
// notes the stages k leads to and, for every stage, a step that takes an
// M out of it otherwise.
func thenExcusedOrOwnStep(t *testing.T, models []Bounds, k ActionKind) {
	t.Helper()
	after := map[mStage]bool{}
	other := map[mStage]string{}
	everyEdge(t, models, k, func(b Bounds, from State, a Action, to State) {
		if a.Kind == k {
			ms, was := to.M[a.M], from.M[a.M]
			if (mStage{ms.PC, ms.Wake}) == (mStage{was.PC, was.Wake}) {
				t.Errorf("%+v: %v leaves m%d at %v\nfrom %v", b, a, a.M, ms.PC, from)
			}
			if !ms.excused() {
				after[mStage{ms.PC, ms.Wake}] = true
			}
		}
		for m := 0; m < int(from.nM); m++ {
			st := mStage{from.M[m].PC, from.M[m].Wake}
			if st == (mStage{to.M[m].PC, to.M[m].Wake}) || other[st] != "" {
				continue
			}
			if int(a.M) != m || !a.Kind.schedStep() || a.Kind == k {
				other[st] = fmt.Sprintf("%+v: %v takes m%d out of %v\nfrom %v", b, a, m, st, from)
			}
		}
	})
	if len(after) == 0 {
		t.Fatalf("%v never leaves its M anywhere but excused: nothing to check", k)
	}
	for st := range after {
		if other[st] != "" {
			t.Error(other[st])
		}
	}
}

// TestCheckTimersNoPThenExcusedOrOwnStep: CheckTimersNoP (spec/actions.go:212:51)
// leaves its M at MPollCheck, which the M leaves only by its own
// NetpollBlock, NetpollBreak or StopM.
func TestCheckTimersNoPThenExcusedOrOwnStep(t *testing.T) {
	thenExcusedOrOwnStep(t, fairnessModels[2:], ActCheckTimersNoP)
}

// TestGlobal61ThenExcusedOrOwnStep: Global61 (spec/actions.go:212:11)
// leaves its M running the G it took (excused), or about to resetspinning,
// startlockedm or wakep, each a schedStep of its own.
func TestGlobal61ThenExcusedOrOwnStep(t *testing.T) {
	thenExcusedOrOwnStep(t, fairnessModels, ActGlobal61)
}

// TestStartTheWorldMeetsOnlyStoppedPs checks the fact behind the
// equivalence of spec/model.go:1239:4 (mutate.Equivalents): when
// StartTheWorld runs, every P below gomaxprocs is stopped, so its restart
// loop's skip of a P not stopped is never taken. Go 1.10dev's model, where
// procresize can grow allp before the restart, is searched too.
func TestStartTheWorldMeetsOnlyStoppedPs(t *testing.T) {
	grown := fairnessModels[3]
	grown.Go = Go110dev
	everyEdge(t, []Bounds{fairnessModels[1], fairnessModels[3], grown}, ActStartTheWorld, func(b Bounds, from State, a Action, _ State) {
		if a.Kind != ActStartTheWorld {
			return
		}
		for p := 0; p < from.procs(); p++ {
			if from.P[p].Status != PGCStop {
				t.Errorf("%+v: %v with p%d %v\nfrom %v", b, a, p, from.P[p].Status, from)
			}
		}
	})
}
