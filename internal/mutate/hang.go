package mutate

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Hang limits per test. A mutant that makes a test loop or wait forever is
// a kill, but the binary's -test.timeout (PartTimeout, minutes) is what
// notices it, so such a kill's time is the limit's, not the check's: on
// seed 1136 half of impl/gm's kills took the full two minutes. The runner
// therefore gives every test a limit of its own, taken from the baselines
// it already runs (the unmutated tree, and each package's schema with no
// mutant on): HangFactor times the longest the test ran there, never under
// HangFloor. A test still running past its limit is killed with its
// binary and the mutant is reported killed by that test, as a hang.
//
// The limit is a liveness bound, not a speed check: the factor leaves room
// for the schema's slowdown (up to 2.4x measured) and for two mutants
// judged at once on two cores, and the floor for tests too short to time.
const (
	DefaultHangFactor = 10
	DefaultHangFloor  = 5 * time.Second
)

// testTimes holds, per test binary (Part.binKey), the longest baseline run
// of each top-level test, as `go test -v` reports it.
type testTimes map[string]map[string]time.Duration

var endRE = regexp.MustCompile(`^--- (?:PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)`)

// record takes the top-level tests' times from one baseline run's -test.v
// output for binary key.
func (tt testTimes) record(key, text string) {
	for _, line := range strings.Split(text, "\n") {
		m := endRE.FindStringSubmatch(line)
		if m == nil || strings.Contains(m[1], "/") {
			continue
		}
		sec, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		if tt[key] == nil {
			tt[key] = map[string]time.Duration{}
		}
		d := time.Duration(sec * float64(time.Second))
		if old, ok := tt[key][m[1]]; !ok || d > old {
			tt[key][m[1]] = d
		}
	}
}

// observe takes the top-level tests' running times as a clock saw them
// (testClock.observed) for binary key, where they exceed what record took
// from the tests' own reports.
func (tt testTimes) observe(key string, seen map[string]time.Duration) {
	for test, d := range seen {
		if tt[key] == nil {
			tt[key] = map[string]time.Duration{}
		}
		if old, ok := tt[key][test]; !ok || d > old {
			tt[key][test] = d
		}
	}
}

// limit is test's hang limit in binary key, and false when no baseline ran
// it (then only -test.timeout applies).
func (tt testTimes) limit(key, test string, factor float64, floor time.Duration) (time.Duration, time.Duration, bool) {
	base, ok := tt[key][test]
	if !ok {
		return 0, 0, false
	}
	return max(floor, time.Duration(factor*float64(base))), base, true
}

// testClock follows a test binary's -test.v output as it is written: which
// top-level tests are running, and since when. It keeps the whole output
// for the verdict.
type testClock struct {
	mu      sync.Mutex
	out     bytes.Buffer
	partial []byte
	now     func() time.Time
	running map[string]time.Time
	// took is how long each top-level test that ended was seen running:
	// the time the limits are measured in. It can exceed the time the test
	// reports: a test whose subtests call t.Parallel reports only its own
	// body (0.00s), but runs, to this clock, until its last subtest ends.
	took map[string]time.Duration
	// failed is when the first "--- FAIL" line (of a test or a subtest)
	// was seen: the time to the first failure.
	failed time.Time
}

func newTestClock(now func() time.Time) *testClock {
	return &testClock{now: now, running: map[string]time.Time{}, took: map[string]time.Duration{}}
}

// Write records p and follows each complete line in it.
func (c *testClock) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.out.Write(p)
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		c.line(string(c.partial[:i]), c.now())
		c.partial = c.partial[i+1:]
	}
	return len(p), nil
}

// stderr is a writer for the binary's standard error: recorded with the
// rest of the output, in the order it arrives, but not followed, since its
// writes can land in the middle of a -test.v line on standard output and a
// torn end line would leave a finished test looking as if it still ran.
func (c *testClock) stderr() io.Writer { return clockStderr{c} }

type clockStderr struct{ c *testClock }

func (w clockStderr) Write(p []byte) (int, error) {
	w.c.mu.Lock()
	defer w.c.mu.Unlock()
	w.c.out.Write(p)
	return len(p), nil
}

// line follows one line of -test.v output seen at now. A top-level test
// runs from its "=== RUN" (or, when it called t.Parallel, its "=== CONT")
// to its "--- PASS/FAIL/SKIP"; a paused parallel test is not running.
func (c *testClock) line(l string, now time.Time) {
	if c.failed.IsZero() && strings.HasPrefix(strings.TrimLeft(l, " "), "--- FAIL") {
		c.failed = now
	}
	if m := endRE.FindStringSubmatch(l); m != nil {
		if since, ok := c.running[m[1]]; ok {
			c.took[m[1]] = max(c.took[m[1]], now.Sub(since))
		}
		delete(c.running, m[1])
		return
	}
	verb, name, ok := strings.Cut(strings.TrimPrefix(l, "=== "), " ")
	if !ok || !strings.HasPrefix(l, "=== ") {
		return
	}
	name = strings.TrimSpace(name)
	if strings.Contains(name, "/") {
		return // a subtest: its parent's clock runs
	}
	switch verb {
	case "RUN", "CONT":
		if _, ok := c.running[name]; !ok {
			c.running[name] = now
		}
	case "PAUSE":
		delete(c.running, name)
	}
}

// hang is a test found running past its limit.
type hang struct {
	test       string
	ran, limit time.Duration
	base       time.Duration
}

// overdue returns the running test that has been running longest past its
// limit (limit gives it, false for a test with no limit).
func (c *testClock) overdue(limit func(test string) (lim, base time.Duration, ok bool)) (hang, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	var worst hang
	found := false
	for name, since := range c.running {
		lim, base, ok := limit(name)
		ran := now.Sub(since)
		if !ok || ran <= lim {
			continue
		}
		if !found || ran-lim > worst.ran-worst.limit || (ran-lim == worst.ran-worst.limit && name < worst.test) {
			worst, found = hang{test: name, ran: ran, limit: lim, base: base}, true
		}
	}
	return worst, found
}

// String is the kill's detail.
func (h hang) String() string {
	return fmt.Sprintf("%s still running after %.1fs, past its hang limit %.1fs (longest baseline run %.2fs)",
		h.test, h.ran.Seconds(), h.limit.Seconds(), h.base.Seconds())
}

// firstFail returns when the first "--- FAIL" line was seen (zero if
// none was).
func (c *testClock) firstFail() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.failed
}

// observed returns how long each top-level test that ended ran, as seen.
func (c *testClock) observed() map[string]time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.took)
}

// text is everything written so far.
func (c *testClock) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.String()
}

// partWalls holds, per part (its binary and its test selection), the
// longest wall time of its baseline runs.
//
// The binary's -test.timeout must not be what judges a slow mutant run:
// two mutants judged at once on two cores, or the schema's slowdown, make
// every test slower without making any hang, and a part whose baseline
// takes most of -test-timeout then times out on a mutant that changed
// nothing (seed 1138's spec/ run "killed" mutants of an error message's
// arguments this way: the explorer's tests, 45 s on the idle baseline,
// ran past two minutes beside another mutant). With per-test hang limits
// on, a hang is a test past its own limit, so the binary's timeout is
// raised to the same factor times the part's baseline run: it then fires
// only where the limits cannot (a test no baseline ran), and a mutant
// slower than the mutant budget is inconclusive rather than killed.
type partWalls map[string]time.Duration

func partKey(p Part) string {
	return p.binKey() + "\x00" + p.Run + "\x00" + p.Skip + "\x00" + strings.Join(p.Args, " ")
}

// record notes one baseline run of p that took d.
func (pw partWalls) record(p Part, d time.Duration) {
	if k := partKey(p); d > pw[k] {
		pw[k] = d
	}
}

// baselineSlack multiplies the configured timeout for a baseline run. The
// unmutated tree has no hang to find, and a baseline cut by the timeout
// fails the whole campaign ("the unmutated tree fails"): with the machine
// loaded (verify -long's tla-long beside it, load 4 on 2 cores) the
// explorer technique's baseline ran past DefaultPartTimeout's 90 s. A
// real hang of the unmutated tree still ends, at four times the timeout.
const baselineSlack = 4

// timeout is the -test.timeout of a run of p: baselineSlack times the
// configured one on a baseline, the configured one with hang limits off or
// with no baseline of p, else at least factor times p's longest baseline
// run.
func (pw partWalls) timeout(p Part, baseline bool, configured time.Duration, factor float64) time.Duration {
	if baseline {
		return baselineSlack * configured
	}
	w, ok := pw[partKey(p)]
	if factor <= 0 || !ok {
		return configured
	}
	return max(configured, time.Duration(factor*float64(w)))
}
