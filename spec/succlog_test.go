package spec

import (
	"context"
	"slices"
	"testing"
	"unsafe"
)

// TestSuccLogEdgesAsLookedUp checks the successor log against what it
// replaces: the liveness pass's edges built from the numbers the search
// kept are the edges built by stepping every bad state and looking its
// successors up, state by state, on graphs with the M bound's cuts, under
// M symmetry and under M and G symmetry (whose edges carry labels), with
// the whole graph recorded and with only a prefix of it (succLogCap).
func TestSuccLogEdgesAsLookedUp(t *testing.T) {
	small := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true}
	timers := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true, PollBlock: true, Timers: 1}
	threeGs := Bounds{Ps: 2, Ms: 2, Gs: 3, Cap: 2, Spawn: 2, SchedTick: 2, Syscalls: true}
	mg := Options{Workers: 2, Symmetry: true, GSymmetry: true, ThreadLimit: true}
	for _, c := range []struct {
		name   string
		b      Bounds
		opt    Options
		capped int  // succLogCap, or 0 for the default
		large  bool // not under -race (sequentialUnderRace): M-symmetry alone race-checks the log
	}{
		{"exact", small, Options{Workers: 2}, 0, true},
		{"exact/prefix", small, Options{Workers: 1}, 20000, true},
		{"M-symmetry", small, Options{Workers: 2, Symmetry: true}, 0, false},
		{"timers/MG-symmetry", timers, mg, 0, true},
		{"threeGs/MG-symmetry/prefix", threeGs, mg, 100000, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.large {
				sequentialUnderRace(t)
			}
			if c.capped > 0 {
				old := succLogCap
				succLogCap = c.capped
				defer func() { succLogCap = old }()
			}
			md, err := NewModel(c.b)
			if err != nil {
				t.Fatal(err)
			}
			opt := c.opt
			opt.Liveness = true
			g, res := bfs(context.Background(), md, opt)
			if !res.Complete {
				t.Fatalf("search not complete: %v", res)
			}
			switch rec := g.succ.len(); {
			case c.capped == 0 && rec != g.len():
				t.Fatalf("%d of %d states recorded, want all", rec, g.len())
			case c.capped > 0 && (rec == 0 || rec >= g.len()):
				t.Fatalf("%d of %d states recorded, want a prefix", rec, g.len())
			}
			if !opt.ThreadLimit && res.Pruned == 0 {
				t.Fatal("no step cut by the M bound: the log's noSucc is not exercised")
			}
			lg := &liveGraph{g: g, bad: make([]uint32, g.len()), nG: uint32(g.proto.nG)}
			if !lg.classify(context.Background(), 2) {
				t.Fatal("classify cut short")
			}
			mask := ^uint32(0)
			got := lg.buildEdges(context.Background(), 2, mask)
			logged := g.succ
			g.succ = succLog{}
			want := lg.buildEdges(context.Background(), 1, mask)
			g.succ = logged
			if got == nil || want == nil {
				t.Fatal("buildEdges cut short")
			}
			edges := 0
			for v := 0; v < g.len(); v++ {
				a, b := got.of(uint32(v)), want.of(uint32(v))
				if !slices.Equal(a, b) {
					t.Fatalf("state %d: edges from the log %+v, looked up %+v", v, a, b)
				}
				edges += len(a)
			}
			if edges == 0 {
				t.Fatal("no edge among bad states: the comparison checked nothing")
			}
			t.Logf("%d states, %d recorded, %d edges among bad states", g.len(), g.succ.len(), edges)
		})
	}
}

// TestSuccLogOnlyWithLiveness: a search without liveness, or with
// fingerprints, keeps no successor log (nothing would read it).
func TestSuccLogOnlyWithLiveness(t *testing.T) {
	md, err := NewModel(Bounds{Ps: 2, Ms: 2, Gs: 1, Cap: 2, Spawn: 1, SchedTick: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{{Workers: 1}, {Workers: 1, Fingerprint: true}, {Workers: 1, Liveness: true}} {
		g, res := bfs(context.Background(), md, opt)
		want := 0
		if opt.Liveness {
			want = res.Distinct
		}
		if got := g.succ.len(); got != want {
			t.Errorf("%+v: %d states recorded, want %d", opt, got, want)
		}
	}
}

// TestCandStays16Bytes: the successor log takes the reference dedupe
// found in the candidate's key offset, not in a field of its own, which
// would make every candidate of a chunk 24 bytes instead of 16.
func TestCandStays16Bytes(t *testing.T) {
	if n := unsafe.Sizeof(cand{}); n != 16 {
		t.Fatalf("a candidate is %d bytes, want 16", n)
	}
}
