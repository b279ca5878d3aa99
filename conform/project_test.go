package conform

import "testing"

// TestProjection walks the projection model's bounds (a sequential search:
// the README's non-race pass runs it; under -race it took 10 s and checks
// nothing more).
func TestProjection(t *testing.T) {
	sequentialUnderRace(t)
	pr, err := Projection()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range pr {
		t.Log(c)
	}
}
