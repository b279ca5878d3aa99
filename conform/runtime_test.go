package conform

import (
	"bytes"
	"context"
	"os"
	"runtime"
	rtrace "runtime/trace"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/exp/trace"

	"github.com/gmpcheck/gmpcheck/spec"
)

// inProcess are workloads traced in the test's own process (no build):
// the corpus's triggers in small.
var inProcess = map[string]func(){
	"pingpong": func() {
		ping, pong := make(chan int), make(chan int)
		go func() {
			for v := range ping {
				pong <- v
			}
		}()
		for i := range 300 {
			ping <- i
			<-pong
		}
		close(ping)
	},
	"spawn-gosched": func() {
		var wg sync.WaitGroup
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					runtime.Gosched()
				}
			}()
		}
		wg.Wait()
	},
	"syscall": func() {
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					ts := syscall.Timespec{Nsec: 2_000_000}
					syscall.Nanosleep(&ts, nil)
				}
			}()
		}
		wg.Wait()
	},
	"timers": func() {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(100*(i+1)) * time.Microsecond)
			}()
		}
		wg.Wait()
	},
}

// traceOf runs f with the tracer on at GOMAXPROCS procs and returns the
// trace.
func traceOf(t *testing.T, procs int, f func()) []byte {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var buf bytes.Buffer
	if err := rtrace.Start(&buf); err != nil {
		t.Skipf("tracer busy: %v", err)
	}
	f()
	rtrace.Stop()
	return buf.Bytes()
}

// TestRuntimeTraces checks in-process traces of the corpus's triggers at
// GOMAXPROCS 1, 2, 4: each accepted.
func TestRuntimeTraces(t *testing.T) {
	sequentialUnderRace(t)
	for name, f := range inProcess {
		for _, procs := range []int{1, 2, 4} {
			tr := traceOf(t, procs, f)
			res := CheckRuntime(context.Background(), bytes.NewReader(tr))
			if res.Verdict != Accepted {
				t.Errorf("%s at %d: %v", name, procs, res)
				continue
			}
			t.Logf("%s at %d: %v; %s; filters: %s", name, procs, res, Summary(res.Actions), Summary(res.Filtered))
		}
	}
}

// rtMutations alter the observations of an accepted trace, each the
// footprint of a scheduler bug; the checker must reject every one.
var rtMutations = []struct {
	name string
	f    func(obs []Obs) bool
}{
	{"g-runs-without-p", func(obs []Obs) bool {
		for i, o := range obs {
			if o.From == spec.GRunnable && o.To == spec.GRunning && o.G != trace.NoGoroutine {
				obs[i].CtxP = trace.NoProc
				return true
			}
		}
		return false
	}},
	{"two-gs-on-one-p", func(obs []Obs) bool {
		type gm struct {
			g trace.GoID
			m trace.ThreadID
		}
		running := map[trace.ProcID]gm{}
		for i, o := range obs {
			if o.G == trace.NoGoroutine {
				delete(running, o.P)
				continue
			}
			if o.From == spec.GRunning {
				delete(running, o.CtxP)
			}
			if o.From == spec.GRunnable && o.To == spec.GRunning {
				for p, x := range running {
					if p != o.CtxP && x.g != o.G {
						// the same M and P as a G that still runs there
						obs[i].CtxP, obs[i].M = p, x.m
						return true
					}
				}
				running[o.CtxP] = gm{o.G, o.M}
			}
		}
		return false
	}},
	{"park-by-another-g", func(obs []Obs) bool {
		for i, o := range obs {
			// A user G's park: the runtime's own Gs' transitions that no
			// spec action explains are accepted by the filter
			// system-goroutine (under -race a test process's g4 parked
			// in a sleep was one, and the mutation was accepted).
			if o.From == spec.GRunning && o.To == spec.GWaiting && o.CtxG == o.G && !o.System {
				obs[i].CtxG = o.G + 1000
				return true
			}
		}
		return false
	}},
	{"created-by-a-g-not-running", func(obs []Obs) bool {
		for i, o := range obs {
			if o.From == spec.GIdle && o.To == spec.GRunnable && o.CtxG != trace.NoGoroutine && o.Action == "" && !o.System {
				obs[i].CtxG = o.G // by itself, which does not exist yet
				return true
			}
		}
		return false
	}},
	{"syscall-exit-fast-after-retake", func(obs []Obs) bool {
		for i, o := range obs {
			if o.From == spec.GSyscall && o.To == spec.GRunnable {
				obs[i].To = spec.GRunning
				return true
			}
		}
		return false
	}},
	{"p-released-under-a-running-g", func(obs []Obs) bool {
		for i, o := range obs {
			if o.From == spec.GRunnable && o.To == spec.GRunning && o.CtxP != trace.NoProc && o.G != trace.NoGoroutine {
				rel := Obs{Index: o.Index, G: trace.NoGoroutine, P: o.CtxP, PFrom: trace.ProcRunning, PTo: trace.ProcIdle, CtxG: o.G, CtxP: o.CtxP, M: o.M}
				copy(obs[i+2:], obs[i+1:len(obs)-1])
				obs[i+1] = rel
				return true
			}
		}
		return false
	}},
}

// mutable reports whether mutation f applies to some trace (on a copy).
func mutable(f func([]Obs) bool, traces [][]Obs) bool {
	for _, obs := range traces {
		if f(append([]Obs(nil), obs...)) {
			return true
		}
	}
	return false
}

// TestRuntimeCheckBites: every mutation of accepted real traces is
// rejected.
func TestRuntimeCheckBites(t *testing.T) {
	sequentialUnderRace(t)
	var traces [][]Obs
	for _, procs := range []int{1, 2} { // at 1 every syscall's P is retaken
		for _, name := range []string{"pingpong", "syscall", "spawn-gosched", "timers"} {
			tr := traceOf(t, procs, inProcess[name])
			obs, _, err := MapTrace(context.Background(), bytes.NewReader(tr))
			if err != nil {
				t.Fatal(err)
			}
			if res := CheckObservations(obs); res.Verdict != Accepted {
				t.Fatalf("%s: %v", name, res)
			}
			traces = append(traces, obs)
		}
	}
	for _, m := range rtMutations {
		// A mutation needs a pattern that a loaded machine may leave out
		// of the fixed traces (two Ps running Gs at once): record more
		// until one has it.
		for extra := 0; extra < 10 && !mutable(m.f, traces); extra++ {
			tr := traceOf(t, 2, inProcess["spawn-gosched"])
			obs, _, err := MapTrace(context.Background(), bytes.NewReader(tr))
			if err != nil {
				t.Fatal(err)
			}
			traces = append(traces, obs)
		}
		tried := false
		for _, obs := range traces {
			mo := append([]Obs(nil), obs...)
			if !m.f(mo) {
				continue
			}
			tried = true
			res := CheckObservations(mo)
			if res.Verdict != Rejected {
				t.Errorf("%s: %v, want rejected", m.name, res.Verdict)
				for i := range mo {
					if mo[i] != obs[i] {
						t.Logf("mutated %v (was %v)", mo[i], obs[i])
						for j := max(0, i-15); j < i; j++ {
							t.Logf("  %v", mo[j])
						}
						break
					}
				}
			} else {
				t.Logf("%s: rejected at %v: %s", m.name, *res.At, res.Reason)
			}
			break
		}
		if !tried {
			t.Errorf("%s: no trace to mutate", m.name)
		}
	}
}

// TestCheckTraceFile checks a trace file recorded elsewhere, as
// 'gmpcheck conform FILE' does.
func TestCheckTraceFile(t *testing.T) {
	sequentialUnderRace(t)
	tr := traceOf(t, 2, inProcess["pingpong"])
	path := t.TempDir() + "/x.trace"
	if err := os.WriteFile(path, tr, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := CheckFile(context.Background(), path)
	if err != nil || res.Verdict != Accepted {
		t.Fatalf("%v %v", res, err)
	}
	if err := os.WriteFile(path, []byte("go 1.26 trace\x00\x00\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, _ := CheckFile(context.Background(), path); res.Verdict != Inconclusive {
		t.Errorf("garbage: %v, want inconclusive", res)
	}
}
