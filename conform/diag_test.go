package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/gmpcheck/gmpcheck/impl"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImplDiag is a manual diagnostic: CONFORM_DIAG=procs,seeds.
func TestImplDiag(t *testing.T) {
	v := os.Getenv("CONFORM_DIAG")
	if v == "" {
		t.Skip()
	}
	ps, ns, _ := strings.Cut(v, ",")
	procs, _ := strconv.Atoi(ps)
	n, _ := strconv.Atoi(ns)
	counts := map[Verdict]int{}
	for seed := uint64(100); seed < 100+uint64(n); seed++ {
		r := ImplRun{Procs: procs, Seed: seed}
		evs, q, err := r.Record(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res := CheckImpl(context.Background(), evs, ImplOptions{Bounds: r.Bounds(), Quiescent: q, LongSyscallRetake: true, RunnextKick: true, StaleHandoff: true, LatePidleput: true, MaxCandidates: 1 << 16})
		counts[res.Verdict]++
		if res.Verdict != Accepted {
			t.Logf("procs %d seed %d: %v", procs, seed, res)
			var b strings.Builder
			for i, e := range evs {
				fmt.Fprintf(&b, "%d %v\n", i, e)
			}
			os.WriteFile(fmt.Sprintf("/tmp/conform-p%d-s%d.txt", procs, seed), []byte(b.String()), 0o644)
			js, _ := json.Marshal(evs)
			os.WriteFile(fmt.Sprintf("/tmp/conform-p%d-s%d.json", procs, seed), js, 0o644)
		} else {
			t.Logf("procs %d seed %d: %v", procs, seed, res)
		}
	}
	t.Log(counts)
}

// TestImplReplay re-checks a dumped trace: CONFORM_REPLAY=procs,file.json.
func TestImplReplay(t *testing.T) {
	v := os.Getenv("CONFORM_REPLAY")
	if v == "" {
		t.Skip()
	}
	ps, file, _ := strings.Cut(v, ",")
	procs, _ := strconv.Atoi(ps)
	js, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var evs []impl.Event
	if err := json.Unmarshal(js, &evs); err != nil {
		t.Fatal(err)
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
	res := CheckImpl(context.Background(), evs, ImplOptions{Bounds: r.Bounds(), Quiescent: true, LongSyscallRetake: true, RunnextKick: true, StaleHandoff: true, LatePidleput: true, MaxCandidates: 1 << 16})
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
