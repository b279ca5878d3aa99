package spec

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/strings.golden from the printers' output")

// goldenStates are states whose printed form, keys and actions
// TestStringsGolden pins: a spread of reachable states of each of
// clauseModels' models (every 997th in breadth-first order, so the pin
// does not grow with the models), and states with the fields no small
// model reaches set by hand (a tainted M, go1.10dev's nil read, stop-the-
// world phases, enum values past their names).
func goldenStates(t *testing.T) (names []string, states []State, models []Model) {
	keys := make([]string, 0, len(clauseModels))
	for name := range clauseModels {
		keys = append(keys, name)
	}
	slices.Sort(keys)
	for _, name := range keys {
		md, err := NewModel(clauseModels[name])
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		breadthFirst(md, 20000, func(s State) bool {
			if i%997 == 0 {
				names, states, models = append(names, name), append(states, s), append(models, md)
			}
			i++
			return true
		}, nil)
	}
	hand := func(model string, set func(s *State)) {
		md, err := NewModel(clauseModels[model])
		if err != nil {
			t.Fatal(err)
		}
		s := md.Init()
		set(&s)
		names, states, models = append(names, model+" (by hand)"), append(states, s), append(models, md)
		if s.G[1] > GDead {
			names[len(names)-1] = model + " (by hand, no key)"
		}
	}
	hand("locked", func(s *State) { s.M[1].Tainted = true })
	hand("locked", func(s *State) { s.M[1] = MState{PC: MSched, P: NoP, LockedG: 2, NextP: 1} })
	hand("resize", func(s *State) {
		s.NilRead, s.GCWaiting, s.STW, s.StopWait, s.Procs = true, true, STWGrown, 1, 1
		s.M[1] = MState{PC: MRecheckRunqs, P: NoP, Scan: 1, SnapPs: 1}
	})
	hand("resize", func(s *State) { s.STW, s.STWLeft = STWWakep, 0 })
	hand("steal", func(s *State) {
		s.RetakeP, s.NeedSpinning = 2, true
		s.M[1] = MState{PC: MStealNext, P: 1, Spinning: true, Scan: 1, Victim: 1, Wake: WakeCAS}
		s.M[2] = MState{PC: MRun, P: NoP, CurG: 2, OldP: 2}
	})
	hand("poll", func(s *State) {
		s.LastPoll, s.PollUntil = false, 2
		s.TimerP[2], s.TimerWhen[2] = 1, 1
		s.M[1] = MState{PC: MNetpoll, P: NoP, PollUntil: 2, WasSpinning: true}
	})
	// A running G's goyield flag, and a spinning M that inherits the
	// time slice of a G its timers readied into runnext.
	hand("steal", func(s *State) { s.M[1] = MState{PC: MRun, P: 0, CurG: 1, Yield: true} })
	hand("poll", func(s *State) { s.M[1] = MState{PC: MResetSpin, P: 0, CurG: 1, Spinning: true, Inherit: true} })
	// Enums past their names print as numbers; such a state has no key.
	hand("inject", func(s *State) {
		// The first value past each name table: a bound off by one
		// would index past it.
		s.G[1], s.P[0].Status = GStatus(len(gStatusNames)), PStatus(len(pStatusNames))
		s.M[1] = MState{PC: numMPCs, P: NoP, Inj: 2, Wake: WakeStage(len(wakeStageNames))}
	})
	return names, states, models
}

// TestStringsGolden pins what a reader of a counterexample sees: every
// state's printed form and every enabled action's name, in
// testdata/strings.golden (go test ./spec/ -run TestStringsGolden -update
// rewrites it after a deliberate change). Printers are code too: a
// mutation run found their clauses (a field's separator, a tick count off
// by one, an enum's fallback) unchecked. It also round-trips each state
// through its key, so that every field the key carries comes back,
// the rarely set ones included.
func TestStringsGolden(t *testing.T) {
	sequentialUnderRace(t)
	names, states, models := goldenStates(t)
	var b strings.Builder
	for i, s := range states {
		b.WriteString("== " + names[i] + "\n" + s.String() + "\n")
		if !strings.Contains(names[i], "by hand") {
			// The reference queues' printers too (LocalQueue, GlobalQueue).
			for p := 0; p < s.NumPs(); p++ {
				lq := s.LocalRunq(p, models[i].Bounds().Cap)
				b.WriteString("  " + lq.String() + " key " + lq.Key() + "\n")
			}
			b.WriteString("  sched.runq key " + s.GlobalQueue().Key() + "\n")
			for _, a := range models[i].Enabled(s) {
				b.WriteString("  " + a.String() + "\n")
			}
		}
		if strings.HasSuffix(names[i], "no key)") {
			continue
		}
		proto := models[i].Init()
		d := decodeKey(&proto, s.AppendKey(nil))
		d.newmSlot = s.newmSlot
		if d != s {
			t.Errorf("%s: the key loses a field:\n%v\ncame back as\n%v", names[i], s, d)
		}
	}
	for k := ActionKind(0); k <= numActionKinds; k++ {
		b.WriteString(Action{Kind: k, M: 1, P: 1, G: 2}.String() + "\n")
	}
	for _, a := range []Action{
		{Kind: ActTimerSleep, M: 0, P: 2, G: 1},
		{Kind: ActStartTheWorld, M: NoP, P: 3},
		{Kind: ActTimerTick, M: NoP, P: NoP},
		{Kind: ActNetpollInject, M: 0, P: NoP, G: 1, Inj: 2},
	} {
		b.WriteString(a.String() + "\n")
	}
	got := b.String()
	path := filepath.Join("testdata", "strings.golden")
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./spec/ -run TestStringsGolden -update writes it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs from %s:\ngot  %q\nwant %q\n(a deliberate change: -update)", i+1, path, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: %d lines, got %d", path, len(wl), len(gl))
	}
}
