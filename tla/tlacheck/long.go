package tlacheck

// LongCfgs are the cfgs whose tla-checker run takes minutes. The state
// counts below are each cfg's when it moved here; refinements of the model
// have grown most since (GMP_np3 has 510198 states now, GMP_locked_timer
// 325382, GMP_timers_stw 288555, GMP_timers_g2 241066, GMP_hist_52934
// 178644: about 2.21 million for the 32 cfgs, since the no-P recheck's
// becomeSpinning became a step of its own), and GraphSize gives today's. GMP_np3, the
// smallest three-P model at the runtime's granularity (278750 states since
// the top of findRunnable takes one read per step, at a few hundred states
// a second); GMP_go121, the smallest bounds on which the Go 1.21 scheduler
// loses a wakeup (13130 states); GMP_live and GMP_bug_ready_no_wakep_live
// (21912 and 22052 states, two to three minutes each under load); GMP_go122
// and GMP_injectlist, injectglist with a P (22360 and 22504 states);
// GMP_lockosthread and GMP_syscallblock (18882 and 11684 states, one to two
// minutes each under load: together they would have added about a minute and
// a half of wall time to the test command, already 8 min 39 s); and
// GMP_p2_tick1 (15496 states, 35 s of the test command's tla-checker time,
// which had reached 597 s of its 600 from an empty build cache, and 2 min 16 s
// under gmpcheck verify's 2-minute budget at high load); GMP_hist_52934,
// golang/go#52934's local-queue starvation (liveness (c) fails at 144988
// states); GMP_stw (stop-the-world and procresize, 117310 states) and
// GMP_bug_findrunnable_ignores_gcwaiting (liveness (d) on its whole graph,
// 22658 states); GMP_hist_13546 (golang/go#13546, 41772 states, liveness
// (c) on the whole graph); GMP_bug_procresize_drops_runq (stop-the-world's
// invariant failure, 6533 states: 23 to 45 s under tla-checker); GMP_timers
// (timers at the smallest two-P bounds, 22669 states: minutes under
// tla-checker) and GMP_bug_timers_not_stolen (the same bounds under the
// seeded bug, 14542 states to its TimerRuns lasso (13606 when timed): 1 m 44 s to 6 m 27 s,
// over gmpcheck verify's 2-minute budget per cfg and a quarter of the test
// command's tla-checker time; the explorer and the impl's comparison catch
// the bug in the default tier, TLC there too when present); GMP_pollblock
// (the blocking poller, 4730 states, 32 to 54 s at 4354), GMP_timers_p1 (timers
// on one P, 5063 states, 37 s to 1 m 48 s) and
// GMP_bug_handoffp_ignores_poller (4266 states, 35 s to 1 m 48 s): with
// them the test command took 10 min 58 s; and GMP_hist_38860 (golang/go#38860
// at GMP_timers' bounds, 12652 states to its deadlock: 1 m 46 s, TLC 19 s);
// GMP_timers_g2 (GMP_timers with two Gs, 212218 states: an hour of
// tla-checker, so .ci/run's no-jar pass leaves it out as it does GMP_np3);
// GMP_goyield (semrelease's hand-off and goyield, 8696 states) and
// GMP_goyield_stw (the same with a stop-the-world, whose completion needs
// the goyield after a hand-off to be fair, 59079 states: TLC 35 s);
// GMP_timers_stw (timers with stop-the-world and procresize, 260596
// states: hours of tla-checker, left out of .ci/run's no-jar pass too);
// GMP_go119 (golang/go#45867's lost wakeup, 9956 states: its tla-checker
// graph took 4 minutes alone under load, the test command's longest pole,
// which then ran 10 min 7 s from an empty cache); GMP_hist_45867 (the same
// lost wakeup without netpoll, 4146 states, the bound 'gmpcheck bugs'
// reproduces it on: 37 s of tla-checker alone); GMP_mechanisms (syscalls,
// entersyscallblock, the blocking poller, LockOSThread and goyield at one
// P, 14507 states); GMP_stw_g1 (GMP_stw with one G, 24206 states) and
// GMP_timers_sleep (GMP_timers_p1 with two Gs, 39332 states), added for
// the TLA+ mutants no short cfg reached (docs/mutation.md, section 0k);
// GMP_syscalls and GMP_netpoll (5432 and 5792 states: 103 CPU-s of
// tla-checker, a sixth of the test command's first stage, which with them
// took it past 10 minutes), whose every kind of step GMP_sysnet (4496
// states, both mechanisms at SchedTick 1) takes in the default tier. In
// the default tier the
// explorer checks their bounds, the impl's comparison and the explorer
// catch their seeded bugs, and TLC, when present, checks the cfgs and
// compares the graph it dumps for each passing one with the spec's
// (CompareTLCGraph). GMP_locked_timer (Go 1.26's due timer stranded
// behind a locked M's handoff, GMP_timers_g2's bounds with LockOSThread,
// 289362 states) is left out of .ci/run's no-jar pass as GMP_timers_g2 is.
// GMP_hist_23098 left this tier when its bounds shrank to one G (1053
// states to its violation, 3 s). The default test tier
// and gmpcheck verify check their bounds with the Go explorer (and TLC when
// present) instead, and keep three GMP cfgs of up to 4496 states under
// tla-checker and the graph cross-check (and the seeded bugs);
// go test ./tla -long, GMPCHECK_LONG=1 and gmpcheck tla -run run
// tla-checker and the graph cross-check on these too.
//
// RunQueue_cap4 and RunQueue_cap4_t2 (42216 and 28536 states, 27 CPU-s of
// tla-checker between them, a quarter of tla/'s in the test command)
// joined the tier on 2 December 2026. RunQueue.cfg and the four seeded
// RunQueue bugs stay in the default tier, and with the TLA+ self-tests
// they kill every RunQueue.tla mutant of the catalog (docs/tla.md).
// RunQueue.tla has no Go twin to explore their bounds, so the default tier
// checks them with TLC only, when present; the interleaving explorer
// checks the queue code itself at capacity 4 with two thieves.
// GMP_bug_no_1_61 (the seeded bug no-61, NoGlobalStarvation on 8243
// states: 20 CPU-s of tla-checker and Go liveness, the default tier's
// costliest cfg) joined it the same day, as GMP_bug_timers_not_stolen
// had: the explorer finds its violation on the cfg's bounds here (and
// spec's TestSeededBugsAreFound, the impl's comparison and the verify
// stage catch the bug), TLC checks the cfg when present, and
// GMP_hist_10958's NoLocalStarvation keeps a failing temporal cfg on the
// tla-checker graph and Go liveness path in the default tier.
var LongCfgs = map[string]bool{"GMP_np3": true, "GMP_go121": true, "GMP_live": true, "GMP_bug_ready_no_wakep_live": true,
	"GMP_go122": true, "GMP_injectlist": true, "GMP_lockosthread": true, "GMP_syscallblock": true, "GMP_p2_tick1": true,
	"GMP_hist_52934": true, "GMP_stw": true, "GMP_bug_findrunnable_ignores_gcwaiting": true, "GMP_hist_13546": true,
	"GMP_bug_procresize_drops_runq": true, "GMP_timers": true, "GMP_bug_timers_not_stolen": true, "GMP_pollblock": true,
	"GMP_timers_p1": true, "GMP_bug_handoffp_ignores_poller": true, "GMP_hist_38860": true, "GMP_timers_g2": true, "GMP_goyield": true, "GMP_goyield_stw": true,
	"GMP_timers_stw": true, "GMP_go119": true, "GMP_hist_45867": true, "GMP_mechanisms": true,
	"GMP_stw_g1": true, "GMP_timers_sleep": true, "GMP_syscalls": true, "GMP_netpoll": true,
	"GMP_locked_timer": true, "RunQueue_cap4": true, "RunQueue_cap4_t2": true, "GMP_bug_no_1_61": true}
