package tlacheck

import (
	"context"
	"fmt"

	"github.com/gmpcheck/gmpcheck/spec"
)

// maxDOTStates is the largest graph, in distinct states, whose DOT export
// is asked of tla-checker. Its wasm build writes the whole graph (every
// state's variables, every labelled edge) into one string inside its
// 32-bit memory, then into its JSON result: about 1.6 KB a state on a
// three-P model. GMP_np3's 490,974 states crashed it ("RuntimeError:
// unreachable", after 65 minutes, 2 December 2026), while GMP_timers_stw's
// 277,067 and GMP_timers_g2's 230,260 were exported and cross-checked the
// same day.
//
// A variable only so that a test can lower it.
var maxDOTStates = 400000

// DOTFits reports whether c's graph (GraphSize) is small enough for
// tla-checker's DOT export. Past it the cross-check cannot compare the
// graph itself: tla-checker still checks the invariants and deadlock, its
// distinct-state count must equal the spec's, and the graph's identity is
// TLC's to show (tla/'s TestModels dumps TLC's graph of such a cfg and
// compares it, CompareTLCGraph).
func DOTFits(ctx context.Context, c Cfg) bool {
	return GraphSize(ctx, c, maxDOTStates+1) <= maxDOTStates
}

// notExported says, in a Result's message, how a graph too large to export
// was held to the spec's.
func notExported(states int) string {
	return fmt.Sprintf("its graph not exported (%d states, past the %d tla-checker can export), the spec's has as many states", states, maxDOTStates)
}

// countDiffers says why the spec's exploration r cannot stand for
// tla-checker's unexported graph of states states, or "" when it can: it
// completed and found as many.
func countDiffers(states int, r spec.Result) string {
	if r.Complete && r.Distinct == states {
		return ""
	}
	return fmt.Sprintf("tla-checker found %d states, spec.Explore %d on the cfg's bounds (complete: %v)", states, r.Distinct, r.Complete)
}
