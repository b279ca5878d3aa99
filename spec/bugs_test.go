package spec

import (
	"context"
	"testing"
)

// Each seeded bug must be rejected, by the property it breaks, with a
// counterexample of a known length (the explorer is deterministic, so the
// length is exact). The same bounds with BugNone must pass: the failure is
// the bug's, not the bounds'.
var bugCases = []struct {
	bug      Bug
	bounds   Bounds
	kind     ViolationKind
	inv      int // for KindInvariant
	traceLen int
	loop     int  // index of the cycle start, -1 for none
	stutter  bool // liveness by stuttering in the last state
}{
	{BugReadyNoWakep, Bounds{Ps: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2}, KindWorkConservation, 0, 6, -1, true},
	{BugNo61, Bounds{Ps: 1, Gs: 4, Cap: 2, Spawn: 3, SchedTick: 2}, KindGlobalStarvation, 0, 20, 5, false},
	{BugSpinNoDec, Bounds{Ps: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2}, KindInvariant, InvCounts, 2, -1, false},
	{BugGoschedLocal, Bounds{Ps: 1, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true}, KindGlobalStarvation, 0, 7, 5, false},
	{BugRetakeIgnoresLocal, Bounds{Ps: 1, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true}, KindInvariant, InvSpinning, 3, -1, false},
}

func TestSeededBugsAreFound(t *testing.T) {
	seen := map[Bug]bool{}
	for _, c := range bugCases {
		seen[c.bug] = true
		t.Run(c.bug.String(), func(t *testing.T) {
			b := c.bounds
			b.Bug = c.bug
			r, err := Explore(context.Background(), b, Options{Liveness: true})
			if err != nil {
				t.Fatal(err)
			}
			v := r.Violation
			if v == nil {
				t.Fatalf("bug %v not found: %v", c.bug, r)
			}
			if v.Kind != c.kind {
				t.Fatalf("bug %v: got %v, want %v\n%v", c.bug, v.Kind, c.kind, v)
			}
			if c.kind == KindInvariant {
				ie, ok := v.Err.(*InvariantError)
				if !ok || ie.Inv != c.inv {
					t.Fatalf("bug %v: got %v, want invariant %d", c.bug, v.Err, c.inv)
				}
			}
			if v.Trace.Len() != c.traceLen || v.Trace.Loop != c.loop || v.Trace.Stutter != c.stutter {
				t.Fatalf("bug %v: trace len %d loop %d stutter %v, want %d %d %v\n%v",
					c.bug, v.Trace.Len(), v.Trace.Loop, v.Trace.Stutter, c.traceLen, c.loop, c.stutter, v)
			}
			checkTraceReplays(t, b, v.Trace)

			b.Bug = BugNone
			r, err = Explore(context.Background(), b, Options{Liveness: true})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict() != "pass" || !r.Liveness {
				t.Fatalf("correct model fails on the bug's bounds: %v\n%v", r, r.Violation)
			}
		})
	}
	for _, b := range Bugs() {
		if !seen[b] {
			t.Errorf("seeded bug %v has no test case", b)
		}
	}
	// SeededBugBounds (used by gmpcheck verify) must be the bounds tested here.
	for i, sb := range SeededBugBounds() {
		want := bugCases[i].bounds
		want.Bug = bugCases[i].bug
		if sb != want {
			t.Errorf("SeededBugBounds()[%d] = %+v, tests use %+v", i, sb, want)
		}
	}
}

// checkTraceReplays replays a counterexample through the exported API: every
// action must be enabled, and every state must be the one printed; a cycle
// must return to the state it started from.
func checkTraceReplays(t *testing.T, b Bounds, tr Trace) {
	t.Helper()
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	s := md.Init()
	if s.Key() != tr.Init.Key() {
		t.Fatalf("trace starts elsewhere than Init")
	}
	var loopStart State
	for i, st := range tr.Steps {
		if i == tr.Loop {
			loopStart = s
		}
		ns, err := md.Step(s, st.Action)
		if err != nil {
			t.Fatalf("step %d %v: %v", i+1, st.Action, err)
		}
		if ns.Key() != st.State.Key() {
			t.Fatalf("step %d %v: replay gives\n%v\nwant\n%v", i+1, st.Action, ns, st.State)
		}
		s = ns
	}
	if tr.Loop >= 0 && s.Key() != loopStart.Key() {
		t.Fatalf("cycle does not return to its start:\n%v\nvs\n%v", s, loopStart)
	}
}
