package spec

import "testing"

// TestHandoffReadDecides checks WithHandoffRead, the trace checker's way
// to apply a handoffp whose reads came before its step: the decision is
// the one given, and the rest is the model's own. Ps=1: sysmon retakes
// p0 from m0's syscall with no work anywhere and no P idle, so the
// model's own reads start a spinning M; a read of nmspinning made during
// another M's wakep idles the P instead, and the lock section still sees
// sched.runq, as proc.go's does.
func TestHandoffReadDecides(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 1, Ms: 2, Gs: 2, Cap: 2, SchedTick: 2, Syscalls: true})
	if err != nil {
		t.Fatal(err)
	}
	s := steps(t, md, md.Init(), mAct(ActEnterSyscall, 0), Action{Kind: ActRetake, M: NoP, P: 0})
	handoff := Action{Kind: ActRetakeHandoff, M: NoP, P: 0}
	queued := s
	queued.G[2], queued.Runq.Gs[0], queued.Runq.N = GRunnable, 2, 1 // g2 in sched.runq
	for _, tc := range []struct {
		name     string
		r        HandoffRead
		from     State
		idle     bool // p0 ends idle; else m1 holds it
		spinning bool
	}{
		{"reads: nobody spinning, no P idle", HandoffReadNow, s, false, true},
		{"reads: work in sched.runq", HandoffReadNow, queued, false, false},
		{"read idle", HandoffReadIdle, s, true, false},
		{"read idle, sched.runq filled before the lock", HandoffReadIdle, queued, false, false},
		{"read work since taken", HandoffReadWork, s, false, false},
		{"read a spinning need", HandoffReadSpinning, s, false, true},
	} {
		next, err := md.WithHandoffRead(tc.r).Step(tc.from, handoff)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if idle := next.P[0].Status == PIdle; idle != tc.idle {
			t.Errorf("%s: p0 idle %v, want %v:\n%v", tc.name, idle, tc.idle, next)
			continue
		}
		if !tc.idle && (next.M[1].P != 0 || next.M[1].Spinning != tc.spinning || int(next.NMSpinning) != map[bool]int{true: 1}[tc.spinning]) {
			t.Errorf("%s: want m1 on p0, spinning %v:\n%v", tc.name, tc.spinning, next)
		}
		if tc.idle && (next.NPIdle != 1 || next.IdlePs[0] != 0 || next.M[1].PC != MIdle) {
			t.Errorf("%s: want p0 alone on sched.pidle and m1 idle:\n%v", tc.name, next)
		}
	}
	// The copy leaves the model as it was.
	if next, err := md.Step(s, handoff); err != nil || next.P[0].Status == PIdle {
		t.Errorf("the model after WithHandoffRead: %v, p0 %v", err, next.P[0].Status)
	}
}
