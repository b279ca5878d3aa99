package conform

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestImplDiag is a manual diagnostic: CONFORM_DIAG=procs,seeds.
func TestImplDiag(t *testing.T) {
	v := os.Getenv("CONFORM_DIAG")
	if v == "" {
		t.Skip()
	}
	ps, ns, _ := strings.Cut(v, ",")
	procs, _ := strconv.Atoi(ps)
	n, _ := strconv.Atoi(ns)
	counts := map[Verdict]int{}
	for seed := uint64(100); seed < 100+uint64(n); seed++ {
		r := ImplRun{Procs: procs, Seed: seed}
		evs, q, err := r.Record(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		res := CheckImpl(context.Background(), evs, ImplOptions{Bounds: r.Bounds(), Quiescent: q, LongSyscallRetake: true, WakepTransient: true, RunnextKick: true, MaxCandidates: 1 << 16})
		counts[res.Verdict]++
		if res.Verdict != Accepted {
			t.Logf("procs %d seed %d: %v", procs, seed, res)
			var b strings.Builder
			for i, e := range evs {
				fmt.Fprintf(&b, "%d %v\n", i, e)
			}
			os.WriteFile(fmt.Sprintf("/tmp/conform-p%d-s%d.txt", procs, seed), []byte(b.String()), 0o644)
		} else {
			t.Logf("procs %d seed %d: %v", procs, seed, res)
		}
	}
	t.Log(counts)
}
