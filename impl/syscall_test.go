package impl

import (
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

// retake's takeP leaves the P _Pidle (off every M, not yet on the idle
// list) before handoffp gives it a home, as the runtime's releaseP does; a
// P that no M holds must not read as running to the other Ms and sysmon.
func TestRetakeStoresPidleBeforeHandoff(t *testing.T) {
	var d *Driver
	seen := false
	d, err := NewDriver(Config{Procs: 1, Trace: func(e Event) {
		if e.Kind != EvHandoff {
			return
		}
		seen = true
		if st := spec.PStatus(d.Sched().ps().allp[e.P].status.Load()); st != spec.PIdle {
			t.Errorf("handoffp sees p%d %v, want idle", e.P, st)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.EnterSyscall(0); err != nil {
		t.Fatal(err)
	}
	took, err := d.Retake(0)
	if err != nil || !took || seen {
		t.Fatalf("retake: took=%v err=%v handoff seen=%v, want taken and no handoffp yet", took, err, seen)
	}
	// sysmon holds p0 between takeP and handoffp: _Pidle, on no idle list.
	if sn := d.Sched().Snapshot(); sn.RetakeP != 1 || sn.Ps[0].Status != spec.PIdle || sn.NPIdle != 0 {
		t.Fatalf("after takeP: sysmon holds p%d, p0 %v, npidle %d; want p0, idle, 0", sn.RetakeP-1, sn.Ps[0].Status, sn.NPIdle)
	}
	if err := d.RetakeHandoff(0); err != nil || !seen {
		t.Fatalf("retake's handoffp: err=%v handoff seen=%v", err, seen)
	}
	if sn := d.Sched().Snapshot(); sn.RetakeP != 0 {
		t.Fatalf("after handoffp sysmon still holds p%d", sn.RetakeP-1)
	}
	// Nor does checkdead's count of the Ps sysmon holds: left above zero,
	// it would keep checkdead from ever reporting a deadlock again.
	if n := d.Sched().sysmonHeld.Load(); n != 0 {
		t.Fatalf("after handoffp sysmonHeld = %d, want 0", n)
	}
	// handoffp started a spinning M on the P: running again.
	if st := spec.PStatus(d.Sched().ps().allp[0].status.Load()); st != spec.PRunning {
		t.Fatalf("after handoffp p0 is %v, want running", st)
	}
}

// exitsyscallNoP that finds an idle P in its lock section (one went idle
// after exitsyscall looked) executes the G with a fresh time slice: the G
// goes syscall → runnable → running, and the P's schedtick counts it.
func TestExitSyscallLateP(t *testing.T) {
	var status []string
	d, err := NewDriver(Config{Procs: 1, Trace: func(e Event) {
		if e.Kind == EvGStatus {
			status = append(status, e.From.String()+">"+e.To.String())
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	step := func(what string, err error, want spec.ActionKind) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		acts := d.Actions()
		if len(acts) != 1 || acts[0].Action != want {
			t.Fatalf("%s: actions %v, want %v", what, acts, want)
		}
	}
	step("enter", d.EnterSyscall(0), spec.ActEnterSyscall)
	_, err = d.Retake(0) // takeP: sysmon holds p0
	step("retake", err, spec.ActRetake)
	// The M, resumed, leaves its syscall before sysmon's handoffp: no P.
	step("exit", d.ExitSyscall(0), spec.ActExitSyscallNoP)
	// handoffp: nobody spins, no P idle: m1 spins on p0.
	step("retake's handoffp", d.RetakeHandoff(0), spec.ActRetakeHandoff)
	step("m1 looks at sched.runq", d.Step(1), spec.ActGlobal61Miss)
	step("m1 looks at both queues", d.Step(1), spec.ActGlobRunqMiss)
	step("m1 gives up", d.Step(1), spec.ActReleaseP) // one P: no victim, p0 goes idle
	tick := d.Sched().ps().allp[0].schedtick.Load()
	status = nil
	step("m0 locks", d.Step(0), spec.ActExitSyscallLateP)
	if got := d.Sched().ps().allp[0].schedtick.Load(); got != tick+1 {
		t.Errorf("schedtick %d after a fresh slice, want %d", got, tick+1)
	}
	if len(status) != 1 || status[0] != "runnable>running" {
		t.Errorf("status events %v, want [runnable>running]", status)
	}
}

// sysmon's deep sleep ends when a G enters a syscall (or leaves one onto an
// idle P), not when an M starts inside the scheduler: the runtime's startm
// leaves sysmon asleep.
func TestSysmonWokenBySyscallNotStartm(t *testing.T) {
	d, err := NewDriver(Config{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Sched()
	s.sysmonOn.Store(true)
	if _, err := d.NewProc(0); err != nil { // wakep → startm of a spinning M
		t.Fatal(err)
	}
	if len(s.allm) != 2 || len(s.sysmonWake) != 0 {
		t.Fatalf("startm (%d Ms) woke sysmon: %d pending wakeups", len(s.allm), len(s.sysmonWake))
	}
	if err := d.EnterSyscall(0); err != nil {
		t.Fatal(err)
	}
	if len(s.sysmonWake) != 1 {
		t.Fatalf("entersyscall did not wake sysmon")
	}
}

// The Driver takes the spec's walk to exitsyscallTryGetP's old-P path
// (spec's TestExitSyscallTakesOldPBack) step for step: m0's P, retaken and
// handed to m1, is taken back from m1 once m1's G is in a syscall too;
// then m1 leaves its own syscall the no-P way.
func TestDriverExitSyscallOldP(t *testing.T) {
	r, err := newSpecRun(spec.Bounds{Ps: 1, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true}, spec.Go126, spec.BugNone, 1)
	if err != nil {
		t.Fatal(err)
	}
	walk := []string{
		"m0: NewProc", "m0: Wakep", "m0: WakepNoP", "m0: EnterSyscall",
		"sysmon: Retake(p0)", "sysmon: RetakeHandoff(p0)",
		"m1: Global61Miss", "m1: RunqGet", "m1: EnterSyscall",
		"m0: ExitSyscallOldP", "m1: ExitSyscallNoP",
	}
	if n, err := walkRun(r, walk); err != nil {
		t.Fatalf("after %d steps: %v", n, err)
	}
}

// holdInSyscall reads pp.m and that M's curg before it wins the G's scan
// bit, so what it holds may be stale: the G seen in a syscall on p0's M
// left it, and is now in another syscall on m1, while m0 runs a new G on
// p0. Holding that G, a check of m0's P alone passes, and retake would
// unwire p0 from under the running G (CI saw it: a Gosched found its M
// without a P). setBlockOnExitSyscall also checks the G's own M; so must
// holdSeen. The stale observation is played against a real state: g1 in a
// syscall on m1 and p1, the main G running on m0 and p0.
func TestHoldInSyscallRefusesAStaleSight(t *testing.T) {
	r, err := newSpecRun(spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true}, spec.Go126, spec.BugNone, 1)
	if err != nil {
		t.Fatal(err)
	}
	walk := []string{
		"m0: NewProc", "m0: Wakep", "m0: WakepStartM",
		"m1: Global61Miss", "m1: GlobRunqMiss", "m1: StealEmptyRing(p0)", "m1: StealRunnext(p0)",
		"m1: ResetSpinning", "m1: Wakep", "m1: WakepNoP", "m1: EnterSyscall",
	}
	if n, err := walkRun(r, walk); err != nil {
		t.Fatalf("after %d steps: %v", n, err)
	}
	s := r.d.Sched()
	m0, m1 := s.allm[0], s.allm[1]
	p0, p1 := s.ps().allp[0], s.ps().allp[1]
	g1 := m1.curg.Load()
	if g1.Status() != Gsyscall || m0.curg.Load().Status() != Grunning || m0.p.Load() != p0 {
		t.Fatalf("set-up: g1 %v, m0's G %v on %v; want a syscall and a running G on p0", g1.Status(), m0.curg.Load().Status(), m0.p.Load())
	}
	if hm, hg, ok := holdSeen(p0, m0, g1); ok || hm != nil || hg != nil {
		t.Fatalf("holdSeen(p0, m0, g1), g1 in a syscall on m1: held %v (m set %v, %v); want a refusal", ok, hm != nil, hg)
	}
	if st := g1.Status(); st != Gsyscall || m0.p.Load() != p0 {
		t.Fatalf("after the refusal g1 is %v and m0 holds %v; want a syscall and p0", st, m0.p.Load())
	}
	// The true sight is held: the refusal above is not the only answer.
	hm, hg, ok := holdSeen(p1, m1, g1)
	if !ok || hm != m1 || hg != g1 {
		t.Fatalf("holdSeen(p1, m1, g1): held %v (m1 %v, %v); want m1 and g1 held", ok, hm == m1, hg)
	}
	g1.casStatus(Gsyscall|gscan, Gsyscall)
}
