package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/internal/interleave"
	"github.com/gmpcheck/gmpcheck/spec"
)

// backend drives Queues as the interleaving explorer's interleave.Backend.
type backend struct{ q Queues }

func (b backend) Reset(n, c int) error {
	if c != b.q.Cap() {
		return fmt.Errorf("harness: a scenario of capacity %d on queues of capacity %d", c, b.q.Cap())
	}
	b.q.Reset(n)
	return nil
}

func (b backend) Put(q int, g spec.GID, next bool) { b.q.Put(q, uint64(g), next) }
func (b backend) Get(q int) (spec.GID, bool) {
	g, inherit := b.q.Get(q)
	return spec.GID(g), inherit
}
func (b backend) Drain(q int) []spec.GID { return gids(b.q.Drain(q)) }
func (b backend) Steal(thief, victim int, srn bool) spec.GID {
	return spec.GID(b.q.Steal(thief, victim, srn))
}
func (b backend) Empty(q int) bool { return b.q.Empty(q) }
func (b backend) Contents(q int) (spec.GID, []spec.GID) {
	next, ring := b.q.Contents(q)
	return spec.GID(next), gids(ring)
}
func (b backend) GlobalPut(g spec.GID) { b.q.GlobPut(uint64(g)) }
func (b backend) GlobalContents() []spec.GID {
	gs, _ := b.q.GlobContents()
	return gids(gs)
}
func (b backend) SetYield(f func(op impl.Op, obj int)) error {
	b.q.SetYield(f)
	return nil
}

// Explore runs every scenario of the interleaving explorer whose capacity
// is q's, under every schedule DPOR leaves, on q. A scenario that drains is
// left out when the release has no runqdrain, and counted as such. The
// first violation fails; a search that could not finish is inconclusive.
// only, if not nil, selects scenarios by name. With windows, the scenarios
// whose search stays small (those not in interleave.WindowOrdersTooBig, and
// not stale-grab) are explored again with every real-time order of the
// calls' windows, so linearizability is checked under each.
func Explore(ctx context.Context, q Queues, only map[string]bool, windows bool) (string, error) {
	var ran, skipped, execs, wran, wexecs int
	for _, sc := range append(interleave.Scenarios(), extraScenarios...) {
		if sc.Cap != q.Cap() || only != nil && !only[sc.Name] {
			continue
		}
		if !q.HasDrain() && usesDrain(&sc) {
			skipped++
			continue
		}
		opt := interleave.DefaultOptions()
		opt.Run.Backend = backend{q}
		res, err := interleave.Explore(ctx, &sc, opt)
		execs += res.Executions
		count := fmt.Sprintf("%d scenarios, %d interleavings", ran, execs)
		if err := outcome(sc.Name, res, err); err != nil {
			return count, err
		}
		ran++
		if !windows || interleave.WindowOrdersTooBig[sc.Name] || sc.Name == "stale-grab" {
			continue
		}
		opt.WindowOrders = true
		res, err = interleave.Explore(ctx, &sc, opt)
		wexecs += res.Executions
		count = fmt.Sprintf("%d scenarios, %d interleavings; with windows %d scenarios, %d", ran, execs, wran, wexecs)
		if err := outcome(sc.Name+" (windows)", res, err); err != nil {
			return count, err
		}
		wran++
	}
	count := fmt.Sprintf("%d scenarios, %d interleavings (DPOR, exhaustive)", ran, execs)
	if windows {
		count += fmt.Sprintf(" + %d with every window order (%d scenarios)", wexecs, wran)
	}
	if skipped > 0 {
		count += fmt.Sprintf("; %d with runqdrain not applicable", skipped)
	}
	if ran == 0 {
		return count, fmt.Errorf("%w: no scenario ran", ErrInconclusive)
	}
	return count, nil
}

// extraScenarios are run on the releases' code besides the explorer's
// built-in ones.
var extraScenarios = []interleave.Scenario{{
	// The owner consumes and refills its ring between a thief's read of
	// head and its read of tail, so the thief can see t-h > C: runqgrab
	// must discard that read (its "n > len/2" retry). Without the retry it
	// copies more than C/2 slots into its own ring, over the G it holds,
	// before its CAS fails: that G is lost and another duplicated.
	Name: "stale-grab",
	Doc:  "a thief holding g8 steals while the owner gets and refills its ring",
	Cap:  4, Queues: 2,
	Init: []interleave.QueueInit{{Ring: []spec.GID{1, 2}}, {Ring: []spec.GID{8}}},
	Actors: []interleave.Actor{
		{Name: "owner", Queue: 0, Script: []interleave.Call{
			{Kind: interleave.Get}, {Kind: interleave.Get},
			{Kind: interleave.Put, G: 3}, {Kind: interleave.Put, G: 4}, {Kind: interleave.Put, G: 5}, {Kind: interleave.Put, G: 6},
			{Kind: interleave.Get}, {Kind: interleave.Put, G: 7}}},
		{Name: "thief", Queue: 1, Script: []interleave.Call{{Kind: interleave.Steal, Q: 0}}},
	},
}}

func usesDrain(sc *interleave.Scenario) bool {
	for _, a := range sc.Actors {
		for _, c := range a.Script {
			if c.Kind == interleave.Drain {
				return true
			}
		}
	}
	return false
}

func trace(ex *interleave.Execution) string {
	var b strings.Builder
	interleave.WriteTrace(&b, ex)
	return b.String()
}

// outcome turns one scenario's exploration into nil (every interleaving
// passed), its counterexample, or ErrInconclusive when it was cut short.
func outcome(name string, res interleave.Result, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", name, err)
	case res.Violation != nil:
		v := res.Violation
		return fmt.Errorf("%s: %s\nschedule %s\n%s", name, v.Error(), v.Exec.Schedule(), trace(v.Exec))
	case !res.Complete:
		return fmt.Errorf("%s: %w: %s", name, ErrInconclusive, res.StopReason)
	}
	return nil
}
