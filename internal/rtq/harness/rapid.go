package harness

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

var initTesting sync.Once

// rapidChooser draws the differential's choices from rapid.
type rapidChooser struct{ t *rapid.T }

func (c rapidChooser) IntN(n int) int { return rapid.IntRange(0, n-1).Draw(c.t, "choice") }

// recTB is the rapid.TB of a check run outside go test: it keeps what rapid
// reports and turns a fatal report into a panic that RunRapid recovers.
type recTB struct {
	failed bool
	log    strings.Builder
}

type rapidFatal struct{}

func (r *recTB) Helper()                   {}
func (r *recTB) Name() string              { return "rtq-rapid" }
func (r *recTB) Logf(f string, a ...any)   { fmt.Fprintf(&r.log, f+"\n", a...) }
func (r *recTB) Log(a ...any)              { fmt.Fprintln(&r.log, a...) }
func (r *recTB) Skipf(f string, a ...any)  { r.Logf("skip: "+f, a...); r.FailNow() }
func (r *recTB) Skip(a ...any)             { r.Log(append([]any{"skip:"}, a...)...); r.FailNow() }
func (r *recTB) SkipNow()                  { r.FailNow() }
func (r *recTB) Errorf(f string, a ...any) { r.failed = true; r.Logf(f, a...) }
func (r *recTB) Error(a ...any)            { r.failed = true; r.Log(a...) }
func (r *recTB) Fatalf(f string, a ...any) { r.Errorf(f, a...); r.FailNow() }
func (r *recTB) Fatal(a ...any)            { r.Error(a...); r.FailNow() }
func (r *recTB) FailNow()                  { r.failed = true; panic(rapidFatal{}) }
func (r *recTB) Fail()                     { r.failed = true }
func (r *recTB) Failed() bool              { return r.failed }

// RunRapid runs the differential as a rapid property: checks random
// sequences of up to steps operations, each drawn by rapid, which on a
// failure shrinks the sequence and reports the shortest it found. No fail
// file is written.
func RunRapid(q Queues, checks, steps int, seed uint64) (n int, err error) {
	// rapid reads testing's -short: register testing's flags and mark the
	// (empty) command line parsed, as a test binary would.
	initTesting.Do(func() {
		testing.Init()
		_ = flag.CommandLine.Parse(nil)
	})
	for name, v := range map[string]string{"rapid.checks": strconv.Itoa(checks), "rapid.nofailfile": "true", "rapid.seed": strconv.FormatUint(seed, 10)} {
		if err := flag.CommandLine.Set(name, v); err != nil {
			return 0, fmt.Errorf("setting %s: %w", name, err)
		}
	}
	tb := &recTB{}
	func() {
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(rapidFatal); !ok {
					err = fmt.Errorf("panic: %v", v)
				}
			}
		}()
		rapid.Check(tb, func(t *rapid.T) {
			n++
			d, err := NewDiff(q)
			if err != nil {
				t.Fatal(err)
			}
			k := rapid.IntRange(1, steps).Draw(t, "steps")
			for i := range k {
				name, err := d.Step(rapidChooser{t})
				if err != nil {
					t.Fatalf("capacity %d, step %d (%s): %v", q.Cap(), i, name, err)
				}
			}
		})
	}()
	if err == nil && tb.failed {
		err = errors.New(strings.TrimSpace(tb.log.String()))
	}
	return n, err
}
