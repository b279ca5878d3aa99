package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/bughist"
)

// The list names every catalog entry with its issue, and -json gives one
// row per entry before the result.
func TestBugsList(t *testing.T) {
	code, out := runCmd("bugs")
	if code != exitPass || !strings.Contains(out, fmt.Sprintf("bugs: %d bugs", len(bughist.Catalog()))) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, e := range bughist.Catalog() {
		if !strings.Contains(out, e.Name+"  "+e.Link()) {
			t.Errorf("the list lacks %s (%s)", e.Name, e.Link())
		}
		if !e.Expressible() && !strings.Contains(out, e.Name+": "+e.Needs) {
			t.Errorf("the list does not say what %s needs", e.Name)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bugs", "-json"}, &stdout, &stderr); code != exitPass {
		t.Fatalf("-json: exit %d\n%s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != len(bughist.Catalog())+1 {
		t.Fatalf("-json: %d rows, want one per entry and the result", len(lines))
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		want := "bug"
		if i == len(lines)-1 {
			want = "result"
		}
		if m["kind"] != want || m["command"] != "bugs" {
			t.Errorf("row %d: kind %v command %v", i, m["kind"], m["command"])
		}
	}
}

// Usage errors; an inexpressible entry is not caught (exit 1) and says
// what it needs; an expressible one is caught by the driver replay with
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
		{[]string{"bugs", "59600"}, exitFail, "expressible: no, needs " + e.Needs},
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
