package tla

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
	"github.com/gmpcheck/gmpcheck/tla/tlacheck"
)

// vocabulary is every action kind GMP.tla must name: spec.ActionKinds,
// the blocking poller's and timers' kinds included.
func vocabulary() []spec.ActionKind { return spec.ActionKinds() }

// TestOneVocabulary keeps the three descriptions of the scheduler on one
// set of names (DESIGN.md, "Three descriptions, one vocabulary"): every
// action of the executable spec must be an operator of GMP.tla with the same
// name, and a row of docs/mapping.md. The impl needs no check here: its
// scheduler events carry the spec's ActionKind itself, so they cannot use
// another name.
func TestOneVocabulary(t *testing.T) {
	sequentialUnderRace(t)
	tlaSrc, err := os.ReadFile("GMP.tla")
	if err != nil {
		t.Fatal(err)
	}
	mapping, err := os.ReadFile("../docs/mapping.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range vocabulary() {
		name := k.String()
		def := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*(\(|==)`)
		if !def.Match(tlaSrc) {
			t.Errorf("spec action %s has no operator %s in GMP.tla", name, name)
		}
		if !strings.Contains(string(mapping), "Act"+name) {
			t.Errorf("spec action %s (Act%s) has no row in docs/mapping.md", name, name)
		}
	}
}

// TestSchedStepIsTheSpecLoop checks that GMP.tla's SchedStep(m), the
// actions FairM is about, lists exactly the spec's schedule-loop steps
// and wakep's steps (ActGlobal61 .. ActWakepNoP) and the poller's and
// timers' M steps (ActNetpollBlock .. ActCheckTimersNoP), each once: the
// two fairness families must be indexed by the same actions.
func TestSchedStepIsTheSpecLoop(t *testing.T) {
	src, err := os.ReadFile("GMP.tla")
	if err != nil {
		t.Fatal(err)
	}
	body, err := defBody(string(src), "SchedStep")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, m := range mStepCall.FindAllStringSubmatch(body, -1) {
		got[m[1]]++
	}
	for _, k := range tlacheck.SchedStepKinds() {
		if got[k.String()] != 1 {
			t.Errorf("SchedStep(m) has %s %d times, want once", k, got[k.String()])
		}
		delete(got, k.String())
	}
	for name := range got {
		t.Errorf("SchedStep(m) has %s, which is not a schedule-loop step of the spec", name)
	}
}
