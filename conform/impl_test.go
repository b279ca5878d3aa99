package conform

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestImplTraceSmoke(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		for seed := uint64(1); seed <= 12; seed++ {
			r := ImplRun{Procs: procs, Seed: seed}
			evs, q, err := r.Record(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			res := CheckImpl(context.Background(), evs, ImplOptions{Bounds: r.Bounds(), Quiescent: q, LongSyscallRetake: true, WakepTransient: true, RunnextKick: true})
			t.Logf("procs %d seed %d: %v", procs, seed, res)
			if res.Verdict != Accepted && os.Getenv("CONFORM_DUMP") != "" {
				var b strings.Builder
				for i, e := range evs {
					fmt.Fprintf(&b, "%d %v\n", i, e)
				}
				os.WriteFile(fmt.Sprintf("/tmp/conform-p%d-s%d.txt", procs, seed), []byte(b.String()), 0o644)
			}
		}
	}
}
