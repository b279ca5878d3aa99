package main

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/mutate"
)

func TestMutateUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-parallel", "3"},
		{"-parallel", "0"},
		{"-sample", "-1"},
		{"-min-rate", "1.5"},
		{"-area", "nosuch"},
		{"-kinds", "random"},
		{"-run", "("},
		{"-timeout", "-1s"},
		{"-mutant-timeout", "0s"},
		{"extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"mutate"}, args...), &out, &errb); code != exitUsage {
			t.Errorf("mutate %v: exit %d, want %d (%s)", args, code, exitUsage, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"mutate", "-h"}, &out, &errb); code != exitPass || !strings.Contains(out.String(), "-sample") {
		t.Errorf("mutate -h: exit %d, usage %q", code, out.String())
	}
}

// TestMutateListSample: -list prints the catalog, and -sample -seed picks
// the same mutants each time, printing the seed.
func TestMutateListSample(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"mutate", "-kinds", "semantic", "-list"}, &out, &errb); code != exitPass {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if n := strings.Count(out.String(), "\n"); n != len(mutate.Catalog) {
		t.Errorf("-list printed %d lines, the catalog has %d entries", n, len(mutate.Catalog))
	}
	list := func() string {
		var out, errb bytes.Buffer
		if code := run([]string{"mutate", "-kinds", "semantic", "-list", "-sample", "5", "-seed", "42"}, &out, &errb); code != exitPass {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if !strings.Contains(out.String()+errb.String(), "seed 42") {
			t.Errorf("the seed is not printed: %s", out.String()+errb.String())
		}
		return out.String()
	}
	a, b := list(), list()
	if a != b || strings.Count(a, "\n") < 5 {
		t.Errorf("-sample 5 -seed 42 differs between runs:\n%s\n%s", a, b)
	}
	out.Reset()
	if code := run([]string{"mutate", "-kinds", "semantic", "-area", "tla", "-run", "gmp-", "-list"}, &out, &errb); code != exitPass {
		t.Fatalf("exit %d", code)
	}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(l, "tla\ttla/gmp-") {
			t.Errorf("-area tla -run gmp- listed %q", l)
		}
	}
}

// TestReadMutationResults: -resume takes the judged mutants of a -json
// output (not the inconclusive ones, not other rows) and re-reads each
// survivor's equivalence argument from mutate.Equivalents.
func TestReadMutationResults(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/run.jsonl"
	eq := slices.Sorted(maps.Keys(mutate.Equivalents))[0] // any argued survivor (positions move)
	lines := []string{
		`{"command":"mutate","kind":"baseline","technique":"unit","outcome":"pass"}`,
		`{"command":"mutate","kind":"mutant","result":{"mutant":{"ID":"a","Area":"spec"},"status":"killed","killed_by":["spec-unit"]}}`,
		`{"command":"mutate","kind":"mutant","result":{"mutant":{"ID":"b","Area":"spec"},"status":"inconclusive"}}`,
		`{"command":"mutate","kind":"mutant","result":{"mutant":{"ID":"` + eq + `","Area":"impl/gm"},"status":"survived"}}`,
		`{"command":"mutate","kind":"result","verdict":"FAIL"}`,
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readMutationResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["a"].Status != mutate.Killed || got[eq].Equivalent == "" {
		t.Fatalf("got %+v", got)
	}
	if err := os.WriteFile(path, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readMutationResults(path); err == nil {
		t.Error("a broken line was accepted")
	}
}

// TestMutationReportNamesItsCommand: the report's first line is the
// command that made it, as one would type it (once a report said
// "gmpcheck mutate mutate -area ...": it took os.Args from the subcommand
// on).
func TestMutationReportNamesItsCommand(t *testing.T) {
	path := t.TempDir() + "/R.md"
	args := []string{"-area", "impl/runq", "-matrix"}
	if err := writeMutationReport(path, nil, nil, nil, args); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	if want := "<!-- gmpcheck mutate -area impl/runq -matrix -->"; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
}
