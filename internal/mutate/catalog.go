package mutate

// Catalog is the semantic mutants: the realistic scheduler and queue bugs an
// operator tool cannot make. Each is (file, exact original text,
// replacement) against the code as committed; when the text is gone or no
// longer unique the harness reports the entry stale (never killed, never
// survived), so an entry fails loudly once the code it targets changes.
// The Kind of every entry is KindSemantic; ID prefixes name the area.
var Catalog = []Mutant{
	// ---- impl/runq: the lock-free ring and the global queue ----
	sem("runq/put-runnext-no-cas-retry", AreaRunq, "impl/runq.go", "missing CAS retry: runqput's runnext CAS is tried once and its failure ignored",
		"\t\tfor {\n\t\t\told = q.loadRunnext()\n\t\t\tif q.casRunnext(old, g) {\n\t\t\t\tbreak\n\t\t\t}\n\t\t}",
		"\t\told = q.loadRunnext()\n\t\tq.casRunnext(old, g)"),
	sem("runq/get-no-cas-retry", AreaRunq, "impl/runq.go", "missing CAS retry: runqget returns the head G whether or not its CAS on head won",
		"\t\tif q.casHead(h, h+1) {\n\t\t\treturn g, false\n\t\t}\n\t}\n}",
		"\t\tq.casHead(h, h+1)\n\t\treturn g, false\n\t}\n}"),
	sem("runq/putslow-failure-ignored", AreaRunq, "impl/runq.go", "missing CAS retry: runqput returns when runqputslow's CAS on head failed, dropping g",
		"\t\tif q.putSlow(g, h, t) {\n\t\t\treturn\n\t\t}",
		"\t\tq.putSlow(g, h, t)\n\t\treturn"),
	sem("runq/put-publish-before-write", AreaRunq, "impl/runq.go", "step reordered: runqput stores tail before the slot (in the default build, not the hooks' seeded switch)",
		"\t\t\tq.storeSlot(t, g)\n\t\t\tq.storeTail(t + 1)\n\t\t\treturn\n\t\t}\n\t\tif q.putSlow(g, h, t) {",
		"\t\t\tq.storeTail(t + 1)\n\t\t\tq.storeSlot(t, g)\n\t\t\treturn\n\t\t}\n\t\tif q.putSlow(g, h, t) {"),
	sem("runq/empty-no-recheck", AreaRunq, "impl/runq.go", "guard removed: runqempty trusts one read of head, tail and runnext",
		"\t\tif t == q.loadTail() {\n\t\t\treturn h == t && next == nil\n\t\t}",
		"\t\tif true {\n\t\t\treturn h == t && next == nil\n\t\t}"),
	sem("runq/grab-inconsistent-read-kept", AreaRunq, "impl/runq.go", "guard removed: runqgrab keeps a read of head and tail that is larger than half the ring",
		"\t\tif n > victim.size()/2 {\n\t\t\tcontinue // inconsistent read of head and tail\n\t\t}\n", ""),
	sem("runq/steal-runnext-cas-ignored", AreaRunq, "impl/runq.go", "missing CAS retry: a thief takes runnext whether or not its CAS won",
		"\tif !victim.casRunnext(next, nil) {\n\t\treturn 0, false\n\t}",
		"\tvictim.casRunnext(next, nil)"),
	sem("runq/drain-skips-runnext", AreaRunq, "impl/runq.go", "dropped step: runqdrain leaves runnext behind",
		"\tvar out GQueue\n\tif next := q.loadRunnext(); next != nil && q.casRunnext(next, nil) {\n\t\tout.PushBack(next)\n\t}",
		"\tvar out GQueue"),
	sem("runq/steal-overflow-unchecked", AreaRunq, "impl/runq.go", "guard removed: runqsteal publishes without its overflow check",
		"\tif t-h+n >= q.size() {\n\t\tpanic(\"runqsteal: runq overflow\")\n\t}\n", "\t_ = h\n"),
	sem("runq/globbatch-no-fair-share", AreaRunq, "impl/globrunq.go", "invariant weakened: globrunqgetbatch ignores the size/gomaxprocs+1 fair share",
		"\tn = min(n, size, size/gomaxprocs+1)", "\tn = min(n, size)"),
	sem("runq/gqueue-tail-not-cleared", AreaRunq, "impl/gqueue.go", "field not cleared: a GQueue that pops its last G keeps its tail",
		"\t\tq.head = g.schedlink\n\t\tif q.head == nil {\n\t\t\tq.tail = nil\n\t\t}", "\t\tq.head = g.schedlink"),

	// ---- impl/sched: the G/M/P scheduler ----
	sem("sched/newproc-no-wakep", AreaSched, "impl/proc.go", "dropped wakep: newproc does not wake an idle P for the new G",
		"\ts.emit(Event{Kind: EvRunqPut, P: pp.id, G: g.goid, On: true})\n\ts.wakep(m)\n\treturn g", "\ts.emit(Event{Kind: EvRunqPut, P: pp.id, G: g.goid, On: true})\n\treturn g"),
	sem("sched/run-no-resetspinning", AreaSched, "impl/proc.go", "dropped resetspinning: a spinning M that found work keeps spinning",
		"\tif m.spinning {\n\t\ts.resetspinning(m)\n\t}", "\t_ = m.spinning"),
	sem("sched/gosched-no-wakep", AreaSched, "impl/proc.go", "dropped wakep: goschedImpl (golang/go#55160 as a mutant, in every release)",
		"\tif s.cfg.Go != spec.Go121 { // 1.22 added this wakep (golang/go#55160)\n\t\ts.wakep(m)\n\t}", ""),
	sem("sched/ready-no-wakep", AreaSched, "impl/proc.go", "dropped wakep: ready (the seeded bug, here in the code rather than behind Config.Bug)",
		"\tif !s.bugOn(spec.BugReadyNoWakep) {\n\t\ts.wakep(m)\n\t}\n\treturn nil", "\treturn nil"),
	sem("sched/injectglist-no-startm", AreaSched, "impl/proc.go", "dropped startm: injectglist queues the G but starts no M on an idle P",
		"\tif pp := s.pidlegetSpinning(); pp != nil {\n\t\ts.startm(pp, false, true)\n\t}", "\t_ = s.pidlegetSpinning"),
	sem("sched/dropg-m-not-cleared", AreaSched, "impl/proc.go", "field not cleared: dropg leaves g.m set",
		"\tm.curg.Store(nil)\n\tg.x.m = nil", "\tm.curg.Store(nil)"),
	sem("sched/resetspinning-no-wakep", AreaSched, "impl/m.go", "dropped wakep: resetspinning does not wake another spinning M",
		"\t\t\tpanic(\"findRunnable: negative nmspinning\")\n\t\t}\n\t}\n\ts.wakep(m)\n}", "\t\t\tpanic(\"findRunnable: negative nmspinning\")\n\t\t}\n\t}\n}"),
	sem("sched/wakep-no-idlep-keeps-count", AreaSched, "impl/m.go", "dropped step: wakep's failed pidlegetSpinning (WakepNoP) leaves its won CAS counted in nmspinning",
		"\tif pp == nil {\n\t\ts.nmspinning.Add(-1)\n", "\tif pp == nil {\n"),
	sem("sched/needspinning-never-set", AreaSched, "impl/m.go", "dropped step: pidlegetSpinning never sets needspinning (Go 1.19's behaviour)",
		"\tif pp == nil && s.cfg.Go != spec.Go119 {\n\t\ts.needspinning.Store(1)\n\t}", ""),
	sem("sched/inject-no-final-wakep", AreaSched, "impl/netpoll.go", "dropped call: injectglist with a P has no final wakep in go1.26 (golang/go#63555)",
		"\tif s.cfg.Go == spec.Go126 {\n\t\ts.wakep(m)\n\t}\n", ""),
	sem("sched/becomespinning-keeps-needspinning", AreaSched, "impl/m.go", "field not cleared: becomeSpinning leaves needspinning set",
		"\ts.nmspinning.Add(1)\n\ts.needspinning.Store(0)", "\ts.nmspinning.Add(1)"),
	sem("sched/handoffp-ignores-global", AreaSched, "impl/m.go", "guard removed: handoffp idles a P although the global queue has work",
		"\tif local || s.globNonEmpty() {", "\tif local {"),
	sem("sched/no-global-61", AreaSched, "impl/schedule.go", "guard removed: findRunnable never checks the global queue first (the 1/61 fairness)",
		"\tif !s.bugOn(spec.BugNo61) && pp.schedtick.Load()%s.period == 0 {", "\tif false && pp.schedtick.Load()%s.period == 0 {"),
	sem("sched/dropstep-ignores-needspinning", AreaSched, "impl/schedule.go", "guard removed: an M about to release its P ignores needspinning",
		"\tif !m.spinning && s.needspinning.Load() == 1 {", "\tif false {"),
	sem("sched/recheck-runqs-skips-idle-check", AreaSched, "impl/schedule.go", "step reordered: checkRunqsNoP's P cursor is not reset after a hit",
		"\t\tm.pc, m.rpos = spec.MRecheckP, 0\n", "\t\tm.pc = spec.MRecheckP\n"),
	sem("sched/dropspinning-no-dec", AreaSched, "impl/schedule.go", "dropped step: the delicate dance does not decrement nmspinning",
		"\tif s.nmspinning.Add(-1) < 0 {\n\t\tpanic(\"findRunnable: negative nmspinning\")\n\t}\n\tm.pc = spec.MRecheck", "\tm.pc = spec.MRecheck"),
	sem("sched/exitsyscall-oldp-kept", AreaSched, "impl/syscall.go", "field not cleared: exitsyscall keeps m.oldp",
		"\t}\n\tm.oldp = nil\n", "\t}\n"),

	// ---- impl/gm: the GM baseline ----
	sem("gm/newproc-no-signal", AreaGM, "impl/gm.go", "dropped wakeup: the GM newproc does not signal an idle M",
		"\ts.runq.push(g)\n\ts.deadErr = nil\n\tif s.nidle > 0 {\n\t\ts.cond.Signal()\n\t}\n\ts.mu.Unlock()\n\treturn nil\n}\n\n// Go starts", "\ts.runq.push(g)\n\ts.deadErr = nil\n\ts.mu.Unlock()\n\treturn nil\n}\n\n// Go starts"),
	sem("gm/pop-tail-not-cleared", AreaGM, "impl/gm.go", "field not cleared: the GM queue keeps its tail when it pops the last G",
		"\t\tif q.head == nil {\n\t\t\tq.tail = nil\n\t\t}", ""),
	sem("gm/park-unlock-before-waiting", AreaGM, "impl/gm.go", "step reordered: park releases the lock before the G is waiting",
		"\t\t\tg.status.Store(uint32(Gwaiting))\n\t\t\tif l != nil {\n\t\t\t\tl.Unlock()\n\t\t\t}", "\t\t\tif l != nil {\n\t\t\t\tl.Unlock()\n\t\t\t}\n\t\t\tg.status.Store(uint32(Gwaiting))"),

	// ---- spec: the model ----
	sem("spec/newproc-no-wakep", AreaSpec, "spec/model.go", "dropped wakep: ActNewProc",
		"\t\ts.SpawnLeft--\n\t\tmd.wakep(ms)\n", "\t\ts.SpawnLeft--\n"),
	sem("spec/run-no-wakep", AreaSpec, "spec/model.go", "dropped wakep: resetspinning in run (the spinning M that found work wakes no other)",
		"\t\t\ts.NMSpinning--\n\t\t}\n\t\tmd.wakep(ms)\n\t}", "\t\t\ts.NMSpinning--\n\t\t}\n\t}"),
	sem("spec/inject-no-final-wakep", AreaSpec, "spec/model.go", "dropped call: injectglist with a P has no final wakep in go1.26 (golang/go#63555)",
		"\t\tif md.b.injectWakep() {\n\t\t\tmd.wakep(ms)\n\t\t}\n", ""),
	sem("spec/becomespinning-keeps-needspinning", AreaSpec, "spec/model.go", "field not cleared: becomeSpinning leaves NeedSpinning set",
		"\ts.NMSpinning++\n\ts.NeedSpinning = false\n}", "\ts.NMSpinning++\n}"),
	sem("spec/steal-scan-not-cleared", AreaSpec, "spec/model.go", "field not cleared: a successful steal keeps the scan bits",
		"\t\tms.Scan = 0\n\t\tinfo.freshP, err = md.run(s, a.M, buf[n-1], false)", "\t\tinfo.freshP, err = md.run(s, a.M, buf[n-1], false)"),
	sem("spec/handoffp-no-needspinning-clear", AreaSpec, "spec/model.go", "field not cleared: handoffp's spinning start leaves NeedSpinning",
		"\t\ts.NMSpinning++\n\t\ts.NeedSpinning = false\n\t\treturn md.startm(s, p, true)", "\t\ts.NMSpinning++\n\t\treturn md.startm(s, p, true)"),
	sem("spec/inject-no-needspinning", AreaSpec, "spec/model.go", "dropped step: injectglist with no idle P does not set needspinning",
		"\t\t\terr = md.startm(s, p, false)\n\t\t} else {\n\t\t\tmd.noIdleP(s)\n\t\t}", "\t\t\terr = md.startm(s, p, false)\n\t\t}"),
	sem("spec/wakepnop-no-dec", AreaSpec, "spec/model.go", "dropped step: WakepNoP keeps the won CAS counted in NMSpinning",
		"\t\tmd.noIdleP(s)\n\t\ts.NMSpinning--", "\t\tmd.noIdleP(s)"),
	sem("spec/check-spinning-weakened", AreaSpec, "spec/check.go", "invariant weakened: a spinning M's P may have local work",
		"\t\t\t\tif ps := &s.P[ms.P]; !ps.empty() {", "\t\t\t\tif ps := &s.P[ms.P]; false && !ps.empty() {"),
	sem("spec/check-counts-weakened", AreaSpec, "spec/check.go", "invariant weakened: nmspinning is no longer compared with the spinning Ms",
		"\tif int(s.NMSpinning) != spinning {", "\tif int(s.NMSpinning) < spinning {"),
	sem("spec/check-idle-p-weakened", AreaSpec, "spec/check.go", "invariant weakened: an idle P may hold local work",
		"\t\t\tif !ps.empty() {\n\t\t\t\treturn inv(InvPIdle", "\t\t\tif false {\n\t\t\t\treturn inv(InvPIdle"),

	// ---- tla: the TLA+ modules ----
	sem("tla/rq-getcas-guard-removed", AreaTLA, "tla/RunQueue.tla", "guard removed: GetCas commits whether or not head moved",
		"    /\\ IF head = oh \\/ Bug = \"get_store\"", "    /\\ IF TRUE"),
	sem("tla/rq-putstore-unchanged-missing-slot", AreaTLA, "tla/RunQueue.tla", "UNCHANGED missing a variable: PutStore leaves slot unconstrained",
		"    /\\ UNCHANGED <<head, slot, runnext, gq, nextg, consumed, thiefVars, linok>>", "    /\\ UNCHANGED <<head, runnext, gq, nextg, consumed, thiefVars, linok>>"),
	sem("tla/rq-slowcas-no-retry", AreaTLA, "tla/RunQueue.tla", "missing CAS retry: SlowCas's failure ends the put",
		"         ELSE /\\ opc' = \"put_ld\" /\\ obatch' = <<>>\n              /\\ UNCHANGED <<head, aq, linok>>", "         ELSE /\\ opc' = \"idle\" /\\ obatch' = <<>>\n              /\\ UNCHANGED <<head, aq, linok>>"),
	sem("tla/rq-nolossnodup-weakened", AreaTLA, "tla/RunQueue.tla", "invariant weakened: NoLossNoDup allows a G to be lost",
		"NoLossNoDup == \\A g \\in G : Count(g) = IF g < nextg THEN 1 ELSE 0", "NoLossNoDup == \\A g \\in G : Count(g) <= IF g < nextg THEN 1 ELSE 0"),
	sem("tla/gmp-ready-no-wakep", AreaTLA, "tla/GMP.tla", "dropped wakep: Ready (the seeded bug, unconditionally)",
		"       st' = IF Bug = \"ready-no-wakep\" THEN s1 ELSE CallWakep(s1, m)", "       st' = s1"),
	sem("tla/gmp-needspinning-guard-removed", AreaTLA, "tla/GMP.tla", "guard removed: NeedSpinning no longer requires the flag",
		"    /\\ AtDrop(m) /\\ st.Runq = <<>> /\\ ~Spinning(m) /\\ st.NeedSpinning\n", "    /\\ AtDrop(m) /\\ st.Runq = <<>> /\\ ~Spinning(m)\n"),
	sem("tla/gmp-dropspinning-no-dec", AreaTLA, "tla/GMP.tla", "dropped step: DropSpinning keeps NMSpinning",
		"!.M[m].spinning = FALSE, !.NMSpinning = @ - 1, !.M[m].pc = \"recheck\"]", "!.M[m].spinning = FALSE, !.M[m].pc = \"recheck\"]"),
	sem("tla/gmp-invspinning-weakened", AreaTLA, "tla/GMP.tla", "invariant weakened: InvSpinning checks only Ms without a P",
		"            ELSE LocalEmpty(st, st.M[m].p)", "            ELSE TRUE"),
	sem("tla/gmp-spinlimit-boundary", AreaTLA, "tla/GMP.tla", "guard changed: SpinOK's limit admits one more spinning M",
		"    /\\ 2 * st.NMSpinning < NP - st.NPIdle\n", "    /\\ 2 * st.NMSpinning <= NP - st.NPIdle\n"),
}

func sem(id string, a Area, file, what, orig, repl string) Mutant {
	return Mutant{ID: id, Kind: KindSemantic, Area: a, File: file, What: what, Orig: orig, Repl: repl}
}

// Equivalents are the survivors argued equivalent (no behaviour change):
// mutant ID -> the reason (docs/mutation.md has the argument in full).
// They are excluded from the kill rates' denominators.
var Equivalents = map[string]string{
	"sched/dropg-m-not-cleared":               "dropg keeps g.x.m: g.x.m is read only on the G's own goroutine while the G runs (mustRun checks Grunning first, the carrier after fn returns), and execute sets it before the status becomes Grunning again, so a stale value is never read; the runtime clears gp.m for the GC and tracebacks, and here Ms are never freed",
	"sched/recheck-runqs-skips-idle-check":    "checkRunqsNoP's m.rpos = 0 after a hit removed: the M leaves MRecheckRunqs (to MRecheckP, whose step does not read rpos, or MStop) and every way back in (recheckStep's three paths) sets rpos to 0 first; rpos is read only at MRecheckRunqs (the step and the driver's snapshot)",
	"sched/exitsyscall-oldp-kept":             "exitsyscall keeps m.oldp: the field is written (entersyscall, exitsyscall) and never read in impl/ (the runtime reads oldp in exitsyscallfast to retry its old P; this implementation's fast path looks at m.p), so clearing it has no effect",
	"spec/steal-scan-not-cleared":             "ActSteal's ms.Scan = 0 removed: the step goes on to md.run, which sets ms.CurG, ms.PC, ms.Scan = g, MRun, 0 in the same step, so no state differs",
	"impl/gm.go:220:13/CONDITIONALS_BOUNDARY": "newproc's nidle > 0 -> >= 0: with nidle == 0 no M waits on s.cond (nidle counts exactly the Ms blocked in cond.Wait, both under s.mu), and sync.Cond.Signal with no waiter does nothing",
}
