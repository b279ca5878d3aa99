package tla

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// mStepCall finds the M steps an operator body names: an action applied
// to m, alone or with more arguments.
var mStepCall = regexp.MustCompile(`\b([A-Z][A-Za-z0-9]*)\(m[,)]`)

// wakeRow is the key of Next's row for the Ms inside wakep (Waking).
const wakeRow = "wake"

// nextTable reads GMP.tla's Next: for each row over an M, the row's key
// (its MsAt pc, or wakeRow for Waking) and the steps it lists.
func nextTable(text string) (map[string]map[string]bool, error) {
	body, err := defBody(text, "Next")
	if err != nil {
		return nil, err
	}
	rowHead := regexp.MustCompile(`^\\E m \\in (?:MsAt\("([a-z]+)"\)|(Waking)) :`)
	table := map[string]map[string]bool{}
	var row map[string]bool
	cur := ""
	for _, line := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(line, `    \/ `); ok {
			row = nil
			m := rowHead.FindStringSubmatch(rest)
			if m == nil {
				if mStepCall.MatchString(rest) {
					return nil, fmt.Errorf("Next: an M step outside the table's rows: %s", line)
				}
				continue
			}
			key := m[1]
			if m[2] != "" {
				key = wakeRow
			}
			if table[key] != nil {
				return nil, fmt.Errorf("Next: two rows for %s", key)
			}
			row, cur = map[string]bool{}, key
			table[key] = row
			line = rest[len(m[0]):]
		}
		if row == nil {
			continue
		}
		for _, c := range mStepCall.FindAllStringSubmatch(line, -1) {
			if row[c[1]] {
				return nil, fmt.Errorf("Next: %s twice in the row for %s", c[1], cur)
			}
			row[c[1]] = true
		}
	}
	return table, nil
}

// defBody is the text of GMP.tla's operator name (with or without the
// parameter m), up to the first blank line.
func defBody(text, name string) (string, error) {
	for _, head := range []string{"\n" + name + " ==", "\n" + name + "(m) =="} {
		if i := strings.Index(text, head); i >= 0 {
			body := text[i+len(head):]
			if j := strings.Index(body, "\n\n"); j >= 0 {
				body = body[:j]
			}
			return body, nil
		}
	}
	return "", fmt.Errorf("GMP.tla has no %s definition", name)
}

// family is the set of M steps an operator of GMP.tla lists.
func family(t *testing.T, text, name string) map[string]bool {
	t.Helper()
	body, err := defBody(text, name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, c := range mStepCall.FindAllStringSubmatch(body, -1) {
		out[c[1]] = true
	}
	if len(out) == 0 {
		t.Fatalf("%s lists no M step", name)
	}
	return out
}

// checkTable is TestNextTakesEveryMStep's static part: the wakep row is
// WakeStep, the run row GoroutineStep, and the other rows together
// SchedStep without wakep's steps (an M inside wakep takes only those).
func checkTable(table map[string]map[string]bool, wake, goroutine, sched map[string]bool) []string {
	var errs []string
	same := func(what string, got, want map[string]bool) {
		for s := range want {
			if !got[s] {
				errs = append(errs, fmt.Sprintf("%s: %s is missing", what, s))
			}
		}
		for s := range got {
			if !want[s] {
				errs = append(errs, fmt.Sprintf("%s: %s does not belong", what, s))
			}
		}
	}
	same("Next's Waking row against WakeStep", table[wakeRow], wake)
	same(`Next's MsAt("run") row against GoroutineStep`, table["run"], goroutine)
	loop := map[string]bool{}
	for pc, row := range table {
		if pc == wakeRow || pc == "run" {
			continue
		}
		for s := range row {
			loop[s] = true
		}
	}
	rest := map[string]bool{}
	for s := range sched {
		if !wake[s] {
			rest[s] = true
		}
	}
	same("Next's schedule-loop rows against SchedStep less WakeStep", loop, rest)
	slices.Sort(errs)
	return errs
}

// checkSpecRows is TestNextTakesEveryMStep's dynamic part for one model: it
// walks the spec's graph breadth-first (at most limit states) and reports
// every step an M has that the row for its pc (or for wakep) of Next's
// table does not list. seen collects the (row, step) pairs taken.
func checkSpecRows(b spec.Bounds, limit int, steps map[string]bool, table map[string]map[string]bool, seen map[[2]string]bool) ([]string, error) {
	md, err := spec.NewModel(b)
	if err != nil {
		return nil, err
	}
	init := md.Init()
	visited := map[spec.State]bool{init: true}
	queue := []spec.State{init}
	var errs []string
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, a := range md.Enabled(s) {
			name := a.Kind.String()
			if steps[name] && a.M >= 0 {
				ms := s.M[a.M]
				row := ms.PC.String()
				if ms.Wake != spec.WakeNone {
					row = wakeRow
				}
				seen[[2]string{row, name}] = true
				if !table[row][name] {
					errs = append(errs, fmt.Sprintf("%v at pc %s: not in Next's row for %s", a, ms.PC, row))
				}
			}
			ns, err := md.Step(s, a)
			if err != nil {
				// Pruned by the M bound (spec.ErrNoIdleM), or a seeded
				// bug's step error, which spec.Explore reports as a
				// violation: no successor either way. The step's row
				// was checked above.
				continue
			}
			if !visited[ns] && len(visited) < limit {
				visited[ns] = true
				queue = append(queue, ns)
			}
		}
	}
	return errs, nil
}

// TestNextTakesEveryMStep checks GMP.tla's Next, a table of M steps by pc
// written for tla-checker's speed, against the three families it stands
// for. Statically, its rows together list WakeStep, GoroutineStep and
// SchedStep. Dynamically, on every GMP cfg's bounds, every step the spec
// lets an M take is in the row for the M's pc (or for wakep): a step
// left out of its pc's row would be a transition the TLA+ module does not
// have. The graph cross-check would see that too, but only on the cfgs
// tla-checker runs in the tier at hand.
func TestNextTakesEveryMStep(t *testing.T) {
	sequentialUnderRace(t)
	src, err := os.ReadFile("GMP.tla")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	table, err := nextTable(text)
	if err != nil {
		t.Fatal(err)
	}
	wake, goroutine, sched := family(t, text, "WakeStep"), family(t, text, "GoroutineStep"), family(t, text, "SchedStep")
	for _, e := range checkTable(table, wake, goroutine, sched) {
		t.Error(e)
	}
	steps := map[string]bool{}
	for _, f := range []map[string]bool{wake, goroutine, sched} {
		for s := range f {
			steps[s] = true
		}
	}
	_, cfgs := loadCfgs(t)
	seen := map[[2]string]bool{}
	models := 0
	for _, c := range cfgs {
		if c.Module != "GMP" {
			continue
		}
		b, err := tlacheck.BoundsFromCfg(c)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		errs, err := checkSpecRows(b, 20000, steps, table, seen)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		models++
		for i, e := range errs {
			if i == 3 {
				t.Errorf("%s: and %d more", c.Name, len(errs)-i)
				break
			}
			t.Errorf("%s: %s", c.Name, e)
		}
	}
	var unseen []string
	for row, r := range table {
		for s := range r {
			if !seen[[2]string{row, s}] {
				unseen = append(unseen, row+": "+s)
			}
		}
	}
	slices.Sort(unseen)
	t.Logf("%d models; %d (row, step) pairs taken; in the table but not taken on these bounds: %v", models, len(seen), unseen)
}

// TestNextTableCheckBites: the static check sees a step dropped from the
// table, one put in the wrong family's row, and a row listing a step
// twice.
func TestNextTableCheckBites(t *testing.T) {
	src, err := os.ReadFile("GMP.tla")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	wake, goroutine, sched := family(t, text, "WakeStep"), family(t, text, "GoroutineStep"), family(t, text, "SchedStep")
	for _, tc := range []struct{ name, from, to, want string }{
		{"dropped", `    \/ \E m \in MsAt("dropspin") : DropSpinning(m)` + "\n", "", "DropSpinning is missing"},
		{"wrong family", `    \/ \E m \in MsAt("stop") : StopM(m)`, `    \/ \E m \in MsAt("stop") : StopM(m) \/ Park(m)`, "Park does not belong"},
		{"twice", `    \/ \E m \in MsAt("stop") : StopM(m)`, `    \/ \E m \in MsAt("stop") : StopM(m) \/ StopM(m)`, "StopM twice"},
	} {
		if !strings.Contains(text, tc.from) {
			t.Fatalf("%s: GMP.tla has no %q", tc.name, tc.from)
		}
		table, err := nextTable(strings.Replace(text, tc.from, tc.to, 1))
		var got []string
		if err != nil {
			got = []string{err.Error()}
		} else {
			got = checkTable(table, wake, goroutine, sched)
		}
		if !slices.ContainsFunc(got, func(e string) bool { return strings.Contains(e, tc.want) }) {
			t.Errorf("%s: got %q, want an error with %q", tc.name, got, tc.want)
		}
	}
}
