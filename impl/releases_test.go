package impl

import (
	"testing"

	"pgregory.net/rapid"
)

// TestReleasesMatchSpec: each history release of the impl stays equal to
// the spec's, state for state, on random traces up to the state where its
// bug shows; the bug must show on some of them (each release's change is
// reachable, so the comparison covers it).
func TestReleasesMatchSpec(t *testing.T) {
	for _, gv := range HistoryReleases {
		t.Run(gv.String(), func(t *testing.T) {
			broke := 0
			traces := 3000
			if raceEnabled {
				traces = 500 // no goroutines here: the race detector adds nothing
			}
			c := newRandChooser(uint64(gv)+1, 29)
			for range traces {
				run, err := CheckReleaseAgainstSpec(c, gv, 150)
				if err != nil {
					t.Fatal(err)
				}
				if run.Broke != "" {
					broke++
				}
			}
			t.Logf("%v: %d of %d traces reached the bug", gv, broke, traces)
			if broke == 0 {
				t.Errorf("%v: no trace reached the release's bug in %d", gv, traces)
			}
		})
	}
}

// The same, shrinkable, for rapid to minimise a divergence.
func TestReleasesMatchSpecRapid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapidChooser{t}
		gv := HistoryReleases[c.Intn(len(HistoryReleases), "release")]
		if _, err := CheckReleaseAgainstSpec(c, gv, 80); err != nil {
			t.Fatal(err)
		}
	})
}
