package linearize

import (
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
)

func mustCheck(t *testing.T, capacity int, h []porcupine.Operation) porcupine.CheckResult {
	t.Helper()
	c, err := NewChecker(capacity)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Check(h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestHandWrittenHistories: each illegal history of HandWritten breaks one
// rule of the queue's contract and has a legal twin that differs only
// there, so a model that rejected everything would fail as surely as one
// that accepted everything.
func TestHandWrittenHistories(t *testing.T) {
	var legal, illegal int
	for _, c := range HandWritten() {
		t.Run(c.Name, func(t *testing.T) {
			want := porcupine.Illegal
			if c.Legal {
				want = porcupine.Ok
			}
			if got := mustCheck(t, c.Capacity, c.History); got != want {
				t.Fatalf("got %v, want %v\n%s", got, want, formatHistory(c.History))
			}
		})
		if c.Legal {
			legal++
		} else {
			illegal++
		}
	}
	if legal < 10 || illegal < 20 {
		t.Fatalf("only %d legal and %d illegal cases", legal, illegal)
	}
	if err := SelfTest(); err != nil {
		t.Fatal(err)
	}
}

// TestAtomicPutRejectsRealBehaviour shows why the model has Queues.Kicked
// and Queues.Transit: runqput's two effects can be observed apart, and a
// model that makes runqput one atomic step rejects those histories, which
// the real queue produces (a history like the first was recorded from
// impl.Runq without any hooks; TestPutSecondEffectsObserved replays both
// windows through the hooks).
func TestAtomicPutRejectsRealBehaviour(t *testing.T) {
	for name, h := range map[string]*hist{
		"displaced runnext in flight": (&hist{}).seq(0, putNext(1)).
			at(0, putNext(2), 100, 200).at(1, steal(true, 2), 110, 120).at(1, empty(true), 130, 140),
		"spill in transit": (&hist{}).seq(0, puts(1, 2, 3, 4)...).
			at(0, put(5), 100, 200).at(1, steal(false, 3), 110, 120).at(1, globGet(0), 130, 140),
	} {
		strict, err := newModel(4, modelOpts{atomicPut: true})
		if err != nil {
			t.Fatal(err)
		}
		if porcupine.CheckOperations(strict, h.ops) {
			t.Errorf("%s: the atomic-put model accepts it", name)
		}
		if got := mustCheck(t, 4, h.ops); got != porcupine.Ok {
			t.Errorf("%s: the model rejects it: %v", name, got)
		}
	}
}

// TestEmptyRingRunnextStealRejectsRealBehaviour shows why a runnext steal
// may take effect while the ring holds Gs: runqgrab reads the ring empty,
// the owner puts g1 and then g2 into runnext, and the thief's CAS takes g2.
// A model that lets a thief take runnext only from an empty ring rejects
// that (the real queue produces it: TestRunnextStealAfterRefill), while a
// runnext steal whose whole interval saw a non-empty ring stays illegal.
func TestEmptyRingRunnextStealRejectsRealBehaviour(t *testing.T) {
	refill := (&hist{}).at(1, steal(true, 2), 100, 200).at(0, put(1), 110, 120).at(0, putNext(2), 130, 140).seq(0, drain(1))
	strict, err := newModel(4, modelOpts{emptyRingRunnextSteal: true})
	if err != nil {
		t.Fatal(err)
	}
	if porcupine.CheckOperations(strict, refill.ops) {
		t.Error("the empty-ring model accepts a runnext steal from a refilled ring")
	}
	if got := mustCheck(t, 4, refill.ops); got != porcupine.Ok {
		t.Errorf("the model rejects a runnext steal while the owner refills the ring: %v", got)
	}
	// The same operations with the put returned before the steal's call.
	early := (&hist{}).seq(0, put(1)).at(1, steal(true, 2), 100, 200).at(0, putNext(2), 130, 140).seq(0, drain(1))
	if got := mustCheck(t, 4, early.ops); got != porcupine.Illegal {
		t.Errorf("a runnext steal from a ring filled before the steal: %v, want Illegal", got)
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		c    call
		want string
	}{
		{put(3), "Put(g3)"},
		{putNext(4), "PutNext(g4)"},
		{get(4, true), "Get() → g4 inherit"},
		{get(0, false), "Get() → none"},
		{steal(true, 1, 2), "Steal(runnext) → [g1 g2]"},
		{steal(false), "Steal() → []"},
		{drain(4, 1), "Drain() → [g4 g1]"},
		{empty(false), "Empty() → false"},
		{globGet(9), "GlobGet() → g9"},
	} {
		if got := describeOperation(c.c.in, c.c.out); got != c.want {
			t.Errorf("describe %+v = %q, want %q", c.c, got, c.want)
		}
	}
	m, _ := NewModel(4)
	s := m.Init()
	for _, c := range puts(1, 2, 3, 4, 5) {
		var ok bool
		ok, s = m.Step(s, Input{Kind: c.in.Kind, G: c.in.G, Call: 1, Return: 2}, Output{})
		if !ok {
			t.Fatal("put rejected")
		}
	}
	if got, want := m.DescribeState(s), "runnext=- ring=[g3 g4]/4 glob=[] transit=[g1 g2 g5]"; got != want {
		t.Errorf("state = %q, want %q", got, want)
	}
	_, s = m.Step(s, Input{Kind: KindPutNext, G: 6, Call: 3, Return: 4}, Output{})
	if got, want := m.DescribeState(s), "runnext=g6 ring=[g3 g4]/4 glob=[g1 g2 g5]"; got != want {
		t.Errorf("state = %q, want %q", got, want)
	}
	if got := describeOperation(42, "x"); !strings.Contains(got, "42") {
		t.Errorf("describe of a foreign input = %q", got)
	}
}

func TestNewModelRejectsBadCapacity(t *testing.T) {
	for _, c := range []int{0, 3, 512, -8} {
		if _, err := NewModel(c); err == nil {
			t.Errorf("NewModel(%d) succeeded", c)
		}
	}
}

func TestValidateHistory(t *testing.T) {
	good := MakeOp(0, Input{Kind: KindGet}, Output{}, 1, 2)
	bad := []porcupine.Operation{
		{Input: "get", Output: Output{}, Call: 1, Return: 2},
		{Input: Input{Kind: 0}, Output: Output{}, Call: 1, Return: 2},
		{Input: Input{Kind: KindGlobGet + 1}, Output: Output{}, Call: 1, Return: 2},
		{Input: Input{Kind: KindGet}, Output: 7, Call: 1, Return: 2},
		{Input: Input{Kind: KindGet}, Output: Output{}, Call: 3, Return: 2},
		{ClientId: -1, Input: Input{Kind: KindGet}, Output: Output{}, Call: 1, Return: 2},
	}
	if err := ValidateHistory([]porcupine.Operation{good}); err != nil {
		t.Fatal(err)
	}
	c, _ := NewChecker(4)
	for i, op := range bad {
		if err := ValidateHistory([]porcupine.Operation{good, op}); err == nil {
			t.Errorf("bad operation %d accepted", i)
		}
		if _, err := c.Check([]porcupine.Operation{op}, 0); err == nil {
			t.Errorf("Check accepted bad operation %d", i)
		}
	}
}

func TestOverflowed(t *testing.T) {
	spilled := (&hist{}).seq(0, puts(1, 2, 3, 4, 5)...).seq(0, drain(3, 4), globGet(1), globGet(2), globGet(5), globGet(0))
	if !Overflowed(spilled.ops) {
		t.Error("a round that took Gs from the global queue is not counted as overflowed")
	}
	plain := (&hist{}).seq(0, puts(1, 2)...).seq(1, globGet(0)).seq(0, drain(1, 2))
	if Overflowed(plain.ops) {
		t.Error("a round whose global queue stayed empty is counted as overflowed")
	}
}
