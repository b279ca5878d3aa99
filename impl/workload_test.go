package impl

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestWorkloads(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	for _, name := range Workloads {
		for _, im := range benchImpls {
			s, err := im.new(2)
			if err != nil {
				t.Fatal(err)
			}
			r, err := RunWorkload(s, name, 2, 20*time.Millisecond)
			s.Shutdown()
			if err != nil {
				t.Fatalf("%s on %s: %v", name, im.name, err)
			}
			if r.Ops == 0 {
				t.Fatalf("%s on %s: no progress", name, im.name)
			}
		}
	}
	if _, err := RunWorkload(nil, "nope", 1, 0); err == nil {
		t.Fatal("unknown workload accepted")
	}
}
