package mutate

import (
	"slices"
	"testing"
)

// The areas and TLA+ modules a selection needs, and the survivors it
// leaves to handle, as the command, the long tier's stage and its test
// read them.
func TestSelectionHelpers(t *testing.T) {
	runq := Mutant{ID: "impl/runq.go:1:1/X", Area: AreaRunq, File: "impl/runq.go"}
	gmp := Mutant{ID: "tla/a", Area: AreaTLA, File: "tla/GMP.tla"}
	gmp2 := Mutant{ID: "tla/b", Area: AreaTLA, File: "tla/GMP.tla"}
	rq := Mutant{ID: "tla/c", Area: AreaTLA, File: "tla/RunQueue.tla"}
	spec := Mutant{ID: "spec/model.go:1:1/X", Area: AreaSpec, File: "spec/model.go"}

	if got, want := AreasOf([]Mutant{gmp, runq}, []Mutant{spec}), []Area{AreaRunq, AreaSpec, AreaTLA}; !slices.Equal(got, want) {
		t.Errorf("AreasOf: %v, want %v (in Areas' order, over both lists)", got, want)
	}
	if got := AreasOf(nil); len(got) != 0 {
		t.Errorf("AreasOf(nil): %v, want none", got)
	}
	if got, want := TLAModulesOf([]Mutant{runq, gmp, rq, gmp2}), []string{"GMP", "RunQueue"}; !slices.Equal(got, want) {
		t.Errorf("TLAModulesOf: %v, want %v (each once, first met first)", got, want)
	}
	if got := TLAModulesOf([]Mutant{runq, spec}); len(got) != 0 {
		t.Errorf("TLAModulesOf without TLA+ mutants: %v, want none", got)
	}
	rs := []Result{
		{Mutant: runq, Status: Survived},
		{Mutant: spec, Status: Survived, Equivalent: "argued"},
		{Mutant: gmp, Status: Killed},
		{Mutant: rq, Status: Inconclusive},
	}
	if got, want := Unhandled(rs), []string{runq.ID}; !slices.Equal(got, want) {
		t.Errorf("Unhandled: %v, want %v (not the equivalent, killed or cut-short ones)", got, want)
	}
}
