//go:build gmpcheck_hooks

package linearize

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/impl"
)

// These tests need the instrumented build: yield points to force an
// interleaving, and the seeded bugs. They switch a process-wide bug on, so
// none of them runs in parallel.

// pause is impl.PauseFirst for tests.
func pause(t *testing.T, q impl.Yielder, ops ...impl.Op) (reached <-chan struct{}, release func()) {
	t.Helper()
	reached, release, err := impl.PauseFirst(q, ops...)
	if err != nil {
		t.Fatal(err)
	}
	return reached, release
}

// scenario builds a victim of capacity c with one thief, and a recorder.
func scenario(t *testing.T, c int, thieves int) (*impl.Runq, *Recorder) {
	t.Helper()
	glob := impl.NewGlobalRunq()
	victim, err := impl.NewRunq(c, glob)
	if err != nil {
		t.Fatal(err)
	}
	var ths []*impl.Runq
	for range thieves {
		th, err := impl.NewRunq(c, impl.NewGlobalRunq())
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	r, err := NewRecorder(victim, ths...)
	if err != nil {
		t.Fatal(err)
	}
	return victim, r
}

// A rec is a recorded history and the ring capacity it needs a model of.
type rec struct {
	capacity int
	h        []porcupine.Operation
}

// finish has the owner drain both queues, so a lost G shows.
func finish(r *Recorder) rec {
	r.Drain()
	for r.GlobGet(0) != nil {
	}
	return rec{r.victim.Cap(), r.History()}
}

func checkRec(t *testing.T, x rec) porcupine.CheckResult {
	t.Helper()
	c, err := NewChecker(x.capacity)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Check(x.h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func gs(ids ...uint64) []*impl.G {
	var out []*impl.G
	for _, id := range ids {
		out = append(out, impl.NewG(id))
	}
	return out
}

// directed records, for each seeded bug, the interleaving that exposes it.
// Under the correct queue the same interleaving must be linearizable, which
// shows that the harness, not the model, decides nothing.
var directed = map[impl.Bug]func(t *testing.T) rec{
	// The owner's get has read the head slot when a thief steals it; the
	// buggy get stores head instead of CASing and hands out g1 again.
	impl.BugGetNoCAS: func(t *testing.T) rec {
		victim, r := scenario(t, 8, 1)
		for _, g := range gs(1, 2, 3, 4) {
			r.Put(g)
		}
		reached, release := pause(t, victim, impl.OpCasHead, impl.OpStoreHead)
		done := make(chan struct{})
		go func() { r.Get(); close(done) }()
		<-reached
		r.Steal(1, false)
		release()
		<-done
		return finish(r)
	},
	// A thief has copied its batch when the owner takes the head; the buggy
	// steal stores head instead of CASing and hands out g1 again.
	impl.BugStealNoCAS: func(t *testing.T) rec {
		victim, r := scenario(t, 8, 1)
		for _, g := range gs(1, 2, 3, 4) {
			r.Put(g)
		}
		reached, release := pause(t, victim, impl.OpCasHead, impl.OpStoreHead)
		done := make(chan struct{})
		go func() { r.Steal(1, false); close(done) }()
		<-reached
		r.Get()
		release()
		<-done
		return finish(r)
	},
	// A ring of one G cannot be stolen from when half is rounded down.
	impl.BugStealHalfDown: func(t *testing.T) rec {
		_, r := scenario(t, 4, 1)
		r.Put(impl.NewG(1))
		r.Steal(1, false)
		return finish(r)
	},
	// An overflow forgets the G being put.
	impl.BugPutSlowDropsG: func(t *testing.T) rec {
		_, r := scenario(t, 4, 1)
		for _, g := range gs(1, 2, 3, 4, 5) {
			r.Put(g)
		}
		return finish(r)
	},
	// The buggy put publishes tail before writing the slot; a thief steals
	// the empty slot in between and the G is lost.
	impl.BugPublishBeforeWrite: func(t *testing.T) rec {
		victim, r := scenario(t, 8, 1)
		reached, release := pause(t, victim, impl.OpStoreSlot)
		done := make(chan struct{})
		go func() { r.Put(impl.NewG(1)); close(done) }()
		<-reached
		r.Steal(1, false)
		release()
		<-done
		return finish(r)
	},
	// The reader has seen an empty ring and stops before reading runnext;
	// the owner kicks g1 from runnext to the ring and takes the new runnext.
	// Without re-reading tail the reader says empty, though g1 was there all
	// along.
	impl.BugEmptyNoRecheck: func(t *testing.T) rec {
		victim, r := scenario(t, 4, 1)
		r.PutNext(impl.NewG(1))
		reached, release := pause(t, victim, impl.OpLoadRunnext)
		done := make(chan struct{})
		go func() { r.Empty(1); close(done) }()
		<-reached
		r.PutNext(impl.NewG(2))
		r.Get()
		release()
		<-done
		return finish(r)
	},
}

func setBug(t *testing.T, b impl.Bug) {
	t.Helper()
	if err := impl.SetSeededBug(b); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := impl.SetSeededBug(impl.NoBug); err != nil {
			t.Error(err)
		}
	})
}

// TestSeededBugsIllegal: every seeded bug, driven into the interleaving that
// exposes it, yields a history porcupine finds Illegal, and the HTML
// visualization is written. The same interleaving of the correct queue is
// linearizable.
func TestSeededBugsIllegal(t *testing.T) {
	for _, bug := range impl.Bugs {
		record, ok := directed[bug]
		if !ok {
			t.Errorf("no directed scenario for seeded bug %s", bug)
			continue
		}
		t.Run(string(bug), func(t *testing.T) {
			if good := record(t); checkRec(t, good) != porcupine.Ok {
				t.Fatalf("the correct queue's history is not linearizable:\n%s", formatHistory(good.h))
			}

			setBug(t, bug)
			x := record(t)
			if res := checkRec(t, x); res != porcupine.Illegal {
				t.Fatalf("seeded bug %s: verdict %v, want Illegal\n%s", bug, res, formatHistory(x.h))
			}
			c, err := NewChecker(x.capacity)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), string(bug)+".html")
			res, err := c.Visualize(x.h, 0, path)
			if err != nil {
				t.Fatal(err)
			}
			if res != porcupine.Illegal {
				t.Fatalf("verbose re-check: %v, want Illegal", res)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Size() == 0 {
				t.Fatalf("visualization %s is empty", path)
			}
			t.Logf("Illegal (%s, %d bytes):\n%s", path, fi.Size(), formatHistory(x.h))
		})
	}
}

// TestDefaultHTMLPathNamesTheBug: the verify stage runs every seeded bug
// with the same configuration and seed, so the default visualization paths
// differ only by the bug.
func TestDefaultHTMLPathNamesTheBug(t *testing.T) {
	rc := RunConfig{Config: Config{Capacity: 4, Thieves: 2, Ops: 40}, Seed: 1}
	seen := map[string]bool{defaultHTMLPath(rc, 0): true}
	for _, bug := range impl.Bugs {
		setBug(t, bug) // switched off again when the test ends
		p := defaultHTMLPath(rc, 0)
		if seen[p] || !strings.Contains(p, string(bug)) {
			t.Errorf("seeded bug %s: path %s", bug, p)
		}
		seen[p] = true
	}
}

// TestPutSecondEffectsObserved replays the two windows the model's
// Queues.Kicked and Queues.Transit exist for, on the correct queue, and
// checks that the model accepts them while a model with an atomic runqput
// does not: the relaxation is needed, not merely allowed.
func TestPutSecondEffectsObserved(t *testing.T) {
	atomicModel, err := newModel(4, modelOpts{atomicPut: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, record := range map[string]func(t *testing.T) rec{
		// The owner has CASed g2 into runnext and not yet put the displaced
		// g1 on the ring: a thief steals g2 and then finds the queue empty.
		"displaced runnext": func(t *testing.T) rec {
			victim, r := scenario(t, 4, 1)
			r.PutNext(impl.NewG(1))
			reached, release := pause(t, victim, impl.OpLoadHead)
			done := make(chan struct{})
			go func() { r.PutNext(impl.NewG(2)); close(done) }()
			<-reached
			r.Steal(1, true)
			r.Empty(1)
			release()
			<-done
			return finish(r)
		},
		// The owner's runqputslow has taken g1, g2 off the full ring and
		// not yet locked the global queue: a thief steals g3 and then finds
		// the global queue empty.
		"spill": func(t *testing.T) rec {
			victim, r := scenario(t, 4, 1)
			for _, g := range gs(1, 2, 3, 4) {
				r.Put(g)
			}
			glob := victim.Global()
			reached, resume := pause(t, glob, impl.OpLockSched)
			done := make(chan struct{})
			go func() { r.Put(impl.NewG(5)); close(done) }()
			<-reached
			r.Steal(1, false)
			r.GlobGet(1)
			resume()
			<-done
			return finish(r)
		},
	} {
		t.Run(name, func(t *testing.T) {
			x := record(t)
			if res := checkRec(t, x); res != porcupine.Ok {
				t.Fatalf("model: %v\n%s", res, formatHistory(x.h))
			}
			if porcupine.CheckOperations(atomicModel, x.h) {
				t.Fatalf("the atomic-put model accepts the window, so this test no longer shows it:\n%s", formatHistory(x.h))
			}
		})
	}
}

// TestRunnextStealAfterRefill replays, on the correct queue, the window the
// model's Queues.FilledBy exists for: a thief has read the ring empty and
// stops before loading runnext; the owner puts g1 on the ring and g2 in
// runnext; the thief takes g2 while g1 is in the ring. The model accepts
// it, a model that takes runnext only from an empty ring does not.
func TestRunnextStealAfterRefill(t *testing.T) {
	strict, err := newModel(4, modelOpts{emptyRingRunnextSteal: true})
	if err != nil {
		t.Fatal(err)
	}
	victim, r := scenario(t, 4, 1)
	reached, release := pause(t, victim, impl.OpLoadRunnext)
	done := make(chan struct{})
	var batch []*impl.G
	go func() { batch = r.Steal(1, true); close(done) }()
	<-reached
	r.Put(impl.NewG(1))
	r.PutNext(impl.NewG(2))
	release()
	<-done
	if len(batch) != 1 || batch[0].ID() != 2 {
		t.Fatalf("the thief stole %v, want g2", batch)
	}
	x := finish(r)
	if res := checkRec(t, x); res != porcupine.Ok {
		t.Fatalf("model: %v\n%s", res, formatHistory(x.h))
	}
	if porcupine.CheckOperations(strict, x.h) {
		t.Fatalf("the empty-ring model accepts the window, so this test no longer shows it:\n%s", formatHistory(x.h))
	}
}

// TestPerturbedRoundsLinearizable runs random rounds of the correct queue
// with a yield at every atomic access that often lets another client in: far
// more interleavings inside operations than real timing gives on two cores.
func TestPerturbedRoundsLinearizable(t *testing.T) {
	for _, c := range []int{4, 8, 256} {
		for thieves := 1; thieves <= 3; thieves++ {
			rep, err := Run(context.Background(), RunConfig{
				Config: Config{Capacity: c, Thieves: thieves, Ops: 40, Perturb: true},
				Rounds: 100,
				Seed:   uint64(c + thieves),
				HTML:   filepath.Join(t.TempDir(), "violation.html"),
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Result != porcupine.Ok {
				t.Fatalf("cap %d thieves %d: %v\n%s", c, thieves, rep, formatHistory(rep.History))
			}
			t.Logf("cap %d thieves %d: %v", c, thieves, rep)
		}
	}
}

// TestRunPhaseStopsAHungQueue: a client spinning in the queue's retry loop
// (as a seeded bug can make it) is unwound at its next access once the
// phase times out, and the round is reported as hung.
func TestRunPhaseStopsAHungQueue(t *testing.T) {
	victim, _ := scenario(t, 4, 1)
	var abort atomic.Bool
	if err := victim.SetYield(func(impl.Op, any) {
		if abort.Load() {
			panic(abortRound{})
		}
	}); err != nil {
		t.Fatal(err)
	}
	err := runPhase(&abort, 50*time.Millisecond, "owner and thieves", func() {
		for {
			victim.Empty()
		}
	})
	var re *RoundError
	if !errors.As(err, &re) || !re.Stuck {
		t.Fatalf("got %v, want a hung round", err)
	}
}
