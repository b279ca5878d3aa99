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

func TestCorpusAll(t *testing.T) {
	if os.Getenv("CONFORM_CORPUS") == "" {
		t.Skip()
	}
	ctx := context.Background()
	names := strings.Fields(os.Getenv("CONFORM_CORPUS"))
	if names[0] == "all" {
		names = nil
	}
	c, err := BuildCorpus(ctx, names)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = RunCorpus(ctx, c, names, []int{1, 2, 4}, func(r CorpusRow) {
		t.Logf("%s %d: %v (%v)\nactions: %s\nfiltered: %s", r.Program, r.Procs, r.Result, r.Result.Elapsed, Summary(r.Result.Actions), Summary(r.Result.Filtered))
	})
	if err != nil {
		t.Fatal(err)
	}
}
