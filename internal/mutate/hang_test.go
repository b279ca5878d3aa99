package mutate

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTestClockFollowsVerbose: the clock sees a top-level test run from its
// RUN (or CONT) to its end line, not its subtests or a paused parallel
// test, and overdue names the test furthest past its limit.
func TestTestClockFollowsVerbose(t *testing.T) {
	now := time.Unix(0, 0)
	c := newTestClock(func() time.Time { return now })
	at := func(sec float64, lines string) {
		t.Helper()
		now = time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second)))
		if _, err := c.Write([]byte(lines)); err != nil {
			t.Fatal(err)
		}
	}
	limits := map[string]time.Duration{"TestA": 2 * time.Second, "TestB": 5 * time.Second, "TestP": time.Second}
	limit := func(test string) (time.Duration, time.Duration, bool) {
		l, ok := limits[test]
		return l, l / 10, ok
	}
	check := func(sec float64, want string) {
		t.Helper()
		now = time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second)))
		h, ok := c.overdue(limit)
		if got := map[bool]string{true: h.test}[ok]; got != want {
			t.Errorf("at %.1fs: overdue %q, want %q (running %v)", sec, got, want, c.running)
		}
	}
	at(0, "=== RUN   TestA\n=== RUN   TestA/sub\n")
	check(1.5, "")
	at(1.9, "    --- PASS: TestA/sub (1.90s)\n--- PASS: TestA (1.90s)\n=== RUN   TestP\n=== PAUSE TestP\n=== RUN   TestB\n")
	check(3, "") // TestA ended; TestP paused; TestB 1.1 s in
	at(4, "--- PASS: TestB (2.10s)\n=== CONT  TestP\n=== RUN   TestUnknown\n=== RUN   TestA\n")
	check(4.5, "")      // TestP's clock starts at its CONT; TestUnknown has no limit
	check(5.5, "TestP") // TestP 1.5 s past a 1 s limit, TestA 1.5 s under its 2 s
	check(7, "TestP")   // TestA 1 s past its limit, TestP 2 s: the furthest past
	if !c.firstFail().IsZero() {
		t.Errorf("a failure seen before any FAIL line")
	}
	at(7, "--- FAIL: TestP (3.00s)\n")
	check(7, "TestA")
	at(7.5, "    --- FAIL: TestA/sub (0.10s)\n")
	if at := c.firstFail(); at != time.Unix(7, 0) {
		t.Errorf("first failure at %v, want the first FAIL line's 7s", at)
	}
	at(7, "partial line with no newline yet --- PASS: TestA")
	check(7, "TestA")
	at(7, " (1.00s)\n")
	check(7, "TestA") // the end line is not at the line's start: TestA still runs
	// Standard error is recorded but not followed: a write of it inside
	// TestA's end line does not tear the line.
	at(7, "--- PASS: Te")
	if _, err := c.stderr().Write([]byte("some stderr\n")); err != nil {
		t.Fatal(err)
	}
	at(7, "stA (3.00s)\n")
	check(60, "")
	if !strings.Contains(c.text(), "--- PASS: Tesome stderr\nstA") {
		t.Errorf("the output does not keep both streams in arrival order: %q", c.text())
	}
	// How long each ended test was seen running: TestA's longest run (its
	// second, 4 s to 7 s), TestP from its CONT; TestUnknown never ended.
	want := map[string]time.Duration{"TestA": 3 * time.Second, "TestB": 2100 * time.Millisecond, "TestP": 3 * time.Second}
	if got := c.observed(); !maps.Equal(got, want) {
		t.Errorf("observed %v, want %v", got, want)
	}
}

// TestParallelSubtestsTimedAsSeen: a test whose subtests call t.Parallel
// reports 0.00s for itself, but runs until its last subtest ends, and the
// clock judges it over that whole time. Its hang limit must come from the
// time seen, or every mutant that reaches it is killed as a hang (seed
// 1138's spec/ run: tla's TestModels, limit 5 s from a reported 0.00s,
// "killed" every mutant the TLA+ cross-check judged).
func TestParallelSubtestsTimedAsSeen(t *testing.T) {
	now := time.Unix(0, 0)
	c := newTestClock(func() time.Time { return now })
	write := func(sec float64, lines string) {
		now = time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second)))
		if _, err := c.Write([]byte(lines)); err != nil {
			t.Fatal(err)
		}
	}
	write(0, "=== RUN   TestModels\n=== RUN   TestModels/GMP\n=== PAUSE TestModels/GMP\n=== CONT  TestModels/GMP\n")
	write(40, "--- PASS: TestModels (0.00s)\n    --- PASS: TestModels/GMP (40.00s)\n")
	tt := testTimes{}
	tt.record("k", c.text())
	if lim, _, _ := tt.limit("k", "TestModels", 10, 5*time.Second); lim != 5*time.Second {
		t.Fatalf("limit from the report alone %v; want the floor, 5s (the case this test is about)", lim)
	}
	tt.observe("k", c.observed())
	if lim, base, ok := tt.limit("k", "TestModels", 10, 5*time.Second); !ok || base != 40*time.Second || lim != 400*time.Second {
		t.Errorf("limit %v (base %v, %v); want 400s from the 40s seen", lim, base, ok)
	}
}

func TestTestTimesRecord(t *testing.T) {
	tt := testTimes{}
	tt.record("k", "=== RUN   TestA\n    --- PASS: TestA/x (9.00s)\n--- PASS: TestA (1.50s)\n--- SKIP: TestS (0.00s)\n--- FAIL: TestF (2.25s)\nok\n")
	tt.record("k", "--- PASS: TestA (0.50s)\n")
	want := map[string]time.Duration{"TestA": 1500 * time.Millisecond, "TestS": 0, "TestF": 2250 * time.Millisecond}
	if len(tt["k"]) != len(want) {
		t.Fatalf("recorded %v, want %v", tt["k"], want)
	}
	for test, d := range want {
		if tt["k"][test] != d {
			t.Errorf("%s: %v, want %v", test, tt["k"][test], d)
		}
	}
	for _, c := range []struct {
		test      string
		lim, base time.Duration
		ok        bool
	}{
		{"TestA", 15 * time.Second, 1500 * time.Millisecond, true},
		{"TestS", 5 * time.Second, 0, true}, // the floor
		{"TestNone", 0, 0, false},
	} {
		lim, base, ok := tt.limit("k", c.test, 10, 5*time.Second)
		if lim != c.lim || base != c.base || ok != c.ok {
			t.Errorf("limit(%s) = %v, %v, %v; want %v, %v, %v", c.test, lim, base, ok, c.lim, c.base, c.ok)
		}
	}
}

// TestPartTimeoutFollowsBaseline: a part's binary timeout on a mutant is
// at least the hang factor times its longest baseline run, so that a run
// merely slowed (two mutants on two cores, the schema) is not cut by it;
// the configured timeout stands on a baseline, with the limits off, for a
// part no baseline ran, and when it is the larger.
func TestPartTimeoutFollowsBaseline(t *testing.T) {
	explorer := Part{Pkg: "spec", Run: "^TestExplore$"}
	unit := Part{Pkg: "spec", Run: "^TestUnit$"}
	pw := partWalls{}
	pw.record(explorer, 30*time.Second)
	pw.record(explorer, 45*time.Second) // the schema's baseline, slower
	pw.record(explorer, 20*time.Second)
	pw.record(unit, time.Second)
	for _, c := range []struct {
		name     string
		p        Part
		baseline bool
		factor   float64
		want     time.Duration
	}{
		{"mutant", explorer, false, 10, 450 * time.Second},
		{"baseline run", explorer, true, 10, baselineSlack * 2 * time.Minute},
		{"limits off", explorer, false, 0, 2 * time.Minute},
		{"configured larger", unit, false, 10, 2 * time.Minute},
		{"no baseline", Part{Pkg: "spec", Run: "^TestOther$"}, false, 10, 2 * time.Minute},
		{"same binary, other selection", Part{Pkg: "spec", Run: "^TestExplore$", Skip: "Long"}, false, 10, 2 * time.Minute},
	} {
		if got := pw.timeout(c.p, c.baseline, 2*time.Minute, c.factor); got != c.want {
			t.Errorf("%s: timeout %v, want %v", c.name, got, c.want)
		}
	}
}

// hangFixture is a package whose TestWait spins until ready() holds: the
// mutant that makes ready() false forever hangs it.
const hangFixture = `package p

func ready() bool { return true }
`

const hangFixtureTest = `package p

import (
	"runtime"
	"testing"
)

func TestQuick(t *testing.T) {}

func TestWait(t *testing.T) {
	for !ready() {
		runtime.Gosched()
	}
}
`

// TestHangLimitKillsAtTheTestsLimit: a mutant that makes a test spin
// forever is reported killed by that test, as a hang, by its own limit
// (the floor here), not by the binary's -test.timeout; with the limits
// off, the -test.timeout is what catches it.
func TestHangLimitKillsAtTheTestsLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a fixture test binary twice")
	}
	dir := writePackageP(t, hangFixture, hangFixtureTest)
	tech := Technique{Name: "unit", Parts: []Part{{Pkg: "p", Run: "^(TestQuick|TestWait)$"}}}
	m := Mutant{ID: "spin", Kind: KindSemantic, Area: AreaRunq, File: "p/p.go",
		Orig: "return true", Repl: "return false"}
	for _, c := range []struct {
		name      string
		factor    float64
		part      time.Duration
		test, why string
	}{
		{"own limit", 10, time.Minute, "TestWait (hang)", "past its hang limit 1.0s"},
		{"limits off", -1, 3 * time.Second, "(test timeout)", "test timed out"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewRunner(Options{Root: dir, NoSchemata: true, MutantTimeout: 2 * time.Minute, PartTimeout: c.part,
				HangFactor: c.factor, HangFloor: time.Second,
				Plan: func(Area) []Technique { return []Technique{tech} }})
			ctx := context.Background()
			if base, err := r.Baseline(ctx, []Area{AreaRunq}); err != nil || len(base) != 1 || base[0].Outcome != "pass" {
				t.Fatalf("baseline: %+v %v", base, err)
			}
			if _, ok := r.times["p|"]["TestWait"]; !ok {
				t.Fatalf("the baseline recorded no time for TestWait: %v", r.times)
			}
			res := r.One(ctx, m)
			t.Log(res.Line())
			if res.Status != Killed || len(res.Techs) != 1 {
				t.Fatalf("%s (%s), techniques %+v: want killed", res.Status, res.Detail, res.Techs)
			}
			tr := res.Techs[0]
			if !contains(tr.Tests, c.test) || !strings.Contains(tr.Detail, c.why) {
				t.Errorf("killed by %v (%s): want %q, %q", tr.Tests, tr.Detail, c.test, c.why)
			}
		})
	}
}

// writePackageP writes a module with one package p (its code and its test)
// and returns its root.
func writePackageP(t *testing.T, code, test string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":      "module fixture\n\ngo 1.22\n",
		"p/p.go":      code,
		"p/p_test.go": test,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSlowMutantIsNotAHang: a mutant that makes a test three times slower,
// past the configured -test.timeout but far inside the test's hang limit,
// survives: its binary's timeout follows the part's baseline run
// (partWalls), so only a test past its own limit is a hang. The test
// sleeps rather than computes, so the ratio holds on a loaded machine.
func TestSlowMutantIsNotAHang(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a fixture test binary")
	}
	dir := writePackageP(t, "package p\n\nimport \"time\"\n\nfunc delay() time.Duration { return 300 * time.Millisecond }\n",
		"package p\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(delay()) }\n")
	mustSurvive(t, dir, "^TestSlow$", 600*time.Millisecond, "300 * time.Millisecond", "900 * time.Millisecond")
}

// mustSurvive judges, in the fixture at dir, the mutant orig -> repl of
// p/p.go by the tests run selects (hang limits 10x, floor 1 s, part
// timeout part), after a passing baseline, and requires it to survive.
func mustSurvive(t *testing.T, dir, run string, part time.Duration, orig, repl string) {
	t.Helper()
	tech := Technique{Name: "unit", Parts: []Part{{Pkg: "p", Run: run}}}
	m := Mutant{ID: "m", Kind: KindSemantic, Area: AreaRunq, File: "p/p.go", Orig: orig, Repl: repl}
	r := NewRunner(Options{Root: dir, NoSchemata: true, MutantTimeout: 2 * time.Minute, PartTimeout: part,
		HangFactor: 10, HangFloor: time.Second, Plan: func(Area) []Technique { return []Technique{tech} }})
	ctx := context.Background()
	if base, err := r.Baseline(ctx, []Area{AreaRunq}); err != nil || len(base) != 1 || base[0].Outcome != "pass" {
		t.Fatalf("baseline: %+v %v", base, err)
	}
	res := r.One(ctx, m)
	t.Log(res.Line())
	if res.Status != Survived {
		t.Fatalf("%s (%s), techniques %+v: want survived", res.Status, res.Detail, res.Techs)
	}
}

// TestParallelSubtestsAreNotAHang is TestParallelSubtestsTimedAsSeen end to
// end: a mutant that changes nothing a test sees survives a test whose
// parallel subtests take longer than the hang floor, although the test
// reports 0.00s for itself. Without the baseline's observed times the
// harness killed it as a hang.
func TestParallelSubtestsAreNotAHang(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a fixture test binary")
	}
	dir := writePackageP(t, "package p\n\nimport \"time\"\n\nfunc delay() time.Duration { return 1500 * time.Millisecond }\n",
		"package p\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestP(t *testing.T) {\n\tfor _, n := range []string{\"a\", \"b\"} {\n\t\tt.Run(n, func(t *testing.T) { t.Parallel(); time.Sleep(delay()) })\n\t}\n}\n")
	mustSurvive(t, dir, "^TestP$", time.Minute, "1500 * time.Millisecond", "time.Millisecond * 1500")
}

// TestToFailStopsAtTheFirstFailure: a killing technique's time to the
// first failure ends at its first "--- FAIL" line, not at the end of its
// run: here a test fails at once and the next sleeps 2 s, so the run is at
// least 2 s longer than the time to the failure, however loaded the host.
func TestToFailStopsAtTheFirstFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a fixture test binary twice")
	}
	dir := writePackageP(t, "package p\n\nfunc F() bool { return true }\n",
		"package p\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\n"+
			"func TestF(t *testing.T) {\n\tif !F() {\n\t\tt.Fatal(\"F\")\n\t}\n}\n\n"+
			"func TestSleep(t *testing.T) { time.Sleep(2 * time.Second) }\n")
	tech := Technique{Name: "unit", Parts: []Part{{Pkg: "p", Run: "^(TestF|TestSleep)$"}}}
	m := Mutant{ID: "false", Kind: KindSemantic, Area: AreaRunq, File: "p/p.go", Orig: "return true", Repl: "return false"}
	r := NewRunner(Options{Root: dir, NoSchemata: true, MutantTimeout: 2 * time.Minute,
		Plan: func(Area) []Technique { return []Technique{tech} }})
	ctx := context.Background()
	if base, err := r.Baseline(ctx, []Area{AreaRunq}); err != nil || len(base) != 1 || base[0].Outcome != "pass" {
		t.Fatalf("baseline: %+v %v", base, err)
	}
	res := r.One(ctx, m)
	if res.Status != Killed || len(res.Techs) != 1 {
		t.Fatalf("%s (%s), techniques %+v: want killed", res.Status, res.Detail, res.Techs)
	}
	tr := res.Techs[0]
	if tr.ToFail <= 0 || tr.Elapsed-tr.ToFail < 2*time.Second {
		t.Errorf("time to the first failure %v of a %v run: want it before TestSleep's 2 s", tr.ToFail, tr.Elapsed)
	}
	if got := res.FastestKillRun(); got != tr.ToFail {
		t.Errorf("FastestKillRun %v, want the time to the failure %v", got, tr.ToFail)
	}
}

// TestFailDetailIsTheFailingTests: the detail of a kill is the failing
// test's first file:line message, not a passing test's log before it (a
// campaign's baseline once reported TestReleasesMatchSpecRapid's failure
// as an earlier test's rapid note about a stale fail file).
func TestFailDetailIsTheFailingTests(t *testing.T) {
	text := `=== RUN   TestPoll
    driver_poll_test.go:17: [rapid] fail file "x.fail" is no longer valid
--- PASS: TestPoll (0.10s)
=== RUN   TestReleases
    releases_test.go:41: [rapid] minimized failing test case
    releases_test.go:45: go1.4: step 12 differs
--- FAIL: TestReleases (0.20s)
FAIL
`
	if got, want := failDetail(text), `releases_test.go:41: [rapid] minimized failing test case`; got != want {
		t.Errorf("failDetail = %q, want %q", got, want)
	}
	sub := "=== RUN   TestA\n    a_test.go:3: note\n=== RUN   TestA/x\n    a_test.go:9: broke\n    --- FAIL: TestA/x (0.00s)\n--- FAIL: TestA (0.00s)\n"
	if got, want := failDetail(sub), "a_test.go:9: broke"; got != want {
		t.Errorf("a failing subtest: failDetail = %q, want %q", got, want)
	}
	if got, want := failDetail("x_test.go:1: no test lines at all\nFAIL\n"), "x_test.go:1: no test lines at all"; got != want {
		t.Errorf("no test lines: failDetail = %q, want %q", got, want)
	}
}

// TestKilledBinaryLeavesNoTempDir: a test binary killed at a hang limit
// never runs its tests' t.TempDir cleanups, so the harness gives each run
// a TMPDIR of its own and removes it after the binary exits. The fixture's
// TestWait makes a temporary directory, writes its path beside the package
// and then hangs on the mutant; that directory must be gone afterwards.
func TestKilledBinaryLeavesNoTempDir(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a fixture test binary twice")
	}
	const test = `package p

import (
	"os"
	"runtime"
	"testing"
)

func TestWait(t *testing.T) {
	if err := os.WriteFile("../tempdir", []byte(t.TempDir()), 0o644); err != nil {
		t.Fatal(err)
	}
	for !ready() {
		runtime.Gosched()
	}
}
`
	dir := writePackageP(t, hangFixture, test)
	tech := Technique{Name: "unit", Parts: []Part{{Pkg: "p", Run: "^TestWait$"}}}
	m := Mutant{ID: "spin", Kind: KindSemantic, Area: AreaRunq, File: "p/p.go",
		Orig: "return true", Repl: "return false"}
	r := NewRunner(Options{Root: dir, NoSchemata: true, MutantTimeout: 2 * time.Minute, PartTimeout: time.Minute,
		HangFactor: 10, HangFloor: time.Second,
		Plan: func(Area) []Technique { return []Technique{tech} }})
	ctx := context.Background()
	if base, err := r.Baseline(ctx, []Area{AreaRunq}); err != nil || len(base) != 1 || base[0].Outcome != "pass" {
		t.Fatalf("baseline: %+v %v", base, err)
	}
	// The baseline's TestWait wrote its own directory's path, which its
	// cleanup removed: only the path the mutant's run writes may be read.
	if err := os.Remove(filepath.Join(dir, "tempdir")); err != nil {
		t.Fatal(err)
	}
	res := r.One(ctx, m)
	if res.Status != Killed || len(res.Techs) != 1 || !contains(res.Techs[0].Tests, "TestWait (hang)") {
		t.Fatalf("%s (%s), techniques %+v: want killed by TestWait's hang limit", res.Status, res.Detail, res.Techs)
	}
	path, err := os.ReadFile(filepath.Join(dir, "tempdir"))
	if err != nil || len(path) == 0 {
		t.Fatalf("the mutant's TestWait recorded no temporary directory: %q %v", path, err)
	}
	if _, err := os.Stat(string(path)); !os.IsNotExist(err) {
		t.Errorf("the killed binary's temporary directory %s is still there (stat: %v)", path, err)
	}
}

// TestMutantBudget: a mutant's budget is MutantTimeout, or twice the
// area's baseline when that is more, so that a mutant no technique kills
// can run them all on a loaded machine.
func TestMutantBudget(t *testing.T) {
	a := Part{Pkg: "spec", Run: "^TestA$"}
	b := Part{Pkg: "spec", Run: "^TestB$"}
	other := Part{Pkg: "impl", Run: "^TestC$"}
	r := NewRunner(Options{MutantTimeout: 6 * time.Minute, Log: io.Discard,
		Plan: func(ar Area) []Technique {
			if ar == AreaSpec {
				return []Technique{{Name: "x", Parts: []Part{a}}, {Name: "y", Parts: []Part{b}}}
			}
			return []Technique{{Name: "z", Parts: []Part{other}}}
		}})
	if got := r.mutantBudget(AreaSpec); got != 6*time.Minute {
		t.Errorf("no baseline yet: %v, want MutantTimeout", got)
	}
	r.walls.record(a, 100*time.Second)
	r.walls.record(b, 110*time.Second)
	r.walls.record(other, time.Hour)
	if got := r.mutantBudget(AreaSpec); got != 420*time.Second {
		t.Errorf("a 210 s baseline: %v, want 7m0s", got)
	}
	r.walls = partWalls{}
	r.walls.record(a, time.Minute)
	if got := r.mutantBudget(AreaSpec); got != 6*time.Minute {
		t.Errorf("a short baseline: %v, want MutantTimeout", got)
	}
}
