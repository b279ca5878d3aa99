package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/impl"
)

// wrongInherit reports runnext Gs as starting a fresh time slice.
type wrongInherit struct{ *implQueues }

func (w wrongInherit) Get(p int) (uint64, bool) {
	g, inherit := w.implQueues.Get(p)
	return g, inherit && false
}

// dropsPut loses every 1000th G put.
type dropsPut struct{ *implQueues }

func (d dropsPut) Put(p int, g uint64, next bool) {
	if g%1000 != 0 {
		d.implQueues.Put(p, g, next)
	}
}

// alwaysEmpty says every queue is empty.
type alwaysEmpty struct{ *implQueues }

func (alwaysEmpty) Empty(int) bool { return true }

func TestChecksPassOnImpl(t *testing.T) {
	ctx := context.Background()
	for _, c := range []int{4, 8, 256} {
		q := &implQueues{c: c}
		if _, err := RunDiff(ctx, q, 20, 100, 1); err != nil {
			t.Errorf("diff at %d: %v", c, err)
		}
		if _, err := RunRapid(q, 20, 100, 1); err != nil {
			t.Errorf("rapid at %d: %v", c, err)
		}
	}
	q := &implQueues{c: 4}
	if _, err := Stress(ctx, q, 2, 20000, 1); err != nil {
		t.Errorf("stress: %v", err)
	}
	if _, err := Lin(ctx, q, 20, 2, 12, 1, 10*time.Second); err != nil {
		t.Errorf("porcupine: %v", err)
	}
}

func TestChecksBite(t *testing.T) {
	ctx := context.Background()
	if _, err := RunDiff(ctx, wrongInherit{&implQueues{c: 4}}, 20, 100, 1); err == nil || !strings.Contains(err.Error(), "runqget") {
		t.Errorf("diff on a runqget with a wrong inheritTime: %v, want a runqget failure", err)
	}
	if _, err := RunRapid(wrongInherit{&implQueues{c: 4}}, 50, 100, 1); err == nil || !strings.Contains(err.Error(), "runqget") {
		t.Errorf("rapid on a runqget with a wrong inheritTime: %v, want a runqget failure", err)
	}
	if _, err := Stress(ctx, dropsPut{&implQueues{c: 4}}, 1, 20000, 1); err == nil || !strings.Contains(err.Error(), "taken 0 times") {
		t.Errorf("stress on a queue that loses Gs: %v, want a lost G", err)
	}
	if _, err := Lin(ctx, alwaysEmpty{&implQueues{c: 4}}, 50, 2, 12, 1, 10*time.Second); err == nil || !strings.Contains(err.Error(), "not linearizable") {
		t.Errorf("porcupine on a runqempty that is always true: %v, want not linearizable", err)
	}
}

// The explorer needs impl's yield points (-tags gmpcheck_hooks).
func TestExploreOnImpl(t *testing.T) {
	if !impl.HooksEnabled() {
		t.Skip("impl's yield points are compiled out; run with -tags gmpcheck_hooks")
	}
	count, err := Explore(context.Background(), &implQueues{c: 4}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	// impl's queue, like go1.18+'s, has 1,290 classes in the built-in
	// scenarios; stale-grab adds its own.
	if !strings.Contains(count, "9 scenarios") {
		t.Errorf("explored %s, want 9 scenarios", count)
	}
	t.Log(count)
}

// within tells a function that returns from one that never does (a
// livelocked queue operation), so the stress fails instead of hanging.
func TestWithin(t *testing.T) {
	if !within(time.Minute, func() {}) {
		t.Fatal("a function that returns at once was reported stuck")
	}
	block := make(chan struct{})
	defer close(block) // let the abandoned goroutine end with the test
	if within(10*time.Millisecond, func() { <-block }) {
		t.Fatal("a function that never returns was reported finished")
	}
}
