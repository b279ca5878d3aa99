package spec

import (
	"context"
	"testing"
)

// lockedBounds is the smallest model with LockOSThread that reaches every
// locked path: a second G to take the P a locked M hands off, and a third
// M for handoffp to start while two are busy.
var lockedBounds = Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, SchedTick: 2, Netpoll: true, LockOSThread: true}

// A locked G that an M finds while its own M has not yet parked in
// stoplockedm: startlockedm leaves the P in m.nextp, stoplockedm hands
// the M's own P off and returns at once with the other, and the G runs on
// its M, on the P it was found on.
func TestStartLockedMBeforeThePark(t *testing.T) {
	md, err := NewModel(lockedBounds)
	if err != nil {
		t.Fatal(err)
	}
	s := steps(t, md, md.Init(),
		mAct(ActLockOSThread, 0), mAct(ActPark, 0),
		Action{Kind: ActInjectGList, M: NoP, P: NoP, G: 1}, // m1 started on p1
		mAct(ActGlobal61, 1), mAct(ActStartLockedM, 1))
	if s.M[0].NextP != 2 || s.M[1].PC != MStop || s.M[1].P != NoP || s.G[1] != GRunnable {
		t.Fatalf("want p1 in m0's nextp, m1 on its way to stopm, g1 runnable:\n%v", s)
	}
	if err := md.Check(s); err != nil {
		t.Fatalf("%v\n%v", err, s)
	}
	s = steps(t, md, s, mAct(ActStopLockedM, 0))
	if s.M[0].PC != MRun || s.M[0].P != 1 || s.M[0].CurG != 1 || s.G[1] != GRunning || s.M[0].NextP != 0 {
		t.Fatalf("want g1 running on m0 with p1:\n%v", s)
	}
	// p0 was empty, but nobody spun and no P was idle: handoffp started a
	// spinning M for it.
	if s.M[2].PC != MSched || s.M[2].P != 0 || !s.M[2].Spinning {
		t.Fatalf("want m2 spinning on p0:\n%v", s)
	}
}

// The other order: the locked M parked first, with its P handed off;
// startlockedm gives it the finder's P and the G runs there at once, on a
// fresh time slice.
func TestStartLockedMAfterThePark(t *testing.T) {
	md, err := NewModel(lockedBounds)
	if err != nil {
		t.Fatal(err)
	}
	s := steps(t, md, md.Init(),
		mAct(ActLockOSThread, 0), mAct(ActPark, 0), mAct(ActStopLockedM, 0))
	if s.M[0].PC != MLockedWait || s.M[0].P != NoP || s.P[0].Status != PIdle {
		t.Fatalf("want m0 parked in stoplockedm, p0 idle:\n%v", s)
	}
	s = steps(t, md, s,
		Action{Kind: ActInjectGList, M: NoP, P: NoP, G: 1}, // m1 started on p0
		mAct(ActGlobal61, 1))
	tick := s.P[0].SchedTick
	s = steps(t, md, s, mAct(ActStartLockedM, 1))
	if s.M[0].PC != MRun || s.M[0].P != 0 || s.G[1] != GRunning || s.M[1].PC != MStop || s.P[0].SchedTick == tick {
		t.Fatalf("want g1 running on m0 with p0 on a fresh slice, m1 stopping:\n%v", s)
	}
}

// A G that exits locked ends its thread: the M's P is handed off (here to
// a new M, since the P has work), and the slot is free again.
func TestLockedGExitEndsItsM(t *testing.T) {
	b := lockedBounds
	b.Spawn = 1
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	s := steps(t, md, md.Init(),
		mAct(ActLockOSThread, 0), mAct(ActNewProc, 0), mAct(ActWakep, 0), mAct(ActWakepStartM, 0),
		mAct(ActGoExit, 0))
	if s.M[0] != (MState{PC: MIdle, P: NoP}) || s.G[1] != GDead {
		t.Fatalf("want m0 gone (idle slot), g1 dead:\n%v", s)
	}
	if s.M[2].PC != MSched || s.M[2].P != 0 || s.M[2].Spinning {
		t.Fatalf("want p0 (runnext g2) handed to m2:\n%v", s)
	}
}

// entersyscallblock hands the P off at once: with work on it, to a new M,
// while the G is still in its system call; the G gets a P back on exit.
func TestEnterSyscallBlockHandsOff(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, SyscallBlock: true})
	if err != nil {
		t.Fatal(err)
	}
	s := steps(t, md, md.Init(),
		mAct(ActNewProc, 0), mAct(ActWakep, 0), mAct(ActWakepStartM, 0),
		mAct(ActEnterSyscallBlock, 0))
	if s.M[0].P != NoP || s.G[1] != GSyscall || s.M[2].P != 0 || s.M[2].PC != MSched {
		t.Fatalf("want g1 in its syscall without a P, p0 handed to m2:\n%v", s)
	}
	if got := md.Enabled(s); !containsAction(got, mAct(ActExitSyscallNoP, 0)) {
		t.Fatalf("no P is idle: want exitsyscall's slow path enabled, got %v", got)
	}
}

func containsAction(as []Action, a Action) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

// The locked mechanisms pass every check on their bounds, and the
// explorer needs nothing else to find their seeded bugs (SeededBugCases).
func TestLockedAndSyscallBlockPass(t *testing.T) {
	sequentialUnderRace(t)
	for _, b := range []Bounds{
		{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, LockOSThread: true},
		{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, SyscallBlock: true},
	} {
		r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Violation != nil || !r.Complete {
			t.Fatalf("%v: %v\n%v", b, r, r.Violation)
		}
	}
}

// A locked M at the top of schedule with no G of its own goes no further
// than stoplockedm: besides the wakep it may still be in (whose steps
// leaveTop skips for every M), its one step is StopLockedM, which leaves
// it parked in MLockedWait or, with a P already in m.nextp, running its G.
// Neither PC keeps findRunnable's locals, so the step's end clears any
// pollUntil the step began with; this is why leaveTop may skip or not
// skip a locked M (docs/mutation.md, spec/timers.go:223:70). The model is
// fairnessModels' with LockOSThread, timers and the blocking poller.
func TestLockedMAtScheduleOnlyStops(t *testing.T) {
	everyEdge(t, []Bounds{fairnessModels[3]}, ActStopLockedM, func(b Bounds, from State, a Action, to State) {
		if a.Kind.external() {
			return
		}
		ms := from.M[a.M]
		if ms.PC != MSched || ms.LockedG == NoG || ms.CurG != NoG {
			return
		}
		switch a.Kind {
		case ActWakep, ActWakepSkip, ActWakepStartM, ActWakepNoP:
			return
		}
		if pc := to.M[a.M].PC; a.Kind != ActStopLockedM || pc != MLockedWait && pc != MRun {
			t.Errorf("%+v: locked m%d at %v takes %v to %v\nfrom %v", b, a.M, ms.PC, a, pc, from)
		}
	})
}
