package conform

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gmpcheck/gmpcheck/spec"
)

// A Change is what one spec action does to one G's status, as the
// G-level projection of the spec's transition relation sees it.
type Change struct {
	Kind spec.ActionKind
	From spec.GStatus // GIdle stands for "absent" (never created or exited: spec GIdle or GDead)
	To   spec.GStatus
	// Self: the G that changes is the acting M's current G (it does this to
	// itself); otherwise another G (created, readied) or, for the schedule
	// loop's steps, the G the M picks.
	Self bool
}

func (c Change) String() string {
	who := "other"
	if c.Self {
		who = "self"
	}
	return fmt.Sprintf("%v: %v→%v (%s)", c.Kind, c.From, c.To, who)
}

var (
	projOnce sync.Once
	proj     []Change
	projErr  error
)

// Projection is the set of G status changes the spec's actions make, found
// by exploring a small model of spec/ (every action kind occurs in it)
// and recording, for each transition, each G whose status it changed. The
// runtime trace checker explains an observed G transition only by the
// spec actions listed here for it.
func Projection() ([]Change, error) {
	projOnce.Do(func() { proj, projErr = project() })
	return proj, projErr
}

func absentOr(s spec.GStatus) spec.GStatus {
	if s == spec.GDead {
		return spec.GIdle
	}
	return s
}

// projectBounds walks the first limit states of b breadth first and adds
// every (action, G status change) it sees to set, and every action to kinds.
func projectBounds(b spec.Bounds, limit int, set map[Change]bool, kinds map[spec.ActionKind]bool) error {
	md, err := spec.NewModel(b)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	queue := []spec.State{md.Init()}
	seen[queue[0].Key()] = true
	for len(queue) > 0 && len(seen) < limit {
		s := queue[0]
		queue = queue[1:]
		for _, a := range md.Enabled(s) {
			t, err := md.Step(s, a)
			if err != nil {
				continue // an M bound cut
			}
			kinds[a.Kind] = true
			var cur spec.GID
			if a.M >= 0 {
				cur = s.M[a.M].CurG
			} else if a.Kind == spec.ActPreempt {
				for m := 0; m < s.NumMs(); m++ {
					if s.M[m].P == a.P {
						cur = s.M[m].CurG
					}
				}
			}
			for g := 1; g <= s.NumGs(); g++ {
				from, to := absentOr(s.G[g]), absentOr(t.G[g])
				if from != to {
					set[Change{a.Kind, from, to, spec.GID(g) == cur}] = true
				}
			}
			if k := t.Key(); !seen[k] {
				seen[k] = true
				queue = append(queue, t)
			}
		}
	}
	return nil
}

func project() ([]Change, error) {
	set := map[Change]bool{}
	kinds := map[spec.ActionKind]bool{}
	// The first bound reaches every action but injectglist with a P, which
	// needs two Gs parked on the poller at once, and the locked-thread and
	// entersyscallblock steps; the others are small enough for the
	// breadth-first walk to get there.
	for _, pb := range []struct {
		b     spec.Bounds
		limit int
	}{
		{spec.Bounds{Ps: 2, Ms: 4, Gs: 3, Cap: 2, Spawn: 3, SchedTick: 2, Syscalls: true, Netpoll: true}, 30_000},
		{spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, InjectList: true}, 30_000},
		{spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, SyscallBlock: true, LockOSThread: true}, 30_000},
		{spec.Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Syscalls: true, STW: true, ProcResize: true}, 30_000},
		// semrelease's hand-off and its goyield.
		{spec.Bounds{Ps: 1, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Goyield: true}, 1_000},
		// The blocking poller and timers (spec.PollActionKinds, which
		// the impl emits as EvActions too). Its rarest step,
		// NetpollBreak (an M with a timer finds the poller asleep with
		// none: two Ms off their Ps, a G on the network, a G asleep),
		// is first reached at the breadth-first walk's 83,231st state.
		{spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 1, Netpoll: true, PollBlock: true, Timers: 1}, 90_000},
	} {
		if err := projectBounds(pb.b, pb.limit, set, kinds); err != nil {
			return nil, err
		}
	}
	for _, k := range spec.ActionKinds() {
		if !kinds[k] && k.InGo126() {
			return nil, fmt.Errorf("conform: the projection model never takes %v", k)
		}
	}
	out := make([]Change, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Change) int {
		if a.Kind != b.Kind {
			return int(a.Kind) - int(b.Kind)
		}
		if a.From != b.From {
			return int(a.From) - int(b.From)
		}
		return int(a.To) - int(b.To)
	})
	return out, nil
}

// explaining lists the spec actions that change a G from → to.
func explaining(pr []Change, from, to spec.GStatus) []Change {
	var out []Change
	for _, c := range pr {
		if c.From == from && c.To == to {
			out = append(out, c)
		}
	}
	return out
}
