package conform

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImplDiag is a manual diagnostic: CONFORM_DIAG=procs,seeds[,first]
// records and checks seeds runs from seed first (default 100) with the
// options of the command (ImplRun.Options), and writes every run not
// accepted to $CONFORM_DUMP (default /tmp) as conform-pP-sS.json (for
// TestImplReplay) and .txt (one event a line).
func TestImplDiag(t *testing.T) {
	procs, n, first, dir := diagArgs(t, "CONFORM_DIAG", 100)
	counts := map[Verdict]int{}
	for seed := first; seed < first+uint64(n); seed++ {
		r := ImplRun{Procs: procs, Seed: seed}
		evs, q, err := r.Record(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res := CheckImpl(context.Background(), evs, r.Options(q))
		counts[res.Verdict]++
		if res.Verdict != Accepted {
			t.Logf("procs %d seed %d: %v", procs, seed, res)
			var b strings.Builder
			for i, e := range evs {
				fmt.Fprintf(&b, "%d %v\n", i, e)
			}
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("conform-p%d-s%d.txt", procs, seed)), []byte(b.String()), 0o644)
			var ev strings.Builder
			WriteEvents(&ev, evs)
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("conform-p%d-s%d.events", procs, seed)), []byte(ev.String()), 0o644)
		} else {
			t.Logf("procs %d seed %d: %v", procs, seed, res)
		}
	}
	t.Log(counts)
}

// TestImplReplay re-checks a dumped trace: CONFORM_REPLAY=procs,file
// (.events as WriteEvents writes it, or .json).
func TestImplReplay(t *testing.T) {
	v := os.Getenv("CONFORM_REPLAY")
	if v == "" {
		t.Skip()
	}
	ps, file, _ := strings.Cut(v, ",")
	procs, _ := strconv.Atoi(ps)
	evs, err := readTraceFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("CONFORM_SAVE"); out != "" {
		// Keep the trace as WriteEvents' text (testdata/impl).
		var b strings.Builder
		if err := WriteEvents(&b, evs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := ImplRun{Procs: procs}
	if os.Getenv("CONFORM_FRONT") != "" {
		debugFront = func(c *checker, taken int, front []config, fails []stepFail) {
			t.Logf("level %d: %d configs", taken, len(front))
			for _, cf := range front {
				var cur []string
				for a, j := range cf.cur {
					if int(j) < len(c.obs) {
						cur = append(cur, fmt.Sprintf("a%d@%d", c.actors[a], c.obs[j].pos))
					}
				}
				t.Logf("  next %v", cur)
			}
			for _, f := range fails {
				t.Logf("  fail %s", f.msg)
			}
		}
		defer func() { debugFront = nil }()
	}
	res := CheckImpl(context.Background(), evs, r.Options(true))
	t.Log(res)
}

func TestImplObsDebug(t *testing.T) {
	v := os.Getenv("CONFORM_OBS")
	if v == "" {
		t.Skip()
	}
	file, ps, _ := strings.Cut(v, ",")
	js, _ := os.ReadFile(file)
	var evs []impl.Event
	json.Unmarshal(js, &evs)
	c := &checker{}
	c.observe(evs)
	for _, o := range c.obs {
		if fmt.Sprint(o.pos) == ps || strings.Contains(ps, fmt.Sprintf(",%d,", o.pos)) {
			t.Logf("%+v", o)
		}
	}
}

// readTraceFile reads a recorded run: WriteEvents' text, or a JSON array
// of impl.Event (.json).
func readTraceFile(file string) ([]impl.Event, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(file, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		if b, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
		file = strings.TrimSuffix(file, ".gz")
	}
	if strings.HasSuffix(file, ".json") {
		var evs []impl.Event
		err := json.Unmarshal(b, &evs)
		return evs, err
	}
	return ReadEvents(strings.NewReader(string(b)))
}

// TestImplFind is a manual tool that finds regression runs for
// testdata/impl: CONFORM_FIND=procs,n[,first] records n runs from seed
// first (default 1000) and writes to $CONFORM_DUMP (default /tmp), as
// pP-sS-WHY.events, every run that shows one of the behaviours the
// recorded runs keep: retake-exit (a syscalling M leaves its syscall
// between sysmon's Retake of its P and the end of the RetakeHandoff's
// handoffp, its EvHandoff), steal-refill
// (a thief takes a victim's runnext after its ring read empty, with a G
// put on that ring in between), startm-move (the checker parks a startm
// until a busy M's stopm), or a run accepted through a filter (WHY: the
// filter's name).
func TestImplFind(t *testing.T) {
	procs, n, first, dir := diagArgs(t, "CONFORM_FIND", 1000)
	for seed := first; seed < first+uint64(n); seed++ {
		r := ImplRun{Procs: procs, Seed: seed}
		evs, q, err := r.Record(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		moves := 0
		debugMoves = &moves
		res := CheckImpl(context.Background(), evs, r.Options(q))
		debugMoves = nil
		if res.Verdict != Accepted {
			t.Logf("procs %d seed %d: %v", procs, seed, res.Verdict)
			continue
		}
		whys := behaviours(evs)
		if moves > 0 {
			whys = append(whys, "startm-move")
		}
		for name := range res.Filtered {
			whys = append(whys, name)
		}
		for _, why := range whys {
			var ev strings.Builder
			WriteEvents(&ev, evs)
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%d-s%d-%s.events", procs, seed, why)), []byte(ev.String()), 0o644)
			t.Logf("procs %d seed %d: %s", procs, seed, why)
		}
	}
}

// behaviours names what TestImplFind looks for in a run's events.
func behaviours(evs []impl.Event) []string {
	var out []string
	retaken := map[int32]uint64{} // P -> its syscalling G, between Retake and RetakeHandoff
	exited := false
	emptyRing := map[int32]int32{} // thief M -> victim P, after StealEmptyRing
	refilled := map[int32]bool{}   // thief M: a G went onto its victim's ring since
	refill := false
	for _, e := range evs {
		switch {
		case e.Kind == impl.EvAction && e.Action == spec.ActRetake:
			retaken[e.P] = e.G
		case e.Kind == impl.EvHandoff:
			delete(retaken, e.P) // the end of its handoffp
		case e.Kind == impl.EvAction && (e.Action == spec.ActExitSyscallNoP || e.Action == spec.ActExitSyscallIdleP):
			for _, g := range retaken {
				exited = exited || g == e.G
			}
		case e.Kind == impl.EvAction && e.Action == spec.ActStealEmptyRing:
			emptyRing[e.M], refilled[e.M] = e.Victim, false
		case e.Kind == impl.EvRunqPut && !e.On:
			for m, v := range emptyRing {
				if v == e.P {
					refilled[m] = true
				}
			}
		case e.Kind == impl.EvAction && e.Action == spec.ActStealRunnext:
			refill = refill || refilled[e.M]
			delete(emptyRing, e.M)
		case e.Kind == impl.EvAction && e.M >= 0:
			delete(emptyRing, e.M)
		}
	}
	if exited {
		out = append(out, "retake-exit")
	}
	if refill {
		out = append(out, "steal-refill")
	}
	return out
}

// diagArgs reads a manual diagnostic's "procs[,runs[,first seed]]" from
// the environment variable env (skipping the test when it is unset; runs
// default 1, the first seed firstSeed) and its dump directory,
// $CONFORM_DUMP or /tmp.
func diagArgs(t *testing.T, env string, firstSeed uint64) (procs, n int, first uint64, dir string) {
	v := os.Getenv(env)
	if v == "" {
		t.Skip(env + " not set: a manual diagnostic")
	}
	f := strings.Split(v, ",")
	var err error
	if procs, err = strconv.Atoi(f[0]); err != nil || procs < 1 {
		t.Fatalf("%s=%q: procs %q is not a positive number", env, v, f[0])
	}
	n, first = 1, firstSeed
	if len(f) > 1 {
		if n, err = strconv.Atoi(f[1]); err != nil || n < 1 {
			t.Fatalf("%s=%q: runs %q is not a positive number", env, v, f[1])
		}
	}
	if len(f) > 2 {
		if first, err = strconv.ParseUint(f[2], 10, 64); err != nil {
			t.Fatalf("%s=%q: first seed %q: %v", env, v, f[2], err)
		}
	}
	if dir = os.Getenv("CONFORM_DUMP"); dir == "" {
		dir = "/tmp"
	}
	return procs, n, first, dir
}
