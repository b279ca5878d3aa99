package impl

import (
	"errors"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"go.uber.org/goleak"
)

func TestReadyMisuse(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	s := newTestSched(t, Config{Procs: 2})
	var slot parkSlot
	errs := make(chan error, 8)
	s.Go(func(tk Task) { slot.park(tk, "test") })
	s.Go(func(tk Task) {
		// Ready of itself: running, not waiting.
		errs <- tk.Ready(tk)
		p := slot.await(tk)
		errs <- tk.Ready(p) // ok
		errs <- tk.Ready(p) // double Ready: now runnable or running
	})
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	close(errs)
	var got []error
	for e := range errs {
		got = append(got, e)
	}
	if len(got) != 3 || got[0] == nil || got[1] != nil || got[2] == nil {
		t.Fatalf("errors %v, want [bad, nil, bad]", got)
	}
	for _, e := range []error{got[0], got[2]} {
		if !strings.HasPrefix(e.Error(), "bad g->status in ready") {
			t.Errorf("error %q lacks the runtime's message", e)
		}
	}
	// Ready of an exited G from outside.
	if err := s.Ready(slot.get()); err == nil || !strings.Contains(err.Error(), "dead") {
		t.Fatalf("outside Ready of a dead G: %v", err)
	}
	if err := s.Ready(nil); err == nil {
		t.Fatal("Ready(nil) succeeded")
	}
	s.Shutdown()
	if err := s.Go(func(Task) {}); !errors.Is(err, ErrShutdown) {
		t.Fatalf("Go after Shutdown: %v", err)
	}
	if err := s.Ready(slot.get()); !errors.Is(err, ErrShutdown) {
		t.Fatalf("Ready after Shutdown: %v", err)
	}
	if err := s.Go(nil); err == nil {
		t.Fatal("Go(nil) succeeded")
	}
}

func TestTaskUseAfterExitPanics(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := New(Config{Procs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	var stale Task
	s.Go(func(tk Task) { stale = tk })
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "not running") {
			t.Fatalf("Gosched on an exited G: recovered %v", r)
		}
	}()
	stale.Gosched()
}

func TestDeadlockAllParked(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, procs := range []int{1, 4} {
		s, err := New(Config{Procs: procs})
		if err != nil {
			t.Fatal(err)
		}
		// A ring of Gs each parking after readying nobody: all asleep.
		for range 10 {
			s.Go(func(tk Task) {
				tk.Go(func(tk Task) { tk.Park("chan receive (nil chan)") })
				tk.Park("select (no cases)")
			})
		}
		if err := s.Wait(); !errors.Is(err, ErrDeadlock) {
			t.Fatalf("procs=%d: Wait = %v", procs, err)
		}
		if s.Live() != 20 {
			t.Fatalf("live %d", s.Live())
		}
		s.Shutdown()
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Procs: -1}, {QueueCapacity: 3}, {QueueCapacity: 512}, {Procs: 4, MaxMs: 2},
		{SchedTickPeriod: -1}, {SchedTrace: 1}, {Go: spec.GoVersion(99)},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

// TestConfigSetBug: a seeded scheduler bug can be switched on only in the
// instrumented build, and only by a name the spec knows.
func TestConfigSetBug(t *testing.T) {
	var c Config
	if err := c.SetBug(spec.BugNone); err != nil {
		t.Errorf("SetBug(BugNone) = %v", err)
	}
	err := c.SetBug(spec.BugNo61)
	if HooksEnabled() && err != nil {
		t.Errorf("instrumented build: SetBug(%v) = %v", spec.BugNo61, err)
	}
	if !HooksEnabled() && err == nil {
		t.Errorf("default build: SetBug(%v) accepted; seeded bugs must need -tags gmpcheck_hooks", spec.BugNo61)
	}
	if err := c.SetBug(spec.Bug(200)); err == nil {
		t.Error("SetBug accepted an unknown bug")
	}
}
