package bughist

// The known scheduler bugs outside the model: each is a real golang/go
// scheduler bug with its facts checked as the catalog's are, but the model
// has no mechanism (or no property) in which to write it down, so nothing
// can reproduce it. Entry.Needs says what the model lacks. They are kept
// apart from the catalog so that the catalog is what 'gmpcheck bugs NAME'
// reproduces, and so that nothing about them reads as a pass: a
// reproduction of one reports "outside the model" and exits 1. When the
// model gains what an entry needs, the entry gets its Variant and moves to
// Catalog (TestCatalog fails until it does).

// Outside is every known scheduler bug outside the model, by issue number.
func Outside() []Entry {
	return []Entry{
		{
			Name: "hist-13527", Issue: 13527,
			Title:    "runtime: Gosched causes scheduler thrashing",
			Versions: "1.5 -> 1.6", Area: "spinning Ms (wakep policy)",
			Affected:  "1.5",
			Fixed:     "1.6 (resetspinning only for an M that was spinning)",
			Mechanism: "schedule -> resetspinning -> wakep; nmspinning, npidle",
			Cause: "In 1.5 schedule called resetspinning after every findrunnable, spinning or not, and resetspinning woke a spinning M " +
				"whenever none spun and a P idled. A lone G looping on Gosched found itself on the global queue each time, so every " +
				"yield woke an M that found nothing, released its P and parked again: futex churn that cost measurable CPU in production.",
			Fix:      "from 1.6 only an M that was spinning and found work wakes another spinner (the parking/unparking protocol at the top of proc.go); the change is not verified",
			Property: "a cost check (a wakep issued by an M that was not spinning, or a started spinner that stops with nothing run); no safety or liveness property fails",
			Needs:    "a cost check on transitions (futile wakeups) and a resetspinning-always variant: the defect is CPU cost, not safety or liveness",
		},
		{
			Name: "hist-38070", Issue: 38070,
			Title:    "runtime: timer self-deadlock due to preemption point",
			Versions: "1.14 -> 1.14.x", Area: "timers",
			Affected:  "1.14 (per-P timer heaps)",
			Fixed:     "a 1.14 point release (which one, and the change, are not verified)",
			Mechanism: "timers: modtimer, wakeNetPoller, checkTimers at the top of schedule; synchronous preemption at a prologue",
			Cause: "modtimer left the timer in its modifying state and called wakeNetPoller, whose prologue could take a preemption " +
				"request into goschedImpl and schedule. schedule ran checkTimers on the same P, found that timer at the top of the heap, " +
				"and spun waiting for it to leave the modifying state, which only the descheduled G could do.",
			Fix:      "no preemption point between entering and leaving the modifying state",
			Property: "deadlock (the explorer's stuck states) or liveness of runtimer",
			Needs:    "the timer status machine (a timer's modifying state and the Ps that wait on it) and a preemption point inside a two-step timer modification: the model's timers are sleeps on per-P heaps, set once and run once by checkTimers or a steal round, never modified",
		},
		{
			Name: "hist-40368", Issue: 40368,
			Title:    "runtime: fatal error: checkdead: runnable g",
			Versions: "1.14 -> 1.14.x/1.15", Area: "M creation (checkdead)",
			Affected:  "1.14 (reported on go1.14.6 with GOMAXPROCS=1; earlier releases not dated)",
			Fixed:     "1.14.x and 1.15 (startm reserves the new M's id: mReserveID absent from go1.13.15, present in go1.14.15 and go1.15.15)",
			Mechanism: "startm -> newm with sched.lock dropped; exitsyscall's slow path; checkdead",
			Cause: "With no idle M, startm took an idle P, dropped sched.lock and called newm, and the M was not yet counted where " +
				"checkdead looks. In that window a G returning from a syscall found no idle P, queued itself globally and its M parked; " +
				"checkdead then saw a runnable G and no running M and threw.",
			Fix:      "reserve the new M's id (mReserveID) before dropping sched.lock, so that checkdead counts it",
			Property: "invariant checkdead: a runnable G implies an M that is not parked",
			Needs:    "M creation (newm) as two steps with sched.lock dropped between them, sysmon's startm(nil) for overdue timers (go1.14.15's sysmon calls it without the incidlelocked(-1) it puts around injectglist and retake, which is what leaves the window uncounted), and a checkdead invariant with the runtime's accounting; the model cuts startm past the M bound instead",
		},
		{
			Name: "hist-43997", Issue: 43997,
			Title:    "runtime: non-spinning Ms spin uselessly when work exists",
			Versions: "<=1.16 -> 1.17", Area: "spinning Ms (no-P recheck)",
			Affected:  "up to 1.16 (every M rechecked all run queues after dropping its P)",
			Fixed:     "1.17, CL 310850 (only a spinning M rechecks, in checkRunqsNoP)",
			Mechanism: "findrunnable's drop section and no-P recheck; the spin limit; wakep's transient nmspinning increment",
			Cause: "Up to 1.16 every M, spinning or not, rechecked every P's queue after releasing its own, and on finding work took an " +
				"idle P and went back to the top. Ms that had already failed the spin limit kept re-acquiring Ps and spinning, which " +
				"burned CPU without lowering latency. The report also showed that nmspinning over-counts while wakep's increment is undone.",
			Fix:      "CL 310850: only an M that was spinning rechecks; that opened golang/go#45867",
			Property: "a cost check; a go1.16 variant (every M rechecks) must pass work conservation",
			Needs:    "a go1.16 variant in which non-spinning Ms enter the no-P recheck, and a cost check: the defect is wasted CPU, not lost work",
		},
		{
			Name: "hist-59600", Issue: 59600, Related: []int{60788},
			Title:    "runtime: checkdead fires due to suspected race in the Go runtime when GOMAXPROCS=1 on AWS",
			Versions: "1.20 -> 1.21/1.20.x", Area: "netpoll (injectglist startIdle)",
			Affected:  "1.20 (introduced by CL 389014, the golang/go#45867 fix, per golang/go#60788)",
			Fixed:     "1.21, backported to 1.20.x (startm's lockheld: absent from go1.20, present in go1.21.0 and go1.20.14)",
			Mechanism: "injectglist's startIdle: pidlegetSpinning, unlock, startm; checkdead",
			Cause: "CL 389014 made injectglist take an idle P with pidlegetSpinning under sched.lock, unlock, and only then call " +
				"startm, which locked again to start an M for it. Between the two sections the P was off the idle list with no M " +
				"accounted for it, and a checkdead run in that window (from a parking M) saw runnable Gs and no running M. With " +
				"GOMAXPROCS=1 the only P is the one in flight, so the window was easy to hit.",
			Fix:      "startm(pp, spinning, lockheld): the caller keeps sched.lock from taking the P to starting the M",
			Property: "invariant checkdead, checked wherever sched.lock is free",
			Needs:    "injectglist's startIdle as two lock sections and a checkdead invariant (the model's InjectGList is one step)",
		},
		{
			Name: "hist-74414", Issue: 74414,
			Title:    "runtime: use-after-free of `allpSnapshot` in `findRunnable`",
			Versions: "1.10-1.24 -> 1.25", Area: "procresize (allp snapshot)",
			Affected:  "1.10 (the snapshot of golang/go#23098) to 1.24",
			Fixed:     "1.25, backported (the snapshot is held by the M in go1.23.12, go1.24.13 and go1.25.14)",
			Mechanism: "procresize and the GC against the no-P recheck's allp snapshot",
			Cause: "The allp snapshot lived only on the system stack of an M without a P, which neither stop-the-world nor the GC " +
				"waits for or scans. procresize could replace allp's backing array, leaving the snapshot its only reference, and a GC " +
				"could free and reuse it while the rechecking M still read it.",
			Fix:      "the snapshot is published through the M, where the GC finds it; the change is not verified",
			Property: "memory safety; outside a run-queue model",
			Needs:    "a heap with GC reachability: procresize and the no-P recheck's allp snapshot are modelled, but this is a memory-lifetime bug (the snapshot's backing array freed while still read), out of the model's scope",
		},
	}
}
