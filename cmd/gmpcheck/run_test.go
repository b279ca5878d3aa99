package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/internal/perfetto"
)

// run -trace writes a trace-event JSON that the validator accepts, for a
// workload on real goroutines and for a walk of the deterministic driver;
// the driver's has a track per P and M and G slices.
func TestRunTrace(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "-procs", "3", "-duration", "100ms", "-queue", "8"},
		{"run", "-driver", "300", "-procs", "3", "-seed", "7"},
	} {
		path := filepath.Join(dir, args[1]+".json")
		code, out := runCmd(append(args, "-trace", path)...)
		if code != exitPass || !strings.Contains(out, "trace: "+path) {
			t.Fatalf("gmpcheck %q: exit %d, want 0 naming the trace:\n%s", args, code, out)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := perfetto.Validate(data)
		if err != nil {
			t.Fatalf("gmpcheck %q: %v", args, err)
		}
		for _, track := range []string{"Ps/p0", "Ps/p2", "Ms/m0"} {
			if _, ok := st.Names[track]; !ok {
				t.Errorf("gmpcheck %q: no track %s (%v)", args, track, st.Names)
			}
		}
		if st.Slices == 0 {
			t.Errorf("gmpcheck %q: no G slices", args)
		}
	}
	checkCmdCases(t, []cmdCase{
		{[]string{"run", "-impl", "gm", "-trace", filepath.Join(dir, "x.json")}, exitUsage, "-trace needs -impl gmp"},
		{[]string{"run", "-seed", "3"}, exitUsage, "-seed needs -driver"},
		{[]string{"run", "-driver", "0"}, exitUsage, "-driver"},
		{[]string{"run", "-driver", "10", "-workload", "spawn"}, exitUsage, "do not go together"},
	})
}
