package linearize

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
)

// TestRealHistoriesLinearizable records rounds of the real queue for every
// capacity and thief count the issue names and checks each, including
// rounds that overflow to the global queue.
func TestRealHistoriesLinearizable(t *testing.T) {
	rounds := 150
	if testing.Short() {
		rounds = 30
	}
	for _, capacity := range []int{4, 8, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			t.Run(fmt.Sprintf("cap%d/thieves%d", capacity, thieves), func(t *testing.T) {
				rep, err := Run(context.Background(), RunConfig{
					Config: Config{Capacity: capacity, Thieves: thieves, Ops: 40},
					Rounds: rounds,
					Seed:   uint64(capacity*10 + thieves),
					HTML:   t.TempDir() + "/violation.html",
				})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Result != porcupine.Ok {
					t.Fatalf("%v\nvisualization: %s\nhistory:\n%s", rep, rep.HTML, formatHistory(rep.History))
				}
				if rep.Rounds != rounds || rep.Ops < rounds*40 {
					t.Fatalf("checked %d rounds / %d ops, want %d rounds of at least 40 ops", rep.Rounds, rep.Ops, rounds)
				}
				// One round in sixteen overflows during its prefill,
				// whatever the interleaving; with these seeds at least one
				// of the first 30 rounds does, in every configuration.
				if rep.Overflowed == 0 {
					t.Fatalf("no round overflowed to the global queue: runqputslow went unchecked")
				}
				t.Log(rep)
			})
		}
	}
}

// TestRunCutShortIsInconclusive: a run whose context ends first reports
// Unknown, never Ok.
func TestRunCutShortIsInconclusive(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	rep, err := Run(ctx, RunConfig{Config: Config{Capacity: 8, Thieves: 2, Ops: 40}, Rounds: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result != porcupine.Unknown || rep.Rounds >= 1<<30 {
		t.Fatalf("a run cut short: %v", rep)
	}
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if rep, err := Run(done, RunConfig{Config: Config{Capacity: 4, Thieves: 1, Ops: 10}, Rounds: 5}); err != nil || rep.Result != porcupine.Unknown {
		t.Fatalf("a run with a cancelled context: %v %v", rep, err)
	}
}

func TestBadConfigs(t *testing.T) {
	for _, c := range []Config{
		{Capacity: 3, Thieves: 1, Ops: 10},
		{Capacity: 8, Thieves: 0, Ops: 10},
		{Capacity: 8, Thieves: MaxThieves + 1, Ops: 10},
		{Capacity: 8, Thieves: 1, Ops: 0},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
		if _, err := RecordRound(c, 1); err == nil {
			t.Errorf("RecordRound(%+v) accepted", c)
		}
		if _, err := Run(context.Background(), RunConfig{Config: c, Rounds: 1}); err == nil {
			t.Errorf("Run(%+v) accepted", c)
		}
	}
	if _, err := Run(context.Background(), RunConfig{Config: Config{Capacity: 8, Thieves: 1, Ops: 1}}); err == nil {
		t.Error("Run with 0 rounds accepted")
	}
	err := Config{Capacity: 8, Thieves: 1, Ops: 10, Perturb: true}.Validate()
	if impl.HooksEnabled() != (err == nil) {
		t.Errorf("perturbation with hooks %v: %v", impl.HooksEnabled(), err)
	}
}

func TestNewRecorderRejectsBadThieves(t *testing.T) {
	glob := impl.NewGlobalRunq()
	mk := func(c int) *impl.Runq {
		q, err := impl.NewRunq(c, glob)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	v, th := mk(8), mk(8)
	full := mk(8)
	full.Put(impl.NewG(1), false)
	for name, thieves := range map[string][]*impl.Runq{
		"nil thief":       {nil},
		"victim as thief": {v},
		"other capacity":  {mk(4)},
		"non-empty":       {full},
		"twice":           {th, th},
	} {
		if _, err := NewRecorder(v, thieves...); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := NewRecorder(nil); err == nil {
		t.Error("nil victim accepted")
	}
	if _, err := NewRecorder(v, th); err != nil {
		t.Error(err)
	}
}

// TestRecorderStealBatch: a steal's batch is the thief's ring followed by
// the G it returned, in the victim's order, and the thief's queue is empty
// afterwards.
func TestRecorderStealBatch(t *testing.T) {
	glob := impl.NewGlobalRunq()
	v, _ := impl.NewRunq(8, glob)
	th, _ := impl.NewRunq(8, glob)
	r, err := NewRecorder(v, th)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		r.Put(impl.NewG(uint64(i + 1)))
	}
	got := r.Steal(1, false)
	if len(got) != 3 || got[0].ID() != 1 || got[1].ID() != 2 || got[2].ID() != 3 {
		t.Fatalf("batch %v, want g1 g2 g3", got)
	}
	if next, ring := th.Contents(); next != nil || len(ring) != 0 {
		t.Fatalf("thief's queue not emptied: %v %v", next, ring)
	}
	h := r.History()
	last := h[len(h)-1]
	if out := last.Output.(Output); fmt.Sprint(out.Gs) != "[1 2 3]" || last.ClientId != 1 || last.Call >= last.Return {
		t.Fatalf("logged %+v", last)
	}
	if res := mustCheck(t, 8, h); res != porcupine.Ok {
		t.Fatalf("%v\n%s", res, formatHistory(h))
	}
}

// TestVisualizeWritesHTML: an Illegal history gets porcupine's HTML file.
func TestVisualizeWritesHTML(t *testing.T) {
	c := HandWritten()[0]
	if c.Legal {
		t.Fatal("the first hand-written case should be illegal")
	}
	chk, _ := NewChecker(c.Capacity)
	path := filepath.Join(t.TempDir(), "v.html")
	res, err := chk.Visualize(c.History, 0, path)
	if err != nil || res != porcupine.Illegal {
		t.Fatalf("%v %v", res, err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(b), "<html") {
		t.Fatalf("visualization %s: %v (%d bytes)", path, err, len(b))
	}
	if _, err := chk.Visualize(c.History, 0, filepath.Join(t.TempDir(), "no", "such", "dir", "v.html")); err == nil {
		t.Error("writing to a missing directory succeeded")
	}
}

// TestRunPhaseReportsPanics: a panic in the queue's code becomes a
// RoundError naming the phase, not a crash.
func TestRunPhaseReportsPanics(t *testing.T) {
	var abort atomic.Bool
	err := runPhase(&abort, time.Minute, "owner and thieves", func() {}, func() { panic("runqputslow: queue is not full") })
	var re *RoundError
	if !errors.As(err, &re) || re.Stuck || re.Panic == nil || !strings.Contains(err.Error(), "queue is not full") {
		t.Fatalf("got %v", err)
	}
	if err := runPhase(&abort, time.Minute, "final drain", func() {}); err != nil {
		t.Fatal(err)
	}
}

// TestDefaultHTMLPaths: runs of different configurations do not overwrite
// each other's visualization.
func TestDefaultHTMLPaths(t *testing.T) {
	rc := RunConfig{Config: Config{Capacity: 4, Thieves: 2, Ops: 40}, Seed: 1}
	seen := map[string]bool{defaultHTMLPath(rc, 0): true}
	for _, other := range []RunConfig{
		{Config: Config{Capacity: 8, Thieves: 2, Ops: 40}, Seed: 1},
		{Config: Config{Capacity: 4, Thieves: 3, Ops: 40}, Seed: 1},
		{Config: Config{Capacity: 4, Thieves: 2, Ops: 40}, Seed: 2},
	} {
		p := defaultHTMLPath(other, 0)
		if seen[p] {
			t.Errorf("%+v: path %s taken", other, p)
		}
		seen[p] = true
	}
	if p := defaultHTMLPath(rc, 1); seen[p] || filepath.Dir(p) != os.TempDir() {
		t.Errorf("round 1: path %s", p)
	}
}
