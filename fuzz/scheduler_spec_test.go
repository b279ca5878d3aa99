package fuzz

import (
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
)

// maxSpecSteps bounds one FuzzSchedulerSpec trace.
const maxSpecSteps = 200

// byteChooser makes impl.CheckAgainstSpec's choices from fuzz bytes; once
// they run out every choice is 0, so every input is a complete trace.
type byteChooser struct{ b []byte }

func (c *byteChooser) Intn(n int, _ string) int {
	if n <= 1 || len(c.b) == 0 {
		return 0
	}
	v := int(c.b[0])
	c.b = c.b[1:]
	if n > 256 && len(c.b) > 0 {
		v = v<<8 | int(c.b[0])
		c.b = c.b[1:]
	}
	return v % n
}

// FuzzSchedulerSpec reads bounds (Ps, Gs, ring capacity, spawn budget,
// schedtick period, syscalls) and then a trace from the bytes: at every
// step, which of the actions the spec enables is taken. Goroutine and
// sysmon actions are scripted into the real scheduler's deterministic
// driver; for a scheduler step the bytes only say which M moves and the
// real decision code chooses what it does. After every step the whole
// scheduler state (G statuses, Ps with their run queues and schedtick, Ms,
// the global queue, npidle, nmspinning) must equal the spec's, and the
// action the real code took must be one the spec enables.
//
// FuzzScheduler (scheduler_test.go) checks the driver's structural
// invariants on workloads that the spec's bounds do not limit; this target
// is the step-by-step comparison with spec/. Its seeds are in
// testdata/fuzz/FuzzSchedulerSpec.
func FuzzSchedulerSpec(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := impl.CheckAgainstSpec(&byteChooser{b: data}, maxSpecSteps); err != nil {
			t.Fatal(err)
		}
	})
}
