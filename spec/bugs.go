package spec

// SeededBugBounds returns, for every seeded bug, the smallest bounds on which
// the explorer is known to expose it (the tests pin the property that fails
// and the trace length). The same bounds with BugNone pass every check.
func SeededBugBounds() []Bounds {
	return []Bounds{
		{Ps: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Bug: BugReadyNoWakep},
		{Ps: 1, Gs: 4, Cap: 2, Spawn: 3, SchedTick: 2, Bug: BugNo61},
		{Ps: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Bug: BugSpinNoDec},
		{Ps: 1, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Netpoll: true, Bug: BugGoschedLocal},
		{Ps: 1, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Bug: BugRetakeIgnoresLocal},
	}
}
