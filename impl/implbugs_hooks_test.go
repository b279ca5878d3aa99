//go:build gmpcheck_hooks

package impl

import (
	"testing"
	"time"
)

// TestHooksImplBugsCaught is the self-test of the runtime-style tests of
// stop-the-world, procresize and timers: with each seeded mechanism bug
// (ImplBugs) the test written to catch it must fail, reporting the hang
// or the loss as an error within its (short, here) time limit.
func TestHooksImplBugsCaught(t *testing.T) {
	catch := map[ImplBug]func(Config) error{
		ImplBugProcresizeDropsRunq: func(cfg Config) error {
			cfg.Procs, cfg.QueueCapacity, cfg.ForcePreempt = 4, 8, 200*time.Microsecond
			return setProcsUnderLoad(cfg, []int{4, 1}, 3*time.Second)
		},
		ImplBugGCStopMNoCount: func(cfg Config) error {
			cfg.Procs, cfg.ForcePreempt = 4, 200*time.Microsecond
			return stopStartCycles(cfg, 20, time.Second)
		},
		ImplBugTimersNotStolen: func(cfg Config) error {
			return timerStolen(cfg, time.Second)
		},
		ImplBugHandoffIgnoresPoller: handoffKeepsPoller,
	}
	for _, b := range ImplBugs() {
		t.Run(b.String(), func(t *testing.T) {
			f := catch[b]
			if f == nil {
				t.Fatalf("no test is meant to catch %v", b)
			}
			var cfg Config
			if err := cfg.SetImplBug(b); err != nil {
				t.Fatal(err)
			}
			err := f(cfg)
			if err == nil {
				t.Fatalf("seeded bug %v: its test passed; it must fail", b)
			}
			t.Logf("seeded bug %v caught: %v", b, err)
		})
	}
}

// TestHooksImplBugNames: the names parse back.
func TestHooksImplBugNames(t *testing.T) {
	for _, b := range ImplBugs() {
		if got, err := ParseImplBug(b.String()); err != nil || got != b {
			t.Errorf("ParseImplBug(%q) = %v, %v", b, got, err)
		}
	}
	if _, err := ParseImplBug("nope"); err == nil {
		t.Error("ParseImplBug of an unknown name succeeded")
	}
}
