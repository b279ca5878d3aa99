package spec

import (
	"context"
	"testing"
)

// Retake is takeP alone: the M sysmon took the P from may leave its
// syscall before sysmon's handoffp, find no P and queue its G, while
// sysmon still holds the P (held by no M, not idle); the handoffp then
// sees the G on the global queue and starts an M for it.
func TestRetakeThenExitBeforeHandoff(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 1, Ms: 2, Gs: 1, Cap: 2, SchedTick: 2, Syscalls: true})
	if err != nil {
		t.Fatal(err)
	}
	s := steps(t, md, md.Init(), mAct(ActEnterSyscall, 0), Action{Kind: ActRetake, M: NoP, P: 0})
	if s.RetakeP != 1 || s.M[0].P != NoP || s.P[0].Status != PRunning || s.NPIdle != 0 || s.M[0].OldP != 1 {
		t.Fatalf("after takeP: want p0 held by sysmon, neither idle nor m0's (m0's oldp):\n%v", s)
	}
	if en := md.Enabled(s); !contains(en, mAct(ActExitSyscallNoP, 0)) || contains(en, mAct(ActExitSyscallIdleP, 0)) {
		t.Fatalf("m0 leaving its syscall finds no idle P: enabled %v", en)
	}
	s = steps(t, md, s, mAct(ActExitSyscallNoP, 0), mAct(ActExitSyscallGlobrunq, 0))
	s = steps(t, md, s, Action{Kind: ActRetakeHandoff, M: NoP, P: 0})
	if s.RetakeP != 0 || s.M[1].P != 0 || s.M[1].PC != MSched || s.Runq.N != 1 {
		t.Fatalf("handoffp after the exit: want m1 started on p0 for g1 in sched.runq:\n%v", s)
	}
}

// exitsyscall's exitsyscallTryGetP first tries the M's old P: if the M
// holding it now is itself in a syscall, the exiting M takes it from that
// M (setBlockOnExitSyscall, takeP), which loses it as to a retake.
func TestExitSyscallTakesOldPBack(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 1, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true})
	if err != nil {
		t.Fatal(err)
	}
	s := steps(t, md, md.Init(),
		mAct(ActNewProc, 0), mAct(ActWakep, 0), mAct(ActWakepNoP, 0), // g2 in p0's runnext
		mAct(ActEnterSyscall, 0),
		Action{Kind: ActRetake, M: NoP, P: 0}, Action{Kind: ActRetakeHandoff, M: NoP, P: 0}, // local work: m1 on p0
		mAct(ActGlobal61Miss, 1), mAct(ActRunqGet, 1), mAct(ActEnterSyscall, 1)) // m1 runs g2, which enters a syscall
	if en := md.Enabled(s); !contains(en, mAct(ActExitSyscallOldP, 0)) {
		t.Fatalf("m0's old p0 is held by m1 in a syscall: want ExitSyscallOldP, enabled %v\n%v", en, s)
	}
	s = steps(t, md, s, mAct(ActExitSyscallOldP, 0))
	if s.M[0].P != 0 || s.M[0].OldP != 0 || s.G[s.M[0].CurG] != GRunning || s.M[1].P != NoP || s.M[1].OldP != 1 {
		t.Fatalf("want m0 running g1 on p0 again, m1 in its syscall without p0 (its oldp):\n%v", s)
	}
	// m1's old P is now held by m0, running: m1's way out is the no-P one.
	if en := md.Enabled(s); !contains(en, mAct(ActExitSyscallNoP, 1)) {
		t.Fatalf("m1 leaving its syscall: want ExitSyscallNoP, enabled %v", en)
	}
}

// The old-P path is reachable in the explored graph of the walk's bounds,
// and the model with it passes every property there (the verify bound,
// which has it too, is explored by the stage and the benchmarks).
func TestExitSyscallOldPExplored(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 1, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true}
	md, _ := NewModel(b)
	g, _ := bfs(context.Background(), md, Options{})
	seen := false
	for i := 0; i < g.len() && !seen; i++ {
		for _, a := range md.Enabled(g.state(uint32(i))) {
			seen = seen || a.Kind == ActExitSyscallOldP
		}
	}
	if !seen {
		t.Fatal("no state enables ExitSyscallOldP")
	}
	r, err := Explore(context.Background(), b, Options{Liveness: true, ThreadLimit: true})
	if err != nil || r.Verdict() != "pass" {
		t.Fatalf("%v %v\n%v", err, r, r.Violation)
	}
}
