package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/bughist"
)

// The list names every catalog entry with its issue and variant in the
// table, then every bug outside the model, after the catalog, with what it
// needs; -json gives one row per entry ("bug" for the catalog's, then
// "outside") before the result.
func TestBugsList(t *testing.T) {
	cat, outside := bughist.Catalog(), bughist.Outside()
	code, out := runCmd("bugs")
	want := fmt.Sprintf("bugs: %d bugs in the catalog, each reproduced by 'gmpcheck bugs NAME'; %d known bugs outside the model", len(cat), len(outside))
	if code != exitPass || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want the summary %q:\n%s", code, want, out)
	}
	split := strings.Index(out, "known scheduler bugs outside the model")
	if split < 0 {
		t.Fatalf("no list of the bugs outside the model:\n%s", out)
	}
	for _, e := range cat {
		at := strings.Index(out, e.Name+"  "+e.Link())
		if at < 0 || at > split {
			t.Errorf("the catalog's table lacks %s (%s)", e.Name, e.Link())
		}
		if !strings.Contains(out[:split], e.VariantName()) {
			t.Errorf("the catalog's table does not name %s's variant %s", e.Name, e.VariantName())
		}
	}
	for _, e := range outside {
		if at := strings.Index(out, e.Name+"  "+e.Link()); at < split {
			t.Errorf("%s (%s) is not listed after the catalog, among the bugs outside the model", e.Name, e.Link())
		}
		if !strings.Contains(out[split:], e.Name+" needs "+e.Needs) {
			t.Errorf("the list does not say what %s needs", e.Name)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bugs", "-json"}, &stdout, &stderr); code != exitPass {
		t.Fatalf("-json: exit %d\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != len(cat)+len(outside)+1 {
		t.Fatalf("-json: %d rows, want one per entry and the result", len(lines))
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		want := "bug"
		switch {
		case i == len(lines)-1:
			want = "result"
			if m["entries"] != float64(len(cat)) || m["outside"] != float64(len(outside)) {
				t.Errorf("result row %v: want %d entries, %d outside", m, len(cat), len(outside))
			}
		case i >= len(cat):
			want = "outside"
			if m["needs"] != outside[i-len(cat)].Needs {
				t.Errorf("row %d: needs %v", i, m["needs"])
			}
		}
		if m["kind"] != want || m["command"] != "bugs" {
			t.Errorf("row %d: kind %v command %v, want %s", i, m["kind"], m["command"], want)
		}
	}
}

// Usage errors; a bug outside the model is not reproducible (exit 1) and
// says what it needs, by name or issue number, -run or not; an expressible one is caught by the driver replay with
// go1.26 leaving the trace (the explorer and GMP.tla: internal/bughist's
// tests, and docs/bugs.md).
func TestBugsReproduce(t *testing.T) {
	e, err := bughist.Lookup("hist-59600")
	if err != nil {
		t.Fatal(err)
	}
	checkCmdCases(t, []cmdCase{
		{[]string{"bugs", "nosuch"}, exitUsage, `unknown bug "nosuch"`},
		{[]string{"bugs", "hist-45867", "extra"}, exitUsage, "unexpected arguments"},
		{[]string{"bugs", "-run", "impl"}, exitUsage, "give a NAME"},
		{[]string{"bugs", "-run", "nosuchtech", "hist-45867"}, exitUsage, "matches none of hist-45867's techniques"},
		{[]string{"bugs", "-run", "(", "hist-45867"}, exitUsage, "-run"},
		{[]string{"bugs", "59600"}, exitFail, "not reproducible: outside the model, which needs " + e.Needs},
		{[]string{"bugs", "-run", "tla", "hist-59600"}, exitFail, "nothing was checked, so nothing passed"},
		{[]string{"bugs", "-q", "-run", "impl", "go1.22"}, exitPass, "impl: CAUGHT"},
		{[]string{"bugs", "-q", "-run", "impl", "go1.19"}, exitPass, "impl: CAUGHT"},
		{[]string{"bugs", "hist-55160", "-run", "^impl$"}, exitPass, "leaves the trace at step"},
	})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bugs", "-json", "-run", "impl", "-q", "45867"}, &stdout, &stderr); code != exitPass {
		t.Fatalf("-json: exit %d\n%s", code, stderr.String())
	}
	var last map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if err := json.Unmarshal([]byte(l), &last); err != nil {
			t.Fatal(err)
		}
	}
	if last["kind"] != "result" || last["verdict"] != "PASS" || last["bug"] != "hist-45867" {
		t.Errorf("last row %v", last)
	}
}
