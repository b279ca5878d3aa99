package conform

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestRuntimeFiles checks the traces named in CONFORM_TRACES (manual).
func TestRuntimeFiles(t *testing.T) {
	v := os.Getenv("CONFORM_TRACES")
	if v == "" {
		t.Skip()
	}
	for _, f := range strings.Fields(v) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		res := CheckRuntime(context.Background(), fh)
		fh.Close()
		t.Logf("%s: %v\nactions: %s\nfiltered: %s", f, res, Summary(res.Actions), Summary(res.Filtered))
	}
}

// TestCorpusLong is the long tier of the runtime check (GMPCHECK_LONG=1,
// or CONFORM_CORPUS="name ..." for a part): every corpus program at
// GOMAXPROCS 1, 2 and 4, each trace accepted.
func TestCorpusLong(t *testing.T) {
	var names []string
	switch {
	case os.Getenv("CONFORM_CORPUS") != "":
		names = strings.Fields(os.Getenv("CONFORM_CORPUS"))
	case os.Getenv("GMPCHECK_LONG") == "":
		t.Skip("GMPCHECK_LONG=1 runs the long tier")
	}
	ctx := context.Background()
	c, err := BuildCorpus(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = RunCorpus(ctx, c, names, []int{1, 2, 4}, func(r CorpusRow) {
		if r.Result.Verdict != Accepted {
			t.Errorf("%s %d: %v", r.Program, r.Procs, r.Result)
		}
		t.Logf("%s %d: %v (%v)\nactions: %s\nfiltered: %s", r.Program, r.Procs, r.Result, r.Result.Elapsed, Summary(r.Result.Actions), Summary(r.Result.Filtered))
	})
	if err != nil {
		t.Fatal(err)
	}
}
