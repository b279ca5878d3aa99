package tlacheck

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A coverage report as TLC 1.8 prints it, cut down: an action header, the
// nested expressions of an operator it calls (lines 338..341), one never
// evaluated (line 345), an invariant's header without a count.
const coverSample = `Progress(3) at 2026-11-28: 5 states generated
line 999, col 1 to line 999, col 5 of module GMP: 7
The coverage statistics at 2026-11-28 07:49:28 (see the TLC manual).
<Init line 180, col 1 to line 180, col 4 of module GMP>: 3:3
  line 181, col 5 to line 217, col 41 of module GMP: 3
<Next line 1341, col 1 to line 1341, col 4 of module GMP (1342 22 1344 50)>: 112:183
  |||line 338, col 5 to line 341, col 11 of module GMP: 768
  ||||line 339, col 12 to line 339, col 85 of module GMP: 128
  ||||line 345, col 8 to line 345, col 30 of module GMP: 0
  |line 12, col 3 to line 12, col 9 of module RunQueue: 4
<InvSpinning line 1473, col 1 to line 1473, col 11 of module GMP>
End of statistics.
`

func TestParseCoverage(t *testing.T) {
	cov := ParseCoverage(coverSample)
	if len(cov) != 7 {
		t.Fatalf("%d entries, want 7 (the report's, not the progress line's): %v", len(cov), cov)
	}
	if got, want := cov[2], (CoverSpan{"GMP", 1341, 1341, 112}); got != want {
		t.Errorf("an action's entry = %+v, want %+v", got, want)
	}
	for _, tc := range []struct {
		name           string
		module         string
		from, to       int
		reached, known bool
	}{
		{"a line evaluated", "GMP", 339, 339, true, true},
		{"lines around an evaluated expression", "GMP", 337, 342, true, true},
		{"a line never evaluated", "GMP", 345, 345, false, true},
		{"only an enclosing expression: unknown", "GMP", 340, 340, false, false},
		{"no entry at all", "GMP", 500, 510, false, false},
		{"the right module only", "RunQueue", 339, 339, false, false},
		{"another module", "RunQueue", 12, 12, true, true},
		{"the progress line is not the report", "GMP", 999, 999, false, false},
	} {
		reached, known := cov.Reaches(tc.module, tc.from, tc.to)
		if reached != tc.reached || known != tc.known {
			t.Errorf("%s: Reaches(%s, %d, %d) = %v, %v; want %v, %v", tc.name, tc.module, tc.from, tc.to, reached, known, tc.reached, tc.known)
		}
	}
	if ParseCoverage("Model checking completed.\n") != nil {
		t.Error("a run without -coverage has a coverage report")
	}
}

// coverModule's Next has a branch no state takes (x never reaches 7).
const coverModule = `---- MODULE Cov ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == IF x = 7
          THEN x' = 100
          ELSE x' = (x + 1) % 3
Spec == Init /\ [][Next]_x
====
`

// TestRunTLCCoverageReal: with Coverage, real TLC's report says which lines
// its search evaluated: the taken branch (line 7), not the other (line 6).
func TestRunTLCCoverageReal(t *testing.T) {
	jar := os.Getenv("TLA2TOOLS_JAR")
	if jar == "" {
		t.Skip("TLA2TOOLS_JAR not set: no real TLC to run")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Cov.tla"), []byte(coverModule), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "Cov.cfg")
	if err := os.WriteFile(path, []byte("\\* expect: pass\nSPECIFICATION Spec\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ParseCfg(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunTLCWith(context.Background(), jar, c, TLCOptions{Coverage: true})
	if err != nil || r.Outcome != Pass {
		t.Fatalf("%v, %v", r, err)
	}
	if reached, _ := r.Coverage.Reaches("Cov", 7, 7); !reached {
		t.Errorf("the ELSE branch, taken in every state, not reached: %v", r.Coverage)
	}
	if reached, known := r.Coverage.Reaches("Cov", 6, 6); reached || !known {
		t.Errorf("the THEN branch, never taken: reached %v, known %v; want false, true: %v", reached, known, r.Coverage)
	}
	r, err = RunTLC(context.Background(), jar, c)
	if err != nil || r.Coverage != nil {
		t.Errorf("without Coverage: %v entries, %v", len(r.Coverage), err)
	}
}
