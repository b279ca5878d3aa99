package main

import (
	"bytes"
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
