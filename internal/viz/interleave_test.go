package viz

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/internal/interleave"
	"github.com/gmpcheck/gmpcheck/spec"
)

// A hand-made execution (the explorer needs the instrumented build): the
// owner's get and the thief's steal both take g1.
func TestInterleavePage(t *testing.T) {
	sc := &interleave.Scenario{Name: "toy", Doc: "a get and a steal race", Cap: 4, Queues: 2,
		Init: []interleave.QueueInit{{Ring: []spec.GID{1}}},
		Actors: []interleave.Actor{
			{Name: "owner", Queue: 0, Script: []interleave.Call{{Kind: interleave.Get}}},
			{Name: "thief", Queue: 1, Script: []interleave.Call{{Kind: interleave.Steal, Q: 0}}},
		}}
	ex := &interleave.Execution{Scenario: sc, Complete: true,
		Steps: []interleave.Step{
			{Actor: 0, Call: 0, Op: impl.OpLoadHead, Obj: 0},
			{Actor: 1, Call: 0, Op: impl.OpLoadHead, Obj: 0},
			{Actor: 1, Call: 0, Op: impl.OpCasHead, Obj: 0},
			{Actor: 0, Call: 0, Op: impl.OpStoreHead, Obj: 0},
		},
		Calls: []interleave.CallRecord{
			{Actor: 0, Index: 0, Call: sc.Actors[0].Script[0], Own: 0, First: 0, Last: 3, Done: true, G: 1},
			{Actor: 1, Index: 0, Call: sc.Actors[1].Script[0], Own: 1, First: 1, Last: 2, Done: true, G: 1, Batch: []spec.GID{1}},
		},
		Final: []spec.LocalQueue{{Cap: 4}, {Cap: 4}},
	}
	v := &interleave.Violation{Kind: interleave.KindConservation, Msg: "g1 was taken 2 times", Exec: ex}
	var buf bytes.Buffer
	if err := WriteInterleave(&buf, InterleavePage{Title: "toy <b>", Violation: v, Replay: "gmpcheck interleave -replay 0110"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	text := wellFormed(t, page)
	noExternal(t, page)
	for _, want := range []string{"g1 was taken 2 times", "load head", "cas head", "store head", "steal q0 → q1", "concurrent", "-replay 0110", "step 3"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>") && !strings.Contains(page, "toy &lt;b&gt;") {
		t.Error("the title was not escaped")
	}
	// The access cells: four steps, each in its actor's lane.
	if n := strings.Count(page, `class="op"`); n != 4 {
		t.Errorf("%d access cells, want 4", n)
	}
	if err := WriteInterleave(&buf, InterleavePage{}); err == nil {
		t.Error("a page without a violation was written")
	}
}
