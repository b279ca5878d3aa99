package tlacheck

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeJava is a stand-in for java on PATH (no TLC can be installed where
// this is tested): it records its working directory, the files there and
// its arguments, leaves a trace-explorer module beside the module as TLC
// 1.8 does on a violation, and prints the TLC output in $FAKE_TLC_OUT.
const fakeJava = `#!/bin/sh
for a; do last=$a; done
{ pwd; ls; echo --; printf '%s\n' "$@"; } > "$FAKE_TLC_LOG"
touch "${last%.tla}_TTrace_1700000000.tla"
cat "$FAKE_TLC_OUT"
exit 12
`

// TestRunTLCFakeJava runs RunTLC end to end against fakeJava: the command
// line, the working directory (a copy, never the source directory, which
// must not change) and the parse of the output into a Result.
func TestRunTLCFakeJava(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "java"), []byte(fakeJava), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	jar := filepath.Join(bin, "tla2tools.jar")
	if err := os.WriteFile(jar, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Dir(writeCfg(t, "M_bug_x.cfg", "\\* expect: Safe\nSPECIFICATION Spec\nINVARIANT Safe\n"))
	if err := os.WriteFile(filepath.Join(src, "Other.tla"), []byte("---- MODULE Other ----\n===="), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ParseCfg(filepath.Join(src, "M_bug_x.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(src)
	logPath := filepath.Join(t.TempDir(), "java.log")
	outPath := filepath.Join(t.TempDir(), "tlc.out")
	t.Setenv("FAKE_TLC_LOG", logPath)
	t.Setenv("FAKE_TLC_OUT", outPath)

	cases := []struct {
		out     string
		outcome Outcome
		name    string
		states  int
		err     bool
	}{
		{"Error: Invariant Safe is violated.\n10 states generated, 9 distinct states found, 1 states left on queue.\n", Invariant, "Safe", 9, false},
		{"Model checking completed. No error has been found.\n12 states generated, 11 distinct states found, 0 states left on queue.\n", Pass, "", 11, false},
		{"Error: unrecognized option\n", Error, "", 0, true},
	}
	for _, tc := range cases {
		if err := os.WriteFile(outPath, []byte(tc.out), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := RunTLC(context.Background(), jar, c)
		if (err != nil) != tc.err {
			t.Fatalf("%q: err = %v", firstLineOf(tc.out), err)
		}
		if r.Tool != "TLC" || r.Outcome != tc.outcome || r.Name != tc.name || r.States != tc.states {
			t.Errorf("%q: got %v %q %d states", firstLineOf(tc.out), r.Outcome, r.Name, r.States)
		}
		log, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		cwdAndFiles, args, _ := strings.Cut(string(log), "--\n")
		lines := strings.Split(strings.TrimSpace(cwdAndFiles), "\n")
		if lines[0] == src {
			t.Errorf("TLC ran in the source directory %s", lines[0])
		}
		for _, f := range []string{"M.tla", "Other.tla", "M_bug_x.cfg"} {
			if !slices.Contains(lines[1:], f) {
				t.Errorf("TLC's directory lacks %s: %v", f, lines[1:])
			}
		}
		want := []string{"-XX:+UseParallelGC", "-cp", jar, "tlc2.TLC", "-workers", "1", "-metadir"}
		got := strings.Split(strings.TrimSpace(args), "\n")
		if len(got) != len(want)+4 || !slices.Equal(got[:len(want)], want) ||
			!slices.Equal(got[len(want)+1:], []string{"-config", "M_bug_x.cfg", "M.tla"}) {
			t.Errorf("java arguments %q", got)
		}
		if _, err := os.Stat(lines[0]); !os.IsNotExist(err) {
			t.Errorf("TLC's working directory %s was not removed (%v)", lines[0], err)
		}
	}
	after, _ := os.ReadDir(src)
	if len(after) != len(before) {
		var names []string
		for _, e := range after {
			names = append(names, e.Name())
		}
		t.Errorf("the source directory changed: %v", names)
	}
}
