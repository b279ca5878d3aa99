package conform

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"github.com/gmpcheck/gmpcheck/impl"
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
	v := os.Getenv("CONFORM_DIAG")
	if v == "" {
		t.Skip()
	}
	f := strings.Split(v, ",")
	procs, _ := strconv.Atoi(f[0])
	n := 1
	if len(f) > 1 {
		n, _ = strconv.Atoi(f[1])
	}
	first := uint64(100)
	if len(f) > 2 {
		first, _ = strconv.ParseUint(f[2], 10, 64)
	}
	dir := os.Getenv("CONFORM_DUMP")
	if dir == "" {
		dir = "/tmp"
	}
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
