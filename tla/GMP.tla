-------------------------------- MODULE GMP --------------------------------
(***************************************************************************)
(* Go's GMP scheduler (Go 1.26 runtime/proc.go) at the abstraction of      *)
(* gmpcheck's executable spec, package spec/ (docs/spec.md is the          *)
(* contract). The state, the actions, their parameters, enabling           *)
(* conditions and effects mirror spec/model.go one for one, so that the    *)
(* reachable graphs of this module and of spec.Explore are the same (the   *)
(* test in tla/ compares them).                                            *)
(*                                                                         *)
(* The state is one record variable st whose fields are spec.State's:      *)
(*   st.G[g]   status of G slot g (1..NG)                                   *)
(*   st.P[p]   [status, tick, runnext, ring] of P p (0..NP-1)               *)
(*   st.M[m]   [pc, p, curg, spinning, scan, wake, inj, lockedg, nextp,     *)
(*             tainted]                                                    *)
(*             of M m (0..NM-1)                                            *)
(*   st.Runq   sched.runq, the global queue                                *)
(*   st.Pidle  sched.pidle, the idle Ps as a LIFO list (top: the last)     *)
(*   st.NPIdle, st.NMSpinning, st.NeedSpinning, st.SpawnLeft               *)
(*   st.GCWaiting, st.StopWait, st.STWPhase, st.STWLeft, st.Procs,         *)
(*   st.NilRead: stop-the-world and procresize (STW)                       *)
(*   st.LastPoll, st.PollUntil: the blocking poller (PollBlock);           *)
(*   st.TimerP[g], st.TimerWhen[g]: g's sleep timer (NTimers); and in each *)
(*   M record wasspinning, polluntil, checked, inherit: findRunnable's    *)
(*   locals the poller and timers need (constant without them)             *)
(* An M's pc is where it is between two of the runtime's synchronization   *)
(* steps (a sched.lock section, or one read-modify-write of a shared       *)
(* scheduler word); scan is the set of Ps its current scan has looked at   *)
(* (pc "steal": stealWork's victims; pc "recheckrunqs": checkRunqsNoP's    *)
(* Ps); wake is how far the M is in a wakep call ("none", "pending": next *)
(* the load and CAS of nmspinning, "cas": next the sched.lock section).    *)
(* Ps, Ms and Gs are numbers rather than model values because the     *)
(* spec's canonical choices (startm takes the lowest idle M, gfget the     *)
(* lowest free G; procresize puts the idle Ps on sched.pidle in the order  *)
(* of their ids) need an order, and because symmetry reduction would make  *)
(* state counts incomparable with the Go explorer.                         *)
(*                                                                         *)
(* Each action is atomic. Helpers (RunqPut, Wakep, StartM, Run, ...) are   *)
(* functions from a state record to a state record, composed inside one    *)
(* action exactly as spec/model.go calls them.                             *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets   \* Integers: NoP is -1

CONSTANTS
    NP,         \* GOMAXPROCS
    NM,         \* M slots: the thread limit (see StartM)
    NG,         \* G slots; g1 is main
    Cap,        \* capacity of each P's ring
    Spawn,      \* NewProc budget
    SchedTick,  \* period of the global-queue check (61 in the runtime)
    Syscalls,   \* EnterSyscall, ExitSyscall*, Retake
    NetpollOn,  \* model netpoll: Netpoll in findRunnable, InjectGList
    InjectList, \* netpoll's list of two, the second G injected by injectglist
                \* with the M's P (spec.Bounds.InjectList; needs NetpollOn)
    SyscallBlock,   \* EnterSyscallBlock: a syscall known to block hands its
                    \* P off at once (spec.Bounds.SyscallBlock)
    LockOSThreadOn, \* LockOSThread, UnlockOSThread, StartLockedM,
                    \* StopLockedM and a locked G's exit ending its M
                    \* (spec.Bounds.LockOSThread)
    STW,        \* one stop-the-world (a GC cycle, a GOMAXPROCS call): StopTheWorld,
                \* GCStopM, StartTheWorld, StartTheWorldWakep (spec.Bounds.STW)
    ProcResize, \* StartTheWorld may restart with one P fewer or more (procresize;
                \* two stop-the-worlds; spec.Bounds.ProcResize, needs STW)
    NoPark,     \* goroutines never park (spec.Bounds.NoPark, golang/go#13546)
    GoyieldOn,  \* semrelease's direct hand-off: ReadyHandoff, then the G's
                \* goyield (spec.Bounds.Goyield)
    PollBlock,  \* the M that blocks in netpoll (spec.Bounds.PollBlock, needs
                \* NetpollOn): NetpollBlock, NetpollBreak, NetpollWake,
                \* NetpollPidleget, NetpollNoP, NetpollReady, and handoffp's
                \* "last running P and nobody polling" clause
    NTimers,    \* 0: no timers; else the longest sleep in clock ticks
                \* (spec.Bounds.Timers, needs PollBlock; with ProcResize
                \* a destroyed P's timers move to p0):
                \* TimerSleep, CheckTimers, StealTimers, CheckTimersNoP,
                \* TimerTick
    GoVersion,  \* 126: Go 1.26; 122: Go 1.22 (injectglist has no final
                \* wakep); 121: Go 1.21 (no wakep in goschedImpl, no
                \* global-queue recheck without a P); 119: Go 1.19 (no
                \* sched.needspinning); 117: go1.17dev (exitsyscall reads
                \* the G's lockedm after publishing it); 113: Go 1.13
                \* (cooperative preemption only); 111: Go 1.11 (mexit's
                \* newm clones the exiting thread); 110: go1.10dev (the
                \* no-P recheck reads the live allp); 105: go1.5dev
                \* (handoffp's test ignores runnext); 104: Go 1.4
                \* (worldsema released before the restart, so a
                \* second stop-the-world may begin inside the first,
                \* golang/go#10618); 115: Go 1.15 (wakeNetPoller wakes
                \* nobody when nobody polls, and no M folds other Ps'
                \* timers into its pollUntil after dropping its P,
                \* golang/go#38860). spec.Bounds.Go,
                \* docs/versions.md
    Bug         \* "none" or a seeded bug of spec.Bug (same names)

BugNames == {"none", "ready-no-wakep", "no-61", "nmspinning-no-dec",
             "gosched-local", "retake-ignores-local", "syscallblock-no-handoff",
             "stoplockedm-no-handoff", "locked-runs-anywhere",
             "procresize-drops-runq", "findrunnable-ignores-gcwaiting",
             "timers-not-stolen", "handoffp-ignores-poller"}

ASSUME /\ NP \in 1..4 /\ NM \in NP..8 /\ NG \in 1..8
       /\ Cap \in {2, 4, 8} /\ Spawn \in 0..15 /\ SchedTick \in 1..61
       /\ Syscalls \in BOOLEAN /\ NetpollOn \in BOOLEAN
       /\ InjectList \in BOOLEAN /\ (InjectList => (NetpollOn /\ NG >= 2))
       /\ SyscallBlock \in BOOLEAN /\ LockOSThreadOn \in BOOLEAN /\ NoPark \in BOOLEAN /\ GoyieldOn \in BOOLEAN
       /\ STW \in BOOLEAN /\ ProcResize \in BOOLEAN /\ (ProcResize => STW)
       /\ GoVersion \in {104, 105, 110, 111, 113, 115, 117, 119, 121, 122, 126} /\ Bug \in BugNames
       /\ PollBlock \in BOOLEAN /\ (PollBlock => NetpollOn) /\ NTimers \in 0..3
       /\ (NTimers > 0 => PollBlock)
       /\ (Bug = "timers-not-stolen" => (NTimers > 0))
       /\ (Bug = "handoffp-ignores-poller" => PollBlock)

\* sched.needspinning exists from Go 1.20 on (spec.Bounds.Go).
NeedSpinningOn == GoVersion # 119
\* goschedImpl calls wakep, and the no-P recheck looks at sched.runq, from
\* Go 1.22 on (kept in the go1.19 variant, which differs only in
\* needspinning).
GoschedWakepOn == GoVersion # 121
RecheckGlobalOn == GoVersion # 121
\* injectglist with a P ends with wakep from Go 1.23 on (golang/go#63555);
\* the go1.19, go1.21 and go1.22 variants predate it.
InjectWakepOn == GoVersion = 126
\* Asynchronous preemption (Go 1.14 on): a P owes its queues a fresh time
\* slice. Go 1.13's preemption is cooperative only, so the starvation
\* properties drop the time-slice obligation there.
AsyncPreempt == GoVersion # 113
\* go1.17dev: exitsyscallNoP reads the G's lockedm after globrunqput
\* (ExitSyscallLockCheck, golang/go#46524).
LockCheckAfterPut == GoVersion = 117
\* handoffp's emptiness test counts runnext (not in go1.5dev,
\* golang/go#10573).
RunnextCounts == GoVersion # 105
\* go1.10dev: the no-P recheck reads the live allp, which procresize grows
\* (ProcResizeGrow) before it fills the new slot (golang/go#23098).
LiveAllp == GoVersion = 110
\* Go 1.4: GOMAXPROCS and the GC release worldsema once they decide to
\* restart, so the next stopper may stop the world again while the first
\* stop is still in force (golang/go#10618).
EarlyWorldsema == GoVersion = 104
\* Go 1.16's two timer wake-ups (CL 232298): wakeNetPoller's wakep when
\* nobody polls, and checkTimersNoP after the M drops its P. Go 1.15 has
\* neither, so a due timer may wait for sysmon (golang/go#38860).
TimerWakeups == GoVersion # 115

NoG == 0
NoP == -1
Gs == 1..NG
Ps == 0..NP-1
Ms == 0..NM-1
Half == Cap \div 2

GStatuses == {"idle", "runnable", "running", "waiting", "syscall", "dead"}
PStatuses == {"idle", "running", "gcstop", "dead"}
\* The stopper's phase (spec.STWPhase): "none" (the world runs),
\* "stopping" (gcwaiting set; stopped once StopWait is 0), "wakep"
\* (restarted; next its wakep), "grown" (go1.10dev: allp grown, its new
\* slot still nil).
STWPhases == {"none", "stopping", "wakep", "grown"}
MPCs == {"idle", "sched", "local", "poll", "spin", "steal", "stealnext", "drop", "dropspin",
         "recheck", "recheckrunqs", "recheckp", "stop", "syscallnop",
         "injectglob", "injectstart", "injectlocal", "injectwake", "resetspin", "run",
         "startlocked", "lockedwait", "exitlockcheck",
         "timersnop", "pollcheck", "netpoll", "netpollret", "netpolllock", "recheckspin"}

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Min3(a, b, c) == Min({a, b, c})
Max2(a, b) == IF a >= b THEN a ELSE b

VARIABLE st

\* lockedg is m.lockedg (and, read backwards, g.lockedm): the G that
\* LockOSThread wired to the M, or NoG. nextp is m.nextp: the P that
\* StartLockedM handed to this locked M before it parked in stoplockedm,
\* or NoP (the spec stores it plus one, with 0 for none).
\* wasspinning, polluntil, checked and inherit are findRunnable's locals
\* the blocking poller and timers need (spec.MState's WasSpinning,
\* PollUntil, Checked, Inherit; always FALSE / 0 without them): polluntil
\* is 0 for none, 1 for due now, k+1 for due in k ticks.
IdleMRec == [pc |-> "idle", p |-> NoP, curg |-> NoG, spinning |-> FALSE, scan |-> {}, wake |-> "none",
             inj |-> NoG, lockedg |-> NoG, nextp |-> NoP, tainted |-> FALSE, victim |-> NoP, oldp |-> NoP,
             yield |-> FALSE, snapps |-> 0, wasspinning |-> FALSE, polluntil |-> 0, checked |-> FALSE, inherit |-> FALSE]

Init ==
    st = [G |-> [g \in Gs |-> IF g = 1 THEN "running" ELSE "idle"],
          P |-> [p \in Ps |-> [status |-> IF p = 0 THEN "running" ELSE "idle",
                               tick |-> 0, runnext |-> NoG, ring |-> <<>>]],
          M |-> [m \in Ms |-> IF m = 0
                                THEN [pc |-> "run", p |-> 0, curg |-> 1, spinning |-> FALSE, scan |-> {},
                                      wake |-> "none", inj |-> NoG, lockedg |-> NoG, nextp |-> NoP,
                                      tainted |-> FALSE, victim |-> NoP, oldp |-> NoP, yield |-> FALSE, snapps |-> 0,
                                      wasspinning |-> FALSE, polluntil |-> 0,
                                      checked |-> FALSE, inherit |-> FALSE]
                                ELSE IdleMRec],
          Runq |-> <<>>,
          \* sched.pidle: schedinit's procresize puts p1, p2, ... on it in
          \* that order, so the highest P is on top (the last element).
          Pidle |-> IF NP = 1 THEN <<>> ELSE [i \in 1..NP - 1 |-> i],
          NPIdle |-> NP - 1,
          NMSpinning |-> 0,
          NeedSpinning |-> FALSE,
          SpawnLeft |-> Spawn,
          \* The P sysmon's retake has taken (takeP) and not yet handed off
          \* (RetakeHandoff), or NoP: held by no M, not idle.
          RetakeP |-> NoP,
          \* Stop-the-world (STW): sched.gcwaiting, sched.stopwait, the
          \* stopper's phase, the stop-the-worlds left, gomaxprocs (P p
          \* exists when p < Procs; the rest are "dead"), and whether a
          \* rechecking M read allp's nil slot (go1.10dev).
          GCWaiting |-> FALSE,
          StopWait |-> 0,
          STWPhase |-> "none",
          STWLeft |-> IF ~STW THEN 0 ELSE IF ProcResize THEN 2 ELSE 1,
          Procs |-> NP,
          NilRead |-> FALSE,
          \* The blocking poller (PollBlock): sched.lastpoll # 0 (nobody
          \* blocks in netpoll; schedinit sets it), sched.pollUntil in
          \* polluntil's encoding. Timers (NTimers): the P whose heap holds
          \* g's sleep timer (NoP: none) and the ticks until it is due (0:
          \* due).
          LastPoll |-> PollBlock,
          PollUntil |-> 0,
          TimerP |-> [g \in Gs |-> NoP],
          TimerWhen |-> [g \in Gs |-> 0]]

-----------------------------------------------------------------------------
(* Helpers: each maps a state record s to the state after the runtime      *)
(* procedure of the same name (docs/spec.md, "Helper procedures").          *)

LocalEmpty(s, p) == s.P[p].ring = <<>> /\ s.P[p].runnext = NoG

\* runqput: LocalQueue.Put; a full ring spills its first half and the G
\* being put onto the tail of sched.runq.
RunqPut(s, p, g, next) ==
    LET ps == s.P[p]
        rn == IF next THEN g ELSE ps.runnext
        x  == IF next THEN ps.runnext ELSE g   \* the G that goes to the ring
    IN IF x = NoG
         THEN [s EXCEPT !.P[p].runnext = rn]
       ELSE IF Len(ps.ring) < Cap
         THEN [s EXCEPT !.P[p].runnext = rn, !.P[p].ring = Append(ps.ring, x)]
       ELSE [s EXCEPT !.P[p].runnext = rn,
                      !.P[p].ring = SubSeq(ps.ring, Half + 1, Len(ps.ring)),
                      !.Runq = s.Runq \o SubSeq(ps.ring, 1, Half) \o <<x>>]

IdlePs(s) == {p \in Ps : s.P[p].status = "idle"}
\* The Ps below gomaxprocs.
LivePs(s) == {p \in Ps : p < s.Procs}
\* P p stopped for the stop-the-world: _Pgcstop, stopwait - 1.
GCStopP(s, p) == [s EXCEPT !.P[p].status = "gcstop", !.StopWait = @ - 1]
IdleMs(s) == {m \in Ms : s.M[m].pc = "idle"}

\* pidleget / pidleput on sched.pidle, a LIFO list whose top is its last
\* element: Pidleget pops the P idled last (callers check that one
\* exists), Pidleput pushes P p. NPIdle is sched.npidle, counted apart.
PidleGot(s) == s.Pidle[Len(s.Pidle)]
Pidleget(s) == [s EXCEPT !.P[PidleGot(s)].status = "running", !.NPIdle = @ - 1,
                         !.Pidle = SubSeq(s.Pidle, 1, Len(s.Pidle) - 1)]
Pidleput(s, p) == [s EXCEPT !.P[p].status = "idle", !.NPIdle = @ + 1, !.Pidle = Append(s.Pidle, p)]

\* Pidleget for M m, which takes the P.
TakeIdleP(s, m) == [Pidleget(s) EXCEPT !.M[m].p = PidleGot(s)]

\* startm: the lowest idle M takes P p. With no idle M the runtime would
\* create one (newm); the model's NM slots are its threads, so the result
\* is then NoIdleM and the step that needed the M is not taken (spec:
\* ErrNoIdleM, counted in spec.Explore's Pruned; with Options.ThreadLimit
\* NM is the runtime's thread limit). Every helper passes NoIdleM through
\* unchanged, and Succ discards it.
NoIdleM == [startm |-> "no idle M"]
Cut(s) == s = NoIdleM
NewMRec(p, spinning, tainted) ==
    [pc |-> "sched", p |-> p, curg |-> NoG, spinning |-> spinning, scan |-> {}, wake |-> "none",
     inj |-> NoG, lockedg |-> NoG, nextp |-> NoP, tainted |-> tainted, victim |-> NoP, oldp |-> NoP, yield |-> FALSE, snapps |-> 0,
     wasspinning |-> FALSE, polluntil |-> 0, checked |-> FALSE, inherit |-> FALSE]
\* StartMX is startm where slot, if not NoM, is the M slot of a thread that
\* a locked G's exit is ending (GoExit): with no idle M, newm's thread
\* takes that slot. From Go 1.12 on the template thread makes it; go1.11
\* clones the exiting thread (tainted, golang/go#28979; InvLocked).
NoM == -1
StartMX(s, p, spinning, slot) ==
    IF Cut(s) THEN s
    ELSE IF IdleMs(s) # {} THEN [s EXCEPT !.M[Min(IdleMs(s))] = NewMRec(p, spinning, FALSE)]
    ELSE IF slot # NoM THEN [s EXCEPT !.M[slot] = NewMRec(p, spinning, GoVersion = 111)]
    ELSE NoIdleM
StartM(s, p, spinning) == StartMX(s, p, spinning, NoM)

\* The successor of an action, unless a startm in it found no idle M.
Succ(ns) == ~Cut(ns) /\ st' = ns

\* pidlegetSpinning finding no idle P: Go 1.20+ sets sched.needspinning.
NoIdleP(s) == IF NeedSpinningOn THEN [s EXCEPT !.NeedSpinning = TRUE] ELSE s

\* m.becomeSpinning: m.spinning, nmspinning + 1, needspinning cleared.
BecomeSpin(s, m) == [s EXCEPT !.M[m].spinning = TRUE, !.NMSpinning = @ + 1,
                              !.NeedSpinning = FALSE]

\* A call of wakep by M m at the end of its caller's step: m goes on with
\* wakep's own steps (Wakep, WakepSkip, WakepStartM, WakepNoP) before
\* anything else (spec.WakeStage).
CallWakep(s, m) == [s EXCEPT !.M[m].wake = "pending"]

(* The blocking poller and timers (PollBlock, NTimers; spec/poller.go and  *)
(* spec/timers.go). Their helpers name their parameters and bound          *)
(* variables apart from every caller's (tla-checker 0.9.0 evaluates an     *)
(* argument in the callee's scope: docs/tla.md).                           *)

\* g waits on something other than a timer (the network, a channel): the
\* network may ready it. netpollAnyWaiters is "some G so waits".
NetWaiting(ns, ng) == ns.G[ng] = "waiting" /\ ns.TimerP[ng] = NoP
NetpollAnyWaiters(ns) == \E nwg \in Gs : NetWaiting(ns, nwg)
\* The non-blocking polls (findRunnable's netpoll(0), sysmon's) run only
\* while nobody blocks in netpoll (sched.lastpoll # 0).
NetPolled(ns) == ~PollBlock \/ ns.LastPoll
\* The Ms in the poller: blocked in netpoll, or returned and not yet past
\* their stores of sched.pollUntil and sched.lastpoll (at most one,
\* InvPoll); PollerM is the lowest, as spec's pollerM scans the Ms.
Pollers(ns) == {npm \in Ms : ns.M[npm].pc \in {"netpoll", "netpollret"}}
PollerM(ns) == Min(Pollers(ns))
PollerBlocked(ns) == Pollers(ns) # {} /\ ns.M[PollerM(ns)].pc = "netpoll"
\* netpollBreak: the M blocked in netpoll, if any, returns. A break with
\* nobody blocked is lost (the runtime's spurious wake-up, left out).
NetpollBreakS(ns) ==
    IF PollerBlocked(ns) THEN [ns EXCEPT !.M[PollerM(ns)].pc = "netpollret"] ELSE ns

\* Timers. A pollUntil-like value: 0 none, 1 due, k+1 due in k ticks. The
\* earlier of two (0: none), and the earliest of a set.
MinPU(pa, pb) == IF pa = 0 \/ (pb # 0 /\ pb < pa) THEN pb ELSE pa
MinPUSet(pset) == IF pset \ {0} = {} THEN 0 ELSE Min(pset \ {0})
\* P p's earliest timer in that encoding (timers.wakeTime).
NextTimer(ts, tp) == MinPUSet({ts.TimerWhen[tg] + 1 : tg \in {tg2 \in Gs : ts.TimerP[tg2] = tp}})
HasDueTimer(ts, tp) == \E tg \in Gs : ts.TimerP[tg] = tp /\ ts.TimerWhen[tg] = 0
\* runTimers: P rp's due timers run on an M holding P rq, in G order: each
\* sleeping G is readied into rq's runnext (ready(gp, next=true)).
RunTimer(rs, rp, rq, rg) ==
    IF rg > NG THEN rs
    ELSE IF rs.TimerP[rg] = rp /\ rs.TimerWhen[rg] = 0
      THEN RunqPut([rs EXCEPT !.TimerP[rg] = NoP, !.G[rg] = "runnable"], rq, rg, TRUE)
    ELSE rs
RunTimers(us, up, uq) ==   \* NG <= 8
    RunTimer(RunTimer(RunTimer(RunTimer(RunTimer(RunTimer(RunTimer(RunTimer(us, up, uq, 1),
             up, uq, 2), up, uq, 3), up, uq, 4), up, uq, 5), up, uq, 6), up, uq, 7), up, uq, 8)

\* wakeNetPoller(when) of M wm (TimerSleep): if an M blocks in netpoll
\* past when, break its sleep; if nobody polls, wakep (Go 1.16 on).
WakeNetPoller(ws, wm, wwhen) ==
    IF ~ws.LastPoll
      THEN IF ws.PollUntil = 0 \/ ws.PollUntil > wwhen THEN NetpollBreakS(ws) ELSE ws
    ELSE IF TimerWakeups THEN CallWakep(ws, wm)
    ELSE ws

\* findRunnable's tail, once M tm has no P and has found nothing: stopm;
\* with the blocking poller the lastpoll decision (pc "pollcheck"), after
\* checkTimersNoP (pc "timersnop") if the M was spinning and timers exist.
FindRunnableTail(fs, fm, fwas) ==
    IF ~PollBlock THEN [fs EXCEPT !.M[fm].pc = "stop"]
    ELSE IF fwas /\ NTimers > 0 /\ TimerWakeups THEN [fs EXCEPT !.M[fm].pc = "timersnop", !.M[fm].wasspinning = TRUE]
    ELSE [fs EXCEPT !.M[fm].pc = "pollcheck", !.M[fm].wasspinning = fwas]

\* findRunnable's locals are kept only where they mean something (spec's
\* normalizePollFields), so that states differing only in dead locals
\* are one state: polluntil from the top (once checked) to the poll
\* decision, checked at the top, inherit at "resetspin", wasspinning from
\* the tail to the end of the poll.
PollUntilPCs == {"local", "poll", "spin", "steal", "stealnext", "drop", "dropspin", "recheck", "recheckrunqs",
                 "recheckp", "timersnop", "pollcheck"}
WasSpinningPCs == {"timersnop", "pollcheck", "netpoll", "netpollret", "netpolllock"}
NormM(nr) ==
    [nr EXCEPT !.polluntil = IF nr.pc \in PollUntilPCs \/ (nr.pc = "sched" /\ nr.checked) THEN nr.polluntil ELSE 0,
               !.checked = (nr.pc = "sched" /\ nr.checked),
               !.inherit = (nr.pc = "resetspin" /\ nr.inherit),
               !.wasspinning = (nr.pc \in WasSpinningPCs /\ nr.wasspinning)]
\* leaveTop: M lm at the top of findRunnable, not yet checked, takes a
\* step other than CheckTimers or wakep's: its checkTimers ran nothing,
\* and it keeps its own P's earliest timer as its pollUntil (read at the
\* instant of the step).
LeavesTop(lm) ==
    /\ NTimers > 0 /\ st.M[lm].pc = "sched" /\ ~st.M[lm].checked /\ st.M[lm].p # NoP
    /\ st.M[lm].lockedg = NoG /\ st.M[lm].curg = NoG
\* The state after a step of M pm's loop whose result is pns: with the
\* poller, leaveTop's read and the normalization of pm's locals, as the
\* spec's step does around each M step (a NoIdleM result passes).
Post(pm, pns) ==
    IF ~PollBlock \/ Cut(pns) THEN pns
    ELSE [pns EXCEPT !.M[pm] = NormM(IF LeavesTop(pm)
                                       THEN [pns.M[pm] EXCEPT !.polluntil = NextTimer(st, st.M[pm].p)]
                                       ELSE pns.M[pm])]

\* handoffp's "this was the last running P and nobody polls the network"
\* (PollBlock): start an M on it, which will block in netpoll. The
\* handoffp-ignores-poller bug leaves the clause out.
LastPollerClause(ls) ==
    PollBlock /\ Bug # "handoffp-ignores-poller" /\ ls.NPIdle = ls.Procs - 1 /\ ls.LastPoll
\* handoffp's wakeNetPoller(when) for a P with timers that went idle,
\* without a calling M: break a poller sleeping past when; if nobody
\* polls, wakep (its CAS and lock section as one step, as the stopper's).
WakeNetPollerNoM(ws, wwhen, wslot) ==
    IF ~ws.LastPoll
      THEN IF ws.PollUntil = 0 \/ ws.PollUntil > wwhen THEN NetpollBreakS(ws) ELSE ws
    ELSE IF ~TimerWakeups \/ ws.NMSpinning # 0 THEN ws
    ELSE IF IdlePs(ws) # {} THEN StartMX([Pidleget(ws) EXCEPT !.NMSpinning = @ + 1], PidleGot(ws), TRUE, wslot)
    ELSE NoIdleP(ws)
IdledWithTimers(is, ip, islot) ==
    IF NTimers > 0 /\ NextTimer(is, ip) # 0 THEN WakeNetPollerNoM(is, NextTimer(is, ip), islot) ELSE is

\* handoffp of a P whose M gives it away: Retake of an M in a syscall,
\* EnterSyscallBlock, StopLockedM, the exit of a locked G.
HandoffpX(s, p, slot) ==
    LET local == IF RunnextCounts THEN ~LocalEmpty(s, p) /\ Bug # "retake-ignores-local"
                 ELSE s.P[p].ring # <<>>   \* go1.5dev: the ring alone
    IN
    IF local \/ s.Runq # <<>>
      THEN StartMX(s, p, FALSE, slot)
    ELSE IF s.NMSpinning + s.NPIdle = 0
      THEN StartMX([s EXCEPT !.NMSpinning = @ + 1, !.NeedSpinning = FALSE], p, TRUE, slot)
    ELSE IF s.GCWaiting THEN GCStopP(s, p)   \* a stop-the-world waits: stopped, not idled
    ELSE IF LastPollerClause(s) THEN StartMX(s, p, FALSE, slot)
    ELSE IdledWithTimers(Pidleput(s, p), p, slot)
Handoffp(s, p) == HandoffpX(s, p, NoM)

\* execute: g runs on M m; a fresh time slice (inherit = FALSE) increments
\* the P's schedtick. Only applied to a state that is not NoIdleM.
\* (Its parameter names are its own: tla-checker 0.9.0 evaluates an
\* argument in the callee's scope, so StartLockedM's argument, which
\* mentions its own m, would read the callee's m.)
Execute(xs, xm, xg, xinherit) ==
    LET sx == [xs EXCEPT !.G[xg] = "running", !.M[xm].curg = xg, !.M[xm].pc = "run",
                         !.M[xm].scan = {}]
    IN IF xinherit THEN sx
       ELSE [sx EXCEPT !.P[xs.M[xm].p].tick = (@ + 1) % SchedTick]

\* The Ms locked to g (g.lockedm; at most one, InvLocked), and the lowest
\* of them, as the spec's lockedm scans the Ms in order.
LockedMs(s, g) == {l \in Ms : s.M[l].lockedg = g}
LockedM(s, g) == Min(LockedMs(s, g))
\* g is locked to an M other than m.
LockedElsewhere(s, m, g) == LockedMs(s, g) # {} /\ LockedM(s, g) # m

\* schedule's last test before execute: a G locked to another M does not
\* run here; M m keeps it, still runnable, as its curg and hands it to its
\* M in a step of its own (StartLockedM, pc "startlocked"). The
\* locked-runs-anywhere bug leaves the test out.
Dispatch(s, m, g, inherit) ==
    IF Bug # "locked-runs-anywhere" /\ LockedElsewhere(s, m, g)
      THEN [s EXCEPT !.M[m].curg = g, !.M[m].pc = "startlocked", !.M[m].scan = {}]
      ELSE Execute(s, m, g, inherit)

\* The end of schedule. A spinning M first takes resetspinning, a step of
\* its own (ResetSpinning, pc "resetspin"): until then it holds g, still
\* runnable, as its curg and counts in nmspinning, and keeps whether g
\* inherits the time slice (inherit). Any other M dispatches g. (Without
\* timers a spinning M's own queue is empty, so it never inherits a time
\* slice; spec.run rejects that case. With timers it may: a timer it ran
\* readied g into its runnext.)
Run(s, m, g, inherit) ==
    IF Cut(s) THEN s
    ELSE IF s.M[m].spinning
      THEN [s EXCEPT !.M[m].curg = g, !.M[m].pc = "resetspin", !.M[m].scan = {}, !.M[m].inherit = inherit]
    ELSE Dispatch(s, m, g, inherit)

\* goschedImpl (Gosched and preemption of M m's G g on P p): g goes to
\* sched.runq (or, with the gosched-local bug, to p's runnext), then wakep
\* (not in Go 1.21, GoschedWakepOn).
GoschedImpl(s, m, p, g) ==
    LET s1 == [s EXCEPT !.G[g] = "runnable"]
        s2 == IF Bug = "gosched-local" THEN RunqPut(s1, p, g, TRUE)
              ELSE [s1 EXCEPT !.Runq = Append(@, g)]
    IN IF GoschedWakepOn THEN CallWakep(s2, m) ELSE s2

\* globrunqgetbatch(Cap/2): min(n, size, size/gomaxprocs+1) Gs, at least one.
GetBatchSize(s, n, size) == Min3(n, size, size \div s.Procs + 1)

\* globrunqgetbatch + runqputbatch (onto an empty ring) + run.
TakeGlobalBatch(s, m) ==
    LET p == s.M[m].p
        k == Max2(GetBatchSize(s, Half, Len(s.Runq)), 1)
        g == Head(s.Runq)
        s1 == [s EXCEPT !.Runq = SubSeq(s.Runq, k + 1, Len(s.Runq)),
                        !.P[p].ring = @ \o SubSeq(s.Runq, 2, k)]
    IN Run(s1, m, g, FALSE)

\* gfget: the lowest Dead G, else the lowest never-used slot, else NoG.
Gfget(s) ==
    IF \E g \in Gs : s.G[g] = "dead" THEN Min({g \in Gs : s.G[g] = "dead"})
    ELSE IF \E g \in Gs : s.G[g] = "idle" THEN Min({g \in Gs : s.G[g] = "idle"})
    ELSE NoG

\* The M holding P p (one exists for a running P).
Holder(s, p) == CHOOSE m \in Ms : s.M[m].p = p
HasHolder(s, p) == \E m \in Ms : s.M[m].p = p

\* The 1/61 check reads sched.runq: schedtick is a multiple of the period
\* (the model keeps it modulo the period).
Check61(s, p) == Bug # "no-61" /\ s.P[p].tick = 0

\* runqgrab from a non-empty ring: its first ceil(n/2) Gs (runnext is a
\* step of its own, StealRunnext, after the ring was read empty).
StealBatch(s, j) == SubSeq(s.P[j].ring, 1, Len(s.P[j].ring) - Len(s.P[j].ring) \div 2)
AfterSteal(s, j) == [s EXCEPT !.P[j].ring = SubSeq(@, Len(@) - Len(@) \div 2 + 1, Len(@))]

\* checkRunqsNoP's test: a stopped P's queue counts too.
RecheckWork(s, p) == s.P[p].status \in {"running", "gcstop"} /\ ~LocalEmpty(s, p)

RetakeCond(s, p) ==
    LET local == ~LocalEmpty(s, p) /\ Bug # "retake-ignores-local" IN
    local \/ s.NMSpinning + s.NPIdle = 0

\* scanDone: a steal scan that has looked at every other P has failed; the
\* M goes on to the lock section that releases its P.
ScanDone(s, m) ==
    IF s.M[m].scan \cup {s.M[m].p} = LivePs(s)
      THEN [s EXCEPT !.M[m].pc = "drop", !.M[m].scan = {}]
      ELSE s

\* Shorthands for M m in the current state.
PC(m) == st.M[m].pc
MyP(m) == st.M[m].p
Spinning(m) == st.M[m].spinning
\* An M with a locked G runs that G or nothing: at the top of schedule
\* only StopLockedM is enabled for it.
Locked(m) == st.M[m].lockedg # NoG
\* M m at the top-of-schedule pc, unlocked: the findRunnable steps.
Top(m, pc) == PC(m) = pc /\ ~Locked(m)

-----------------------------------------------------------------------------
(* Goroutine actions: M m runs its G, which decides (no fairness).         *)

\* A running G's M, not inside wakep; a G whose semrelease hand-off
\* readied a waiter (yield) does nothing but its goyield next.
Running(m) == st.M[m].pc = "run" /\ st.M[m].wake = "none" /\ st.G[st.M[m].curg] = "running" /\ ~st.M[m].yield

NewProc(m) ==
    /\ Running(m) /\ st.SpawnLeft > 0 /\ Gfget(st) # NoG
    /\ LET ng == Gfget(st)
           s1 == RunqPut([st EXCEPT !.G[ng] = "runnable"], st.M[m].p, ng, TRUE)
       IN st' = CallWakep([s1 EXCEPT !.SpawnLeft = @ - 1], m)

\* A G that exits while locked takes its thread with it: the M hands its P
\* off (mexit), at pc "run" so that handoffp's startm cannot pick the M
\* itself. If that startm finds no idle M, newm's thread takes the exiting
\* M's slot (StartMX; pc "sched" then); otherwise the slot is a fresh idle
\* M (a new thread for the next newm).
GoExit(m) ==
    /\ Running(m)
    /\ LET s1 == [st EXCEPT !.G[st.M[m].curg] = "dead", !.M[m].curg = NoG, !.M[m].pc = "sched"]
           s2 == HandoffpX([s1 EXCEPT !.M[m].p = NoP, !.M[m].pc = "run"], MyP(m), m)
       IN IF st.M[m].lockedg = NoG THEN st' = s1
          ELSE Succ(IF Cut(s2) \/ s2.M[m].pc # "run" THEN s2 ELSE [s2 EXCEPT !.M[m] = IdleMRec])

Gosched(m) ==
    /\ Running(m)
    /\ st' = GoschedImpl([st EXCEPT !.M[m].curg = NoG, !.M[m].pc = "sched"],
                          m, st.M[m].p, st.M[m].curg)

Park(m) ==
    /\ ~NoPark /\ Running(m)
    /\ st' = [st EXCEPT !.G[st.M[m].curg] = "waiting", !.M[m].curg = NoG, !.M[m].pc = "sched"]

\* (A G that sleeps on a timer is readied only by the timer.)
Ready(m, g) ==
    /\ Running(m) /\ NetWaiting(st, g)
    /\ LET s1 == RunqPut([st EXCEPT !.G[g] = "runnable"], st.M[m].p, g, TRUE) IN
       st' = IF Bug = "ready-no-wakep" THEN s1 ELSE CallWakep(s1, m)

\* semrelease1's direct hand-off (GoyieldOn): readyWithTime readies the
\* waiter g as Ready does, and the G's goyield is its next action.
ReadyHandoff(m, g) ==
    /\ GoyieldOn /\ Running(m) /\ NetWaiting(st, g)
    /\ LET s1 == RunqPut([st EXCEPT !.G[g] = "runnable", !.M[m].yield = TRUE], st.M[m].p, g, TRUE) IN
       st' = IF Bug = "ready-no-wakep" THEN s1 ELSE CallWakep(s1, m)

\* goyield_m: the G to its P's ring tail (runqput, next = FALSE), then
\* schedule; the hand-off's ready made the wakep.
Goyield(m) ==
    /\ st.M[m].pc = "run" /\ st.M[m].wake = "none" /\ st.G[st.M[m].curg] = "running" /\ st.M[m].yield
    /\ LET g == st.M[m].curg IN
       st' = RunqPut([st EXCEPT !.G[g] = "runnable", !.M[m].curg = NoG, !.M[m].pc = "sched", !.M[m].yield = FALSE],
                     st.M[m].p, g, FALSE)

\* Under gcwaiting, entersyscall stops its P for the stop-the-world at once.
EnterSyscall(m) ==
    /\ Syscalls /\ Running(m)
    /\ st' = IF st.GCWaiting
               THEN GCStopP([st EXCEPT !.G[st.M[m].curg] = "syscall", !.M[m].p = NoP, !.M[m].oldp = MyP(m)], MyP(m))
             ELSE [st EXCEPT !.G[st.M[m].curg] = "syscall"]

\* entersyscallblock: the syscall is known to block, so the M gives its P
\* away at once (handoffp) instead of waiting for sysmon's Retake. With the
\* syscallblock-no-handoff bug the P just goes idle, its local queue with
\* it, and nobody is started for the work.
EnterSyscallBlock(m) ==
    /\ SyscallBlock /\ Running(m)
    /\ LET s1 == [st EXCEPT !.G[st.M[m].curg] = "syscall", !.M[m].p = NoP] IN
       Succ(IF Bug = "syscallblock-no-handoff" THEN Pidleput(s1, MyP(m))
            ELSE Handoffp(s1, MyP(m)))

\* LockOSThread wires the running G and its M together (m.lockedg and
\* g.lockedm); UnlockOSThread undoes it. Both are the program's choice.
LockOSThread(m) ==
    /\ LockOSThreadOn /\ Running(m) /\ st.M[m].lockedg = NoG
    /\ st' = [st EXCEPT !.M[m].lockedg = st.M[m].curg]

UnlockOSThread(m) ==
    /\ LockOSThreadOn /\ Running(m) /\ st.M[m].lockedg # NoG
    /\ st' = [st EXCEPT !.M[m].lockedg = NoG]

\* time.Sleep for d ticks (NTimers): gopark, then park_m's resetForSleep
\* puts the G's timer on its P's heap and, if it is the P's earliest,
\* calls wakeNetPoller.
TimerSleep(m, d) ==
    /\ NTimers > 0 /\ ~NoPark /\ Running(m) /\ d \in 1..NTimers
    /\ LET g == st.M[m].curg
           p == MyP(m)
           nt == NextTimer(st, p)
           s1 == [st EXCEPT !.G[g] = "waiting", !.TimerP[g] = p, !.TimerWhen[g] = d,
                            !.M[m].curg = NoG, !.M[m].pc = "sched"]
       IN st' = IF nt = 0 \/ d + 1 < nt THEN WakeNetPoller(s1, m, d + 1) ELSE s1

-----------------------------------------------------------------------------
(* Syscall exit, by the M whose G is in a syscall (the G decides when).    *)

InSyscall(m) == st.M[m].pc = "run" /\ st.M[m].wake = "none" /\ st.G[st.M[m].curg] = "syscall"

ExitSyscallFast(m) ==
    /\ InSyscall(m) /\ st.M[m].p # NoP
    /\ st' = [st EXCEPT !.G[st.M[m].curg] = "running"]

\* exitsyscallTryGetP tries the M's old P first (oldp: the P it entered
\* the syscall with, lost to a retake or a stop-the-world): if the M
\* holding it now is itself in a syscall, setBlockOnExitSyscall and takeP
\* take it from that M, which loses it as to a retake (its oldp).
OldPInSyscall(s, m) ==
    LET o == s.M[m].oldp IN
    /\ o # NoP /\ s.P[o].status = "running" /\ HasHolder(s, o)
    /\ s.M[Holder(s, o)].pc = "run" /\ s.M[Holder(s, o)].curg # NoG
    /\ s.G[s.M[Holder(s, o)].curg] = "syscall"
ExitSyscallOldP(m) ==
    /\ InSyscall(m) /\ st.M[m].p = NoP /\ OldPInSyscall(st, m)
    /\ LET o == st.M[m].oldp
           h == Holder(st, o)
       IN st' = [st EXCEPT !.M[h].p = NoP, !.M[h].oldp = o, !.M[m].p = o, !.M[m].oldp = NoP,
                           !.G[st.M[m].curg] = "running"]

ExitSyscallIdleP(m) ==
    /\ InSyscall(m) /\ st.M[m].p = NoP /\ ~OldPInSyscall(st, m) /\ st.NPIdle > 0
    /\ st' = [TakeIdleP(st, m) EXCEPT !.G[st.M[m].curg] = "running", !.M[m].oldp = NoP]

\* exitsyscallNoP's first half: the G is made runnable and dropped; the
\* sched.lock section that follows is ExitSyscallLateP or
\* ExitSyscallGlobrunq, a step of the M's loop.
ExitSyscallNoP(m) ==
    /\ InSyscall(m) /\ st.M[m].p = NoP /\ ~OldPInSyscall(st, m) /\ ~(st.NPIdle > 0)
    /\ st' = [st EXCEPT !.G[st.M[m].curg] = "runnable", !.M[m].pc = "syscallnop", !.M[m].oldp = NoP]

-----------------------------------------------------------------------------
(* The schedule loop of M m (weakly fair per M): findRunnable, stealWork   *)
(* one victim per step, the lock section that releases the P, the no-P     *)
(* recheck, stopm, and exitsyscallNoP's lock section. At each pc exactly   *)
(* one group of steps is enabled, as spec/model.go's appendEnabled lists    *)
(* them.                                                                   *)

\* The top of findRunnable, holding a P, one shared read per step in the
\* runtime's order (spec's appendSchedSteps). At "sched": the 1/61 check,
\* which reads sched.runq only when schedtick is a multiple of the period;
\* otherwise the M acts as at "local" at once. At "local": runqget, then
\* the global queue. At "poll": netpoll(0), then stealWork for a spinning
\* M, or the spinning-limit decision for the others, whose becomeSpinning
\* is the next step (pc "spin"). A locked M takes none of these steps
\* (Top): its schedule goes no further than StopLockedM.
\* Under gcwaiting the top of findRunnable is gcstopm (GCStopM), unless
\* the findrunnable-ignores-gcwaiting bug leaves the check out. With a
\* due timer on its own P, not yet checked in this pass, it is
\* checkTimers (CheckTimers).
\*
\* Every step of an M's loop ends with Post (leaveTop and the
\* normalization of findRunnable's locals: the identity without
\* PollBlock), except CheckTimers, which sets them, and wakep's steps.
GCStopAtTop == st.GCWaiting /\ Bug # "findrunnable-ignores-gcwaiting"
TimersDue(m) == NTimers > 0 /\ ~st.M[m].checked /\ HasDueTimer(st, MyP(m))
AtSched(m) == Top(m, "sched") /\ ~GCStopAtTop /\ ~TimersDue(m)
AtLocal(m) == Top(m, "local") \/ (AtSched(m) /\ ~Check61(st, MyP(m)))

\* stealWork: a spinning M past netpoll, or in its scan. With timers,
\* a victim with a due timer gets checkTimers(p2) (StealTimers) instead of
\* runqsteal (not under the timers-not-stolen bug), unless its ring is not
\* empty: the earlier rounds may steal the ring before the last one reaches
\* the timers, so both are enabled then.
Scanning(m) == (Top(m, "poll") /\ Spinning(m)) \/ PC(m) = "steal"
Victims(m) == {v \in LivePs(st) : v # MyP(m) /\ v \notin st.M[m].scan}
StealsTimersOn == NTimers > 0 /\ Bug # "timers-not-stolen"
StealsTimers(v) == StealsTimersOn /\ HasDueTimer(st, v)

\* findRunnable's tail with the poller (pc "pollcheck"): block in netpoll
\* if a G waits on the network or the M has seen a timer, and the swap of
\* sched.lastpoll to 0 wins; else, if the M has seen a timer and the
\* poller sleeps past it, netpollBreak; else stopm (StopM).
PollBlockCond(m) == (st.M[m].polluntil # 0 \/ NetpollAnyWaiters(st)) /\ st.LastPoll
PollBreakCond(m) ==
    /\ st.M[m].polluntil # 0 /\ ~st.LastPoll
    /\ (st.PollUntil = 0 \/ st.PollUntil > st.M[m].polluntil)

\* The sched.lock section that ends the search with a P: after SpinLimit,
\* or a steal scan with no victim left.
\* Under gcwaiting that section (or a scan's end) is GCStopM instead.
ScanOver(m) == PC(m) = "drop" \/ (Scanning(m) /\ Victims(m) = {})
AtDrop(m) == ScanOver(m) /\ ~st.GCWaiting

\* The 1/61 check finds sched.runq not empty: globrunqget under sched.lock.
Global61(m) ==
    /\ AtSched(m) /\ Check61(st, MyP(m)) /\ st.Runq # <<>>
    /\ Succ(Post(m, Run([st EXCEPT !.Runq = Tail(@)], m, Head(st.Runq), FALSE)))

\* The 1/61 check finds sched.runq empty.
Global61Miss(m) ==
    /\ AtSched(m) /\ Check61(st, MyP(m)) /\ st.Runq = <<>>
    /\ st' = Post(m, [st EXCEPT !.M[m].pc = "local"])

RunqGet(m) ==
    /\ AtLocal(m) /\ ~LocalEmpty(st, MyP(m))
    /\ LET p == MyP(m) IN
       Succ(Post(m, IF st.P[p].runnext # NoG
                      THEN Run([st EXCEPT !.P[p].runnext = NoG], m, st.P[p].runnext, TRUE)
                      ELSE Run([st EXCEPT !.P[p].ring = Tail(@)], m, Head(st.P[p].ring), FALSE)))

\* At the top (local queue empty), or in the lock section before releasing
\* the P.
GlobRunqGetBatch(m) ==
    /\ \/ AtLocal(m) /\ LocalEmpty(st, MyP(m))
       \/ AtDrop(m)
    /\ st.Runq # <<>>
    /\ Succ(Post(m, TakeGlobalBatch(st, m)))

\* The local queue and sched.runq seen empty (the local queue gains work
\* only from its owner, this M): on to netpoll.
GlobRunqMiss(m) ==
    /\ AtLocal(m) /\ LocalEmpty(st, MyP(m)) /\ st.Runq = <<>>
    /\ st' = Post(m, [st EXCEPT !.M[m].pc = "poll"])

\* netpoll(0) returns waiting G g, whatever the queues hold: it is made
\* runnable, then run. Skipped while an M blocks in netpoll (NetPolled).
Netpoll(m, g) ==
    /\ NetpollOn /\ Top(m, "poll") /\ NetPolled(st) /\ NetWaiting(st, g)
    /\ Succ(Post(m, Run([st EXCEPT !.G[g] = "runnable"], m, g, FALSE)))

\* netpoll(0) returns two waiting Gs (InjectList): g to run, h to injectglist
\* with the M's P. Both are made runnable and held; netpoll's result is free,
\* so it is drawn at the instant of injectglist's npidle load, which picks
\* the way: the global queue (an idle P was read) or the M's own queue.
NetpollInject(m, g, h) ==
    /\ InjectList /\ Top(m, "poll") /\ NetPolled(st) /\ g # h /\ NetWaiting(st, g) /\ NetWaiting(st, h)
    /\ st' = Post(m, [st EXCEPT !.G[g] = "runnable", !.G[h] = "runnable", !.M[m].curg = g, !.M[m].inj = h,
                                !.M[m].pc = IF st.NPIdle > 0 THEN "injectglob" ELSE "injectlocal"])

\* injectglist's global part: globrunqputbatch under sched.lock.
InjectGlobrunq(m) ==
    /\ PC(m) = "injectglob"
    /\ st' = Post(m, [st EXCEPT !.Runq = Append(@, st.M[m].inj), !.M[m].inj = NoG, !.M[m].pc = "injectstart"])

\* startIdle: pidlegetSpinning and startm (a non-spinning M) under
\* sched.lock, or no idle P: needspinning.
InjectStartIdle(m) ==
    /\ PC(m) = "injectstart"
    /\ LET s1 == [st EXCEPT !.M[m].pc = "injectwake"] IN
       Succ(Post(m, IF IdlePs(s1) # {} THEN StartM(Pidleget(s1), PidleGot(s1), FALSE)
                    ELSE NoIdleP(s1)))

\* injectglist's local part: runqputbatch onto the M's P; what does not fit
\* goes to sched.runq.
InjectRunqput(m) ==
    /\ PC(m) = "injectlocal"
    /\ LET p == MyP(m)
           h == st.M[m].inj
           s1 == IF Len(st.P[p].ring) < Cap THEN [st EXCEPT !.P[p].ring = Append(@, h)]
                 ELSE [st EXCEPT !.Runq = Append(@, h)]
       IN st' = Post(m, [s1 EXCEPT !.M[m].inj = NoG, !.M[m].pc = "injectwake"])

\* injectglist's final wakep (Go 1.23 on), then the netpolled G runs.
InjectWakep(m) ==
    /\ PC(m) = "injectwake"
    /\ LET s1 == Run([st EXCEPT !.M[m].curg = NoG], m, st.M[m].curg, FALSE)
       IN Succ(Post(m, IF InjectWakepOn THEN CallWakep(s1, m) ELSE s1))

\* The spinning limit allows it (2*nmspinning < procs-npidle): the M's
\* becomeSpinning is its next step.
SpinOK(m) ==
    /\ Top(m, "poll") /\ ~Spinning(m)
    /\ 2 * st.NMSpinning < st.Procs - st.NPIdle
    /\ st' = Post(m, [st EXCEPT !.M[m].pc = "spin"])

\* becomeSpinning (nmspinning.Add(1)): the M goes straight to stealWork;
\* or, after the no-P recheck or the poll took it a P (pc "recheckspin"),
\* back to the top, or to resetspinning with the G RecheckGlobal took.
BecomeSpinning(m) ==
    \/ /\ Top(m, "spin")
       /\ st' = Post(m, ScanDone([BecomeSpin(st, m) EXCEPT !.M[m].pc = "steal"], m))
    \/ /\ PC(m) = "recheckspin"
       /\ LET bg == st.M[m].curg
              bs == [BecomeSpin(st, m) EXCEPT !.M[m].pc = "sched", !.M[m].curg = NoG]
          IN Succ(Post(m, IF bg # NoG THEN Run(bs, m, bg, FALSE) ELSE bs))

\* The spinning limit says no: the M goes on to release its P.
SpinLimit(m) ==
    /\ Top(m, "poll") /\ ~Spinning(m)
    /\ 2 * st.NMSpinning >= st.Procs - st.NPIdle
    /\ st' = Post(m, [st EXCEPT !.M[m].pc = "drop"])

\* stealWork visits victim v, whose ring holds Gs then: runqsteal takes
\* half of them, then run (a spinning M: resetspinning is its next step).
Steal(m, v) ==
    /\ Scanning(m) /\ v \in Victims(m) /\ st.P[v].status = "running" /\ st.P[v].ring # <<>>
    /\ LET b  == StealBatch(st, v)
           s1 == AfterSteal(st, v)
           s2 == [s1 EXCEPT !.P[MyP(m)].ring = @ \o SubSeq(b, 1, Len(b) - 1),
                            !.M[m].scan = {}]
       IN Succ(Post(m, Run(s2, m, b[Len(b)], FALSE)))

\* stealWork's last round looks at victim v's timers before runqsteal:
\* none due (a due one is StealTimers), the earliest folded into pu.
LookAtVictimTimers(pu, v) == IF StealsTimersOn THEN MinPU(pu, NextTimer(st, v)) ELSE pu

\* stealWork visits running victim v and runqgrab's loads of its head and
\* tail find its ring empty: its runnext is the thief's next step (pc
\* "stealnext"), by which time the owner may have set runnext and refilled
\* the ring.
StealEmptyRing(m, v) ==
    /\ Scanning(m) /\ v \in Victims(m) /\ ~StealsTimers(v)
    /\ st.P[v].status = "running" /\ st.P[v].ring = <<>>
    /\ st' = Post(m, [st EXCEPT !.M[m].scan = @ \cup {v}, !.M[m].pc = "stealnext", !.M[m].victim = v,
                                !.M[m].polluntil = LookAtVictimTimers(@, v)])

\* runqgrab's load and CAS of the runnext of the victim whose ring it read
\* empty: the thief takes that G, whatever the ring holds now.
StealRunnext(m, v) ==
    /\ PC(m) = "stealnext" /\ st.M[m].victim = v /\ st.P[v].runnext # NoG
    /\ LET s1 == [st EXCEPT !.P[v].runnext = NoG, !.M[m].victim = NoP, !.M[m].scan = {}]
       IN Succ(Post(m, Run(s1, m, st.P[v].runnext, FALSE)))

\* stealWork finds nothing at victim v: a P not running (idle: skipped),
\* or runqgrab read v's ring empty (when the timers were looked at) and
\* then its runnext empty.
StealMiss(m, v) ==
    /\ \/ Scanning(m) /\ v \in Victims(m) /\ ~StealsTimers(v) /\ st.P[v].status # "running"
       \/ PC(m) = "stealnext" /\ st.M[m].victim = v /\ st.P[v].runnext = NoG
    /\ st' = Post(m, ScanDone([st EXCEPT !.M[m].scan = @ \cup {v}, !.M[m].pc = "steal", !.M[m].victim = NoP,
                                         !.M[m].polluntil = IF PC(m) = "stealnext" THEN @
                                                            ELSE LookAtVictimTimers(@, v)], m))

\* stealWork's last round: checkTimers(p2) of victim v readies its due Gs
\* onto the M's own P (runnext), and the M takes one at once (runqget: the
\* last one readied, from runnext, inheriting the time slice). ready's
\* wakep finds this M spinning: nothing to do.
StealTimers(m, v) ==
    /\ Scanning(m) /\ v \in Victims(m) /\ StealsTimers(v)
    /\ LET p == MyP(m)
           s1 == RunTimers(st, v, p)
           s2 == [s1 EXCEPT !.M[m].polluntil = MinPU(@, NextTimer(s1, v)), !.M[m].scan = {}]
       IN Succ(Post(m, IF s2.P[p].runnext # NoG
                         THEN Run([s2 EXCEPT !.P[p].runnext = NoG], m, s2.P[p].runnext, TRUE)
                         ELSE Run([s2 EXCEPT !.P[p].ring = Tail(@)], m, Head(s2.P[p].ring), FALSE)))

\* The "delicate dance": a non-spinning M about to release its P sees
\* sched.needspinning and becomes spinning instead.
NeedSpinning(m) ==
    /\ AtDrop(m) /\ st.Runq = <<>> /\ ~Spinning(m) /\ st.NeedSpinning
    /\ st' = Post(m, [BecomeSpin(st, m) EXCEPT !.M[m].pc = "sched"])

\* releasep + pidleput under sched.lock. A non-spinning M goes on to
\* findRunnable's tail (stopm, or with the poller the poll decision).
ReleaseP(m) ==
    /\ AtDrop(m) /\ st.Runq = <<>> /\ (Spinning(m) \/ ~st.NeedSpinning)
    /\ LET s1 == [Pidleput(st, MyP(m)) EXCEPT !.M[m].p = NoP] IN
       \* From pc "steal" (the live victims all visited, short of
       \* ScanDone's every P after procresize shrank gomaxprocs) the scan
       \* ends here.
       \* A spinning M's allp snapshot (ProcResize; 0: every P slot):
       \* gomaxprocs, taken with its P held.
       st' = Post(m, IF Spinning(m) THEN [s1 EXCEPT !.M[m].pc = "dropspin", !.M[m].scan = {},
                                                    !.M[m].snapps = IF ProcResize /\ ~LiveAllp THEN st.Procs ELSE 0]
                     ELSE FindRunnableTail(s1, m, FALSE))

(* The no-P recheck of an M that released its P while spinning.           *)

DropSpinning(m) ==
    /\ PC(m) = "dropspin"
    /\ st' = Post(m, [st EXCEPT !.M[m].spinning = FALSE, !.NMSpinning = @ - 1, !.M[m].pc = "recheck"])

\* The recheck of sched.runq under sched.lock: pidlegetSpinning got a P,
\* and globrunqgetbatch a G, kept in hand (still runnable) with the rest
\* of the batch on the P. The M becomes spinning in a step of its own
\* (pc "recheckspin"), after the unlock, as findRunnable does.
RecheckGlobal(m) ==
    /\ PC(m) = "recheck" /\ RecheckGlobalOn /\ st.Runq # <<>> /\ st.NPIdle > 0
    /\ LET rs == [TakeIdleP(st, m) EXCEPT !.M[m].snapps = 0]
           rp == rs.M[m].p
           rk == Max2(GetBatchSize(rs, Half, Len(rs.Runq)), 1)
       IN st' = Post(m, [rs EXCEPT !.Runq = SubSeq(rs.Runq, rk + 1, Len(rs.Runq)),
                                   !.P[rp].ring = @ \o SubSeq(rs.Runq, 2, rk),
                                   !.M[m].curg = Head(rs.Runq), !.M[m].pc = "recheckspin", !.M[m].scan = {}])

\* ... no idle P: needspinning is set, and the M goes on to checkRunqsNoP.
RecheckGlobalNoP(m) ==
    /\ PC(m) = "recheck" /\ RecheckGlobalOn /\ st.Runq # <<>> /\ ~(st.NPIdle > 0)
    /\ st' = Post(m, [NoIdleP(st) EXCEPT !.M[m].pc = "recheckrunqs"])

\* checkRunqsNoP, one P per step (from "recheck" when sched.runq is empty).
AtRecheckRunqs(m) == PC(m) = "recheckrunqs" \/ (PC(m) = "recheck" /\ (st.Runq = <<>> \/ ~RecheckGlobalOn))
\* The Ps the recheck walks: the M's allp snapshot, or every P slot. In
\* go1.10dev the live allp, whose length the walk reads at its first step
\* (gomaxprocs, one more while procresize has grown allp but not made the
\* P) and keeps in snapps (spec: walkLen).
WalkLen(m) ==
    IF st.M[m].snapps # 0 THEN st.M[m].snapps
    ELSE IF LiveAllp /\ ProcResize THEN st.Procs + (IF st.STWPhase = "grown" THEN 1 ELSE 0)
    ELSE NP
SnapSet(m) == 0..WalkLen(m) - 1
RecheckAt(m, p) == AtRecheckRunqs(m) /\ p \in SnapSet(m) /\ p \notin st.M[m].scan

\* checkRunqsNoP sees work on p (runqempty false); its sched.lock section
\* is the next step (pc "recheckp").
RecheckFound(m, p) ==
    /\ RecheckAt(m, p) /\ RecheckWork(st, p)
    /\ st' = Post(m, [st EXCEPT !.M[m].pc = "recheckp", !.M[m].scan = {},
                                !.M[m].snapps = IF LiveAllp /\ ProcResize THEN WalkLen(m) ELSE @])

\* sched.lock: pidlegetSpinning got a P; the M will spin on it (goto top),
\* once its becomeSpinning, a step of its own, has counted it.
RecheckRunqs(m) ==
    /\ PC(m) = "recheckp" /\ st.NPIdle > 0
    /\ st' = Post(m, [TakeIdleP(st, m) EXCEPT !.M[m].pc = "recheckspin", !.M[m].snapps = 0])

\* sched.lock: no idle P; needspinning is set and the M stops (or, with
\* the poller, goes on to findRunnable's tail).
RecheckRunqsNoP(m) ==
    /\ PC(m) = "recheckp" /\ ~(st.NPIdle > 0)
    /\ st' = Post(m, FindRunnableTail([NoIdleP(st) EXCEPT !.M[m].snapps = 0], m, TRUE))

\* In go1.10dev, the slot procresize has grown allp by but not filled yet
\* (STWPhase "grown", P Procs) is nil: its read is the crash (NilRead,
\* invariant 9).
RecheckMiss(m, p) ==
    /\ RecheckAt(m, p) /\ ~RecheckWork(st, p)
    /\ LET sc == st.M[m].scan \cup {p}
           s1 == IF LiveAllp /\ st.STWPhase = "grown" /\ p = st.Procs
                   THEN [st EXCEPT !.NilRead = TRUE] ELSE st
       IN st' = Post(m, IF sc = SnapSet(m) THEN FindRunnableTail([s1 EXCEPT !.M[m].scan = {}, !.M[m].snapps = 0], m, TRUE)
                        ELSE [s1 EXCEPT !.M[m].pc = "recheckrunqs", !.M[m].scan = sc,
                                        !.M[m].snapps = IF LiveAllp /\ ProcResize THEN WalkLen(m) ELSE @])

\* stopm: mput under sched.lock; with the poller also from the poll
\* decision when the M neither blocks in netpoll nor breaks it.
StopM(m) ==
    /\ PC(m) = "stop" \/ (PC(m) = "pollcheck" /\ ~PollBlockCond(m) /\ ~PollBreakCond(m))
    /\ st' = Post(m, [st EXCEPT !.M[m].pc = "idle", !.M[m].scan = {}])

\* exitsyscallNoP's sched.lock section: an idle P after all, or the G goes
\* to sched.runq and the M stops.
ExitSyscallLateP(m) ==
    /\ PC(m) = "syscallnop" /\ st.NPIdle > 0
    /\ Succ(Post(m, Run(TakeIdleP(st, m), m, st.M[m].curg, FALSE)))

\* A locked M has no P to hand off: its stoplockedm parks it at once (pc
\* "lockedwait") until StartLockedM brings it its G and a P. In go1.17dev
\* the M reads the G's lockedm only after the put has published the G, a
\* step of its own (ExitSyscallLockCheck, pc "exitlockcheck"); an
\* unlocked M keeps the G's id in inj until then.
ExitSyscallGlobrunq(m) ==
    /\ PC(m) = "syscallnop" /\ ~(st.NPIdle > 0)
    /\ st' = Post(m, IF LockCheckAfterPut
                       THEN [st EXCEPT !.Runq = Append(@, st.M[m].curg), !.M[m].curg = NoG,
                                       !.M[m].inj = IF Locked(m) THEN NoG ELSE st.M[m].curg,
                                       !.M[m].pc = "exitlockcheck"]
                     ELSE [st EXCEPT !.Runq = Append(@, st.M[m].curg), !.M[m].curg = NoG,
                                     !.M[m].pc = IF Locked(m) THEN "lockedwait" ELSE "stop"])

\* go1.17dev (golang/go#46524): the G's lockedm, read after the put: if any
\* M is locked to it (this one, or another that has run it and locked it
\* since) the M parks in stoplockedm, else it goes to stopm.
ExitSyscallLockCheck(m) ==
    /\ PC(m) = "exitlockcheck"
    /\ LET g == IF Locked(m) THEN st.M[m].lockedg ELSE st.M[m].inj IN
       st' = Post(m, [st EXCEPT !.M[m].inj = NoG,
                                !.M[m].pc = IF LockedMs(st, g) # {} THEN "lockedwait" ELSE "stop"])

\* resetspinning after a spinning M's find: spinning off, nmspinning - 1
\* (kept under the nmspinning-no-dec bug), dispatch the G in hand (execute
\* it with a fresh time slice, or, locked to another M, go to
\* StartLockedM), then wakep. The G inherits the time slice if it came
\* from the M's own runnext, which only a timer the M ran can have filled.
ResetSpinning(m) ==
    /\ PC(m) = "resetspin"
    /\ LET s1 == [st EXCEPT !.M[m].spinning = FALSE,
                            !.NMSpinning = IF Bug = "nmspinning-no-dec" THEN @ ELSE @ - 1]
       IN st' = Post(m, CallWakep(Dispatch(s1, m, st.M[m].curg, st.M[m].inherit), m))

\* startlockedm: M m found g, which is locked to M l. It gives l its P and
\* g and goes to stopm. If l is parked in stoplockedm it executes g at once
\* on a fresh time slice; if it has not parked yet (it is at the top of
\* schedule, about to take StopLockedM) the P waits for it in l's nextp.
\* (m's wakep, if ResetSpinning called it, comes first.)
StartLockedM(m) ==
    /\ PC(m) = "startlocked" /\ st.M[m].wake = "none"
    /\ LET g == st.M[m].curg
           l == LockedM(st, g)
           s1 == [st EXCEPT !.M[m].curg = NoG, !.M[m].p = NoP, !.M[m].pc = "stop"]
       IN st' = Post(m, IF st.M[l].pc # "lockedwait" THEN [s1 EXCEPT !.M[l].nextp = MyP(m)]
                        ELSE Execute([s1 EXCEPT !.M[l].p = MyP(m)], l, g, FALSE))

\* stoplockedm: a locked M whose G gave up the CPU (Gosched, Park,
\* preemption) gives its P away (handoffp; the stoplockedm-no-handoff bug
\* puts it on the idle list instead) and parks until StartLockedM. If
\* StartLockedM came first, the park returns at once: the M takes the P
\* from nextp and executes its G on a fresh time slice.
StopLockedM(m) ==
    /\ PC(m) \in {"sched", "local", "poll", "spin"} /\ Locked(m)
    /\ LET s1 == [st EXCEPT !.M[m].p = NoP]
           s2 == IF Bug = "stoplockedm-no-handoff" THEN Pidleput(s1, MyP(m))
                 ELSE Handoffp(s1, MyP(m))
           s3 == [s2 EXCEPT !.M[m].pc = "lockedwait"]
       IN Succ(Post(m, IF Cut(s2) THEN s2
                       ELSE IF st.M[m].nextp = NoP THEN s3
                       ELSE Execute([s3 EXCEPT !.M[m].p = st.M[m].nextp, !.M[m].nextp = NoP],
                                    m, st.M[m].lockedg, FALSE)))

\* gcstopm at a safe point of findRunnable while a stop-the-world waits: at
\* the top, in a steal scan (checked once per round, so the M may visit
\* more victims first), at a scan's end or in the drop section. A
\* spinning M first stops spinning (nmspinning - 1), back at the top with
\* its P; any other M stops its P (GCStopP) and goes to stopm. With the
\* findrunnable-ignores-gcwaiting bug the M only goes back to the top,
\* which does not look at gcwaiting.
GCStopM(m) ==
    /\ \/ Top(m, "sched") /\ GCStopAtTop
       \/ st.GCWaiting /\ (PC(m) = "steal" \/ ScanOver(m))
    /\ st' = Post(m, IF Bug = "findrunnable-ignores-gcwaiting"
                       THEN [st EXCEPT !.M[m].scan = {}, !.M[m].pc = "sched"]
                     ELSE IF Spinning(m)
                       THEN [st EXCEPT !.M[m].spinning = FALSE, !.M[m].scan = {}, !.M[m].pc = "sched",
                                       !.NMSpinning = @ - 1]
                     ELSE GCStopP([st EXCEPT !.M[m].p = NoP, !.M[m].scan = {}, !.M[m].pc = "stop"], MyP(m)))

(* The blocking poller (PollBlock) and timers (NTimers): the M's steps,   *)
(* weakly fair per M like the rest of its loop (spec/poller.go,            *)
(* spec/timers.go).                                                        *)

\* findRunnable's top: checkTimers runs the M's own P's due timers (each
\* ready: runqput into runnext), keeps the P's earliest remaining timer
\* as the M's pollUntil, and calls ready's wakep. Mandatory while such a
\* timer is due and this pass has not checked (TimersDue).
CheckTimers(m) ==
    /\ Top(m, "sched") /\ ~GCStopAtTop /\ TimersDue(m)
    /\ LET s1 == RunTimers(st, MyP(m), MyP(m)) IN
       st' = CallWakep([s1 EXCEPT !.M[m].polluntil = NextTimer(s1, MyP(m)), !.M[m].checked = TRUE], m)

\* checkTimersNoP (a spinning M's no-P recheck found nothing): every P's
\* earliest timer folded into the M's pollUntil.
CheckTimersNoP(m) ==
    /\ PC(m) = "timersnop"
    /\ st' = Post(m, [st EXCEPT !.M[m].polluntil = MinPUSet({st.M[m].polluntil} \cup
                                                             {NextTimer(st, q) : q \in LivePs(st)}),
                                !.M[m].pc = "pollcheck"])

\* sched.lastpoll.Swap(0) won, sched.pollUntil stored with it: the M blocks
\* in netpoll (pc "netpoll") until the network, a break or its timeout;
\* a pollUntil already due is netpoll(0), which returns at once.
NetpollBlock(m) ==
    /\ PC(m) = "pollcheck" /\ PollBlockCond(m)
    /\ st' = Post(m, [st EXCEPT !.LastPoll = FALSE, !.PollUntil = st.M[m].polluntil, !.M[m].polluntil = 0,
                                !.M[m].pc = IF st.M[m].polluntil = 1 THEN "netpollret" ELSE "netpoll"])

\* The swap lost, and the poller sleeps past this M's timer: netpollBreak,
\* then stopm (pc "stop").
NetpollBreak(m) ==
    /\ PC(m) = "pollcheck" /\ ~PollBlockCond(m) /\ PollBreakCond(m)
    /\ st' = Post(m, [NetpollBreakS(st) EXCEPT !.M[m].pc = "stop"])

\* netpoll returned (a break, or its timeout): sched.pollUntil = 0 and
\* sched.lastpoll stored.
NetpollWake(m) ==
    /\ PC(m) = "netpollret"
    /\ st' = Post(m, [st EXCEPT !.PollUntil = 0, !.LastPoll = TRUE, !.M[m].pc = "netpolllock"])

\* Back from the poll, pidleget under sched.lock got a P: the G the
\* network readied (if any) runs; else goto top, spinning again if the M
\* was.
NetpollPidleget(m) ==
    /\ PC(m) = "netpolllock" /\ st.NPIdle > 0
    /\ LET g == st.M[m].curg
           s1 == [TakeIdleP(st, m) EXCEPT !.M[m].curg = NoG, !.M[m].wasspinning = FALSE]
       IN Succ(Post(m, IF g # NoG THEN Run(s1, m, g, FALSE)
                       ELSE IF st.M[m].wasspinning THEN [s1 EXCEPT !.M[m].pc = "recheckspin"]
                       ELSE [s1 EXCEPT !.M[m].pc = "sched"]))

\* Back from the poll, no idle P: injectglist without a P (the readied G to
\* sched.runq; startIdle finds no P and sets needspinning), then stopm.
NetpollNoP(m) ==
    /\ PC(m) = "netpolllock" /\ ~(st.NPIdle > 0)
    /\ LET g == st.M[m].curg
           s1 == [st EXCEPT !.M[m].pc = "stop", !.M[m].wasspinning = FALSE]
       IN st' = Post(m, IF g # NoG THEN NoIdleP([s1 EXCEPT !.Runq = Append(@, g), !.M[m].curg = NoG])
                        ELSE s1)

-----------------------------------------------------------------------------
(* wakep, by the M that called it (weakly fair per M, like the loop): the  *)
(* load and CAS of nmspinning, then the sched.lock section.                *)

InWakep(m, stage) == st.M[m].wake = stage

\* nmspinning was 0 and the CAS 0 -> 1 won: the M counts in nmspinning.
Wakep(m) ==
    /\ InWakep(m, "pending") /\ st.NMSpinning = 0
    /\ st' = [st EXCEPT !.NMSpinning = 1, !.M[m].wake = "cas"]

\* An M spins already: wakep returns.
WakepSkip(m) ==
    /\ InWakep(m, "pending") /\ st.NMSpinning # 0
    /\ st' = [st EXCEPT !.M[m].wake = "none"]

\* sched.lock: pidlegetSpinning got a P; startm starts a spinning M on it.
WakepStartM(m) ==
    /\ InWakep(m, "cas") /\ st.NPIdle > 0
    /\ Succ(StartM([Pidleget(st) EXCEPT !.M[m].wake = "none"], PidleGot(st), TRUE))

\* sched.lock: no idle P; needspinning is set and the CAS given back.
WakepNoP(m) ==
    /\ InWakep(m, "cas") /\ ~(st.NPIdle > 0)
    /\ st' = [NoIdleP(st) EXCEPT !.NMSpinning = @ - 1, !.M[m].wake = "none"]

\* wakep's steps: the row of Next for the Ms inside wakep.
WakeStep(m) == Wakep(m) \/ WakepSkip(m) \/ WakepStartM(m) \/ WakepNoP(m)

-----------------------------------------------------------------------------
(* sysmon and netpoll (external).                                          *)

\* Under gcwaiting (preemptall) the G stays in its P's runnext, to run
\* first once the world restarts, and the M calls wakep.
PreemptEnabled(p) ==
    /\ st.P[p].status = "running" /\ HasHolder(st, p)
    /\ LET m == Holder(st, p) IN
       st.M[m].curg # NoG /\ st.G[st.M[m].curg] = "running" /\ st.M[m].wake = "none" /\ ~st.M[m].yield
Preempt(p) ==
    /\ PreemptEnabled(p)
    /\ LET m == Holder(st, p)
           g == st.M[m].curg
           s1 == [st EXCEPT !.M[m].curg = NoG, !.M[m].pc = "sched"]
       IN st' = IF st.GCWaiting
                  THEN CallWakep(RunqPut([s1 EXCEPT !.G[g] = "runnable"], p, g, TRUE), m)
                ELSE GoschedImpl(s1, m, p, g)

\* Retake is takeP (and resume): the syscalling M loses its P, which
\* sysmon holds until its handoffp, a step of its own (RetakeHandoff);
\* the M may leave its syscall in between. sysmon looks at one P at a
\* time, so no other Retake while it holds one.
RetakeTakeEnabled(p) ==
    /\ Syscalls /\ st.RetakeP = NoP /\ st.P[p].status = "running" /\ HasHolder(st, p)
    /\ st.M[Holder(st, p)].curg # NoG /\ st.G[st.M[Holder(st, p)].curg] = "syscall"
    /\ RetakeCond(st, p)
\* The fairness family of P p's retake: its take, then its handoffp.
RetakeEnabled(p) == RetakeTakeEnabled(p) \/ st.RetakeP = p

Retake(p) ==
    /\ RetakeTakeEnabled(p)
    /\ st' = [st EXCEPT !.M[Holder(st, p)].p = NoP, !.M[Holder(st, p)].oldp = p, !.RetakeP = p]

RetakeHandoff(p) ==
    /\ st.RetakeP = p
    /\ Succ(Handoffp([st EXCEPT !.RetakeP = NoP], p))

\* netpoll from sysmon: injectglist without a P starts an M on an idle P,
\* or (no idle P) sets needspinning. Skipped while an M blocks in netpoll.
InjectGList(g) ==
    /\ NetpollOn /\ NetPolled(st) /\ NetWaiting(st, g)
    /\ LET s1 == [st EXCEPT !.G[g] = "runnable", !.Runq = Append(@, g)] IN
       Succ(IF IdlePs(s1) # {} THEN StartM(Pidleget(s1), PidleGot(s1), FALSE)
            ELSE NoIdleP(s1))

\* The network readies waiting G g while an M blocks in netpoll (PollBlock;
\* external, not fair): netpoll returns it, and the poller's stores of
\* sched.pollUntil and sched.lastpoll are taken at the same instant; the
\* poller holds g for its pidleget (pc "netpolllock").
NetpollReady(g) ==
    /\ PollBlock /\ PollerBlocked(st) /\ NetWaiting(st, g)
    /\ LET pm == PollerM(st) IN
       st' = [st EXCEPT !.G[g] = "runnable", !.M[pm].curg = g, !.M[pm].pc = "netpolllock",
                        !.PollUntil = 0, !.LastPoll = TRUE]

\* The clock (NTimers; external, weakly fair: time passes) advances one
\* tick while something waits for it: every timer not yet due and every
\* pollUntil not yet reached (an M's, sched's) is one tick nearer; a
\* poller whose timeout is reached returns (pc "netpollret").
TickEnabled ==
    /\ NTimers > 0
    /\ \/ st.PollUntil > 1
       \/ \E g \in Gs : st.TimerP[g] # NoP /\ st.TimerWhen[g] > 0
       \/ \E m \in Ms : st.M[m].polluntil > 1
TimerTick ==
    /\ TickEnabled
    /\ LET s1 == [st EXCEPT !.TimerWhen = [g \in Gs |-> IF st.TimerP[g] # NoP /\ st.TimerWhen[g] > 0
                                                         THEN st.TimerWhen[g] - 1 ELSE st.TimerWhen[g]],
                            !.M = [m \in Ms |-> IF st.M[m].polluntil > 1
                                                THEN [st.M[m] EXCEPT !.polluntil = st.M[m].polluntil - 1]
                                                ELSE st.M[m]],
                            !.PollUntil = IF st.PollUntil > 1 THEN st.PollUntil - 1 ELSE st.PollUntil]
       IN st' = IF st.PollUntil = 2 /\ PollerBlocked(st)
                  THEN [s1 EXCEPT !.M[PollerM(st)].pc = "netpollret"]   \* netpoll's timeout
                ELSE s1

-----------------------------------------------------------------------------
(* The stopper of a stop-the-world (STW): a G outside the model's Ms (its  *)
(* own P is the first one stopped: its M has parked). External; its        *)
(* restart steps are fair once enabled (FairStopper).                      *)

\* stopTheWorldWithSema's lock section: gcwaiting, stopwait = gomaxprocs,
\* preemptall (Preempt is always available), and every P no M runs on is
\* stopped at once: the idle ones (pidleget until sched.pidle is empty),
\* and those whose M is in a system call (the M loses its P).
SyscallP(s, p) ==
    /\ s.P[p].status = "running" /\ HasHolder(s, p)
    /\ s.M[Holder(s, p)].pc = "run" /\ s.G[s.M[Holder(s, p)].curg] = "syscall"
StopTheWorld ==
    /\ STW /\ st.STWLeft > 0
    /\ \/ st.STWPhase = "none"
       \/ EarlyWorldsema /\ st.STWPhase = "stopping" /\ st.StopWait = 0
    /\ LET idle == {p \in LivePs(st) : st.P[p].status = "idle"}
           sys  == {p \in LivePs(st) : SyscallP(st, p)}
       IN st' = [st EXCEPT !.GCWaiting = TRUE, !.STWPhase = "stopping", !.STWLeft = st.STWLeft - 1,
                           !.StopWait = st.Procs - Cardinality(idle) - Cardinality(sys),
                           !.NPIdle = st.NPIdle - Cardinality(idle),
                           !.Pidle = <<>>,
                           !.P = [p \in Ps |-> IF p \in idle \cup sys THEN [st.P[p] EXCEPT !.status = "gcstop"]
                                              ELSE st.P[p]],
                           !.M = [m \in Ms |-> IF st.M[m].p \in sys THEN [st.M[m] EXCEPT !.p = NoP, !.oldp = st.M[m].p]
                                              ELSE st.M[m]]]

DeadP == [status |-> "dead", tick |-> 0, runnext |-> NoG, ring |-> <<>>]
\* procresize destroys P p: its local queue (runnext, then the ring in
\* order) goes to the head of sched.runq (the procresize-drops-runq bug
\* drops it), and its timers to p0 (moveTimers: to the P procresize
\* runs on; the model's stopper holds none, so p0, which always lives).
DestroyP(s, p) ==
    LET q == s.P[p]
        moved == (IF q.runnext # NoG THEN <<q.runnext>> ELSE <<>>) \o q.ring
    IN [s EXCEPT !.Runq = IF Bug = "procresize-drops-runq" THEN s.Runq ELSE moved \o s.Runq,
                 !.P[p] = DeadP,
                 !.TimerP = [g \in Gs |-> IF s.TimerP[g] = p THEN 0 ELSE s.TimerP[g]]]
\* procresize to n Ps (one fewer, the same, or one more; a new P starts
\* empty and stopped), then gcwaiting cleared; the stopper's wakep next.
Resize(s, n) ==
    LET s1 == IF n < s.Procs THEN DestroyP(s, s.Procs - 1) ELSE s
        s2 == IF n > s.Procs
                THEN [s1 EXCEPT !.P[s.Procs] = [status |-> "gcstop", tick |-> 0, runnext |-> NoG, ring |-> <<>>]]
              ELSE s1
    IN [s2 EXCEPT !.Procs = n, !.GCWaiting = FALSE, !.StopWait = 0, !.STWPhase = "wakep"]
\* startTheWorldWithSema with procresize: first, from the highest P down,
\* a stopped P with work gets an idle M (startm; cut without one); then
\* the stopped Ps without work go idle (pidleput) from the lowest up, so
\* the highest of them ends on top of sched.pidle (procresize collects
\* them in a list headed by the lowest and puts them in its order).
RestartP(s, p) ==
    IF Cut(s) THEN s
    ELSE IF p >= s.Procs THEN s
    ELSE IF s.P[p].status # "gcstop" \/ LocalEmpty(s, p) THEN s
    ELSE StartM([s EXCEPT !.P[p].status = "running"], p, FALSE)
IdleStoppedP(s, p) ==
    IF Cut(s) THEN s
    ELSE IF p >= s.Procs THEN s
    ELSE IF s.P[p].status = "gcstop" THEN Pidleput(s, p)
    ELSE s
RestartPs(s) ==   \* NP <= 4
    IdleStoppedP(IdleStoppedP(IdleStoppedP(IdleStoppedP(
        RestartP(RestartP(RestartP(RestartP(s, 3), 2), 1), 0), 0), 1), 2), 3)

\* startTheWorldWithSema's lock section with procresize to n Ps: the same
\* gomaxprocs, or (ProcResize) one fewer or one more; in go1.10dev growth
\* is ProcResizeGrow first, then this step.
StartTheWorld(n) ==
    /\ STW
    /\ \/ /\ st.STWPhase = "stopping" /\ st.StopWait = 0
          /\ \/ n = st.Procs
             \/ ProcResize /\ n = st.Procs - 1 /\ n >= 1
             \/ ProcResize /\ ~LiveAllp /\ n = st.Procs + 1 /\ n <= NP
       \/ st.STWPhase = "grown" /\ n = st.Procs + 1
    /\ Succ(RestartPs(Resize(st, n)))

\* go1.10dev: procresize grows allp by one slot, still nil, before it makes
\* the P (golang/go#23098): a rechecking M may read the slot (NilRead).
ProcResizeGrow ==
    /\ STW /\ ProcResize /\ LiveAllp
    /\ st.STWPhase = "stopping" /\ st.StopWait = 0 /\ st.Procs < NP
    /\ st' = [st EXCEPT !.STWPhase = "grown"]

\* The stopper's wakep (its CAS and lock section as one step).
StartTheWorldWakep ==
    /\ STW /\ st.STWPhase = "wakep"
    /\ LET s1 == [st EXCEPT !.STWPhase = "none"] IN
       Succ(IF s1.NMSpinning # 0 THEN s1
            ELSE IF IdlePs(s1) # {} THEN StartM([Pidleget(s1) EXCEPT !.NMSpinning = @ + 1], PidleGot(s1), TRUE)
            ELSE NoIdleP(s1))

StopperStep == (\E n \in 1..NP : StartTheWorld(n)) \/ StartTheWorldWakep \/ ProcResizeGrow
StopperEnabled == st.STWPhase \in {"wakep", "grown"} \/ (st.STWPhase = "stopping" /\ st.StopWait = 0)

-----------------------------------------------------------------------------
(* Terminal states. The spec's explorer accepts a state with no enabled    *)
(* action when every G has exited (done) or, with netpoll off, every live  *)
(* G waits (a program deadlock, the runtime's checkdead); any other such   *)
(* state is a stuck scheduler. A state whose enabled steps all need an   *)
(* M beyond the NM bound (Succ) is no stuck scheduler either: the runtime  *)
(* dies of thread exhaustion there (spec: Options.ThreadLimit, the cut     *)
(* counted in Result.Pruned). Terminated lets the accepted ones stutter,  *)
(* so the checkers' deadlock check reports exactly the stuck ones.         *)

LiveGs == {g \in Gs : st.G[g] \notin {"idle", "dead"}}
AllExited == LiveGs = {}
ProgramDeadlock == ~NetpollOn /\ LiveGs # {} /\ \A g \in LiveGs : st.G[g] = "waiting"
\* No M is idle, so every startm is cut, and the spec has a step enabled:
\* every M but an idle one, one parked in stoplockedm or one blocked in
\* netpoll has one (one group per pc), and so has netpoll while a G waits
\* on the network, and the clock while it can tick, and so have sysmon with
\* a retaken P to hand off and the stopper with its wakep, either of which
\* may start an M. Where no step is left the cause is the thread limit.
\* (Where a step is left the stutter changes nothing: [Next]_st allows it
\* anyway.) Only a parked locked M makes this reachable on the bounds the
\* cfgs use: with NM = 2, one M parked and the other needing a third, or
\* both parked while sysmon hands off a P it retook (GMP_mechanisms).
ThreadExhausted ==
    /\ IdleMs(st) = {}
    /\ \/ \E m \in Ms : st.M[m].pc \notin {"lockedwait", "netpoll"}
       \/ NetpollOn /\ \E g \in Gs : NetWaiting(st, g)
       \/ TickEnabled
       \/ st.RetakeP # NoP
       \/ st.STWPhase = "wakep"
Terminated == (AllExited \/ ProgramDeadlock \/ ThreadExhausted) /\ UNCHANGED st

-----------------------------------------------------------------------------

\* Every step of M m's schedule loop and of its wakep (the steps weak
\* fairness is about): spec's ActGlobal61 .. ActWakepNoP, and the M steps
\* of the blocking poller and timers, ActNetpollBlock .. ActCheckTimersNoP.
SchedStep(m) ==
    \/ Global61(m) \/ Global61Miss(m) \/ RunqGet(m) \/ GlobRunqGetBatch(m)
    \/ GlobRunqMiss(m) \/ (\E g \in Gs : Netpoll(m, g))
    \/ (\E g, h \in Gs : NetpollInject(m, g, h))
    \/ InjectGlobrunq(m) \/ InjectStartIdle(m) \/ InjectRunqput(m) \/ InjectWakep(m)
    \/ SpinOK(m) \/ BecomeSpinning(m) \/ SpinLimit(m)
    \/ (\E v \in Ps : Steal(m, v)) \/ (\E v \in Ps : StealMiss(m, v))
    \/ (\E v \in Ps : StealEmptyRing(m, v)) \/ (\E v \in Ps : StealRunnext(m, v))
    \/ NeedSpinning(m) \/ ReleaseP(m) \/ DropSpinning(m)
    \/ RecheckGlobal(m) \/ RecheckGlobalNoP(m)
    \/ (\E p \in Ps : RecheckFound(m, p)) \/ RecheckRunqs(m) \/ RecheckRunqsNoP(m)
    \/ (\E p \in Ps : RecheckMiss(m, p))
    \/ StopM(m) \/ ExitSyscallLateP(m) \/ ExitSyscallGlobrunq(m) \/ ExitSyscallLockCheck(m)
    \/ ResetSpinning(m) \/ StartLockedM(m) \/ StopLockedM(m) \/ GCStopM(m)
    \/ Wakep(m) \/ WakepSkip(m) \/ WakepStartM(m) \/ WakepNoP(m)
    \/ NetpollBlock(m) \/ NetpollBreak(m) \/ NetpollWake(m) \/ NetpollPidleget(m) \/ NetpollNoP(m)
    \/ CheckTimers(m) \/ (\E v \in Ps : StealTimers(m, v)) \/ CheckTimersNoP(m)

\* The steps M m's G decides, at pc "run": the row of Next for MsAt("run").
GoroutineStep(m) ==
    \/ NewProc(m) \/ GoExit(m) \/ Gosched(m) \/ Park(m)
    \/ (\E g \in Gs : Ready(m, g)) \/ (\E g \in Gs : ReadyHandoff(m, g)) \/ Goyield(m) \/ EnterSyscall(m)
    \/ EnterSyscallBlock(m) \/ LockOSThread(m) \/ UnlockOSThread(m)
    \/ ExitSyscallFast(m) \/ ExitSyscallOldP(m) \/ ExitSyscallIdleP(m) \/ ExitSyscallNoP(m)
    \/ (\E d \in 1..NTimers : TimerSleep(m, d))

\* An M anywhere in its schedule loop (every pc but idle, run, lockedwait,
\* where it is parked until another M hands it its G, and netpoll, where
\* it blocks until the network, a break or its timeout wakes it), or in
\* wakep.
InLoop(m) == st.M[m].pc \notin {"idle", "run", "lockedwait", "netpoll"} \/ st.M[m].wake # "none"

\* The Ms at pc with no wakep of their own under way, and the Ms inside
\* wakep (at any pc).
MsAt(pc) == {m \in Ms : st.M[m].wake = "none" /\ st.M[m].pc = pc}
Waking == {m \in Ms : st.M[m].wake # "none"}

\* Next takes an M's step by its pc, as spec's Model.Enabled switches on
\* MState.PC: inside wakep, wakep's next step (WakeStep); at pc "run", its
\* G's (GoroutineStep); at every other pc of its schedule loop, the steps
\* of SchedStep(m) whose own guards allow that pc. Each pc test is implied
\* by the guards of the steps listed under it, so the M's part of Next is
\* WakeStep(m) inside wakep, else GoroutineStep(m) at pc "run", else
\* InLoop(m) /\ SchedStep(m) (TestNextTakesEveryMStep checks the table
\* against the three families and against the pc of every step the spec
\* takes). The table is written for tla-checker, which tests only the
\* guards written in Next itself before it computes a step's successor (a
\* step's own guards, inside its operator, come after): over MsAt(pc)
\* each M computes the successors of the few steps at its pc, not of all
\* sixty (docs/tla.md: 2.4 to 4.5 times as fast). Each step, an operator
\* call of its own in an exists body, labels its DOT edges with its own
\* name, which the cross-check uses. The guard in front of the P steps
\* serves the same ends.
Next ==
    \/ \E m \in Waking : Wakep(m) \/ WakepSkip(m) \/ WakepStartM(m) \/ WakepNoP(m)
    \/ \E m \in MsAt("run") :
           \/ NewProc(m) \/ GoExit(m) \/ Gosched(m) \/ Park(m)
           \/ \E g \in Gs : Ready(m, g)
           \/ \E g \in Gs : ReadyHandoff(m, g)
           \/ Goyield(m) \/ EnterSyscall(m) \/ EnterSyscallBlock(m) \/ LockOSThread(m) \/ UnlockOSThread(m)
           \/ ExitSyscallFast(m) \/ ExitSyscallOldP(m) \/ ExitSyscallIdleP(m) \/ ExitSyscallNoP(m)
           \/ \E d \in 1..NTimers : TimerSleep(m, d)
    \/ \E m \in MsAt("sched") :
           \/ Global61(m) \/ Global61Miss(m) \/ RunqGet(m) \/ GlobRunqGetBatch(m) \/ GlobRunqMiss(m)
           \/ CheckTimers(m) \/ GCStopM(m) \/ StopLockedM(m)
    \/ \E m \in MsAt("local") : RunqGet(m) \/ GlobRunqGetBatch(m) \/ GlobRunqMiss(m) \/ StopLockedM(m)
    \/ \E m \in MsAt("poll") :
           \/ \E g \in Gs : Netpoll(m, g)
           \/ \E g, h \in Gs : NetpollInject(m, g, h)
           \/ SpinOK(m) \/ SpinLimit(m)
           \/ \E v \in Ps : Steal(m, v)
           \/ \E v \in Ps : StealMiss(m, v)
           \/ \E v \in Ps : StealEmptyRing(m, v)
           \/ \E v \in Ps : StealTimers(m, v)
           \/ NeedSpinning(m) \/ ReleaseP(m) \/ GlobRunqGetBatch(m) \/ GCStopM(m) \/ StopLockedM(m)
    \/ \E m \in MsAt("spin") : BecomeSpinning(m) \/ StopLockedM(m)
    \/ \E m \in MsAt("steal") :
           \/ \E v \in Ps : Steal(m, v)
           \/ \E v \in Ps : StealMiss(m, v)
           \/ \E v \in Ps : StealEmptyRing(m, v)
           \/ \E v \in Ps : StealTimers(m, v)
           \/ NeedSpinning(m) \/ ReleaseP(m) \/ GlobRunqGetBatch(m) \/ GCStopM(m)
    \/ \E m \in MsAt("stealnext") :
           \/ \E v \in Ps : StealRunnext(m, v)
           \/ \E v \in Ps : StealMiss(m, v)
    \/ \E m \in MsAt("drop") : NeedSpinning(m) \/ ReleaseP(m) \/ GlobRunqGetBatch(m) \/ GCStopM(m)
    \/ \E m \in MsAt("dropspin") : DropSpinning(m)
    \/ \E m \in MsAt("recheck") :
           \/ RecheckGlobal(m) \/ RecheckGlobalNoP(m)
           \/ \E p \in Ps : RecheckFound(m, p)
           \/ \E p \in Ps : RecheckMiss(m, p)
    \/ \E m \in MsAt("recheckrunqs") :
           \/ \E p \in Ps : RecheckFound(m, p)
           \/ \E p \in Ps : RecheckMiss(m, p)
    \/ \E m \in MsAt("recheckp") : RecheckRunqs(m) \/ RecheckRunqsNoP(m)
    \/ \E m \in MsAt("recheckspin") : BecomeSpinning(m)
    \/ \E m \in MsAt("stop") : StopM(m)
    \/ \E m \in MsAt("pollcheck") : StopM(m) \/ NetpollBlock(m) \/ NetpollBreak(m)
    \/ \E m \in MsAt("syscallnop") : ExitSyscallLateP(m) \/ ExitSyscallGlobrunq(m)
    \/ \E m \in MsAt("exitlockcheck") : ExitSyscallLockCheck(m)
    \/ \E m \in MsAt("resetspin") : ResetSpinning(m)
    \/ \E m \in MsAt("startlocked") : StartLockedM(m)
    \/ \E m \in MsAt("injectglob") : InjectGlobrunq(m)
    \/ \E m \in MsAt("injectstart") : InjectStartIdle(m)
    \/ \E m \in MsAt("injectlocal") : InjectRunqput(m)
    \/ \E m \in MsAt("injectwake") : InjectWakep(m)
    \/ \E m \in MsAt("netpollret") : NetpollWake(m)
    \/ \E m \in MsAt("netpolllock") : NetpollPidleget(m) \/ NetpollNoP(m)
    \/ \E m \in MsAt("timersnop") : CheckTimersNoP(m)
    \/ \E p \in Ps : st.P[p].status = "running" /\ (Preempt(p) \/ Retake(p) \/ RetakeHandoff(p))
    \/ \E g \in Gs : InjectGList(g)
    \/ \E g \in Gs : NetpollReady(g)
    \/ TimerTick
    \/ STW /\ (StopTheWorld \/ (\E n \in 1..NP : StartTheWorld(n)) \/ StartTheWorldWakep \/ ProcResizeGrow)
    \/ Terminated

\* Fairness as docs/spec.md states it: "an M in its schedule loop
\* eventually takes a step", per M, and the same for Retake per P; with
\* timers, time passes (TimerTick). Nothing else is fair: programs,
\* syscalls and the outside world (NetpollReady among them) may do
\* anything.
\*
\* Each conjunct is weak fairness, WF_st(A) == []<>~ENABLED <<A>>_st \/
\* []<><<A>>_st, with ENABLED <<A>>_st replaced by the condition the spec
\* uses: M m is in its schedule loop (InLoop(m)), Retake(p)'s condition
\* holds (RetakeEnabled(p)). The two differ only where every step of the M
\* (or the Retake) needs an M beyond the NM bound and is not taken (Succ):
\* there WF would let the M sit forever, while this fairness does not
\* (spec.Explore with Options.ThreadLimit: the runtime dies of thread
\* exhaustion there).
\* An M whose G made semrelease's hand-off (yield) goyields next, in
\* runtime code with no safe point between: that Goyield is the M's
\* fair step too (spec's ActionKind.mFair, MState.excused), or a
\* stop-the-world would wait forever on its P.
MFairOn(m) == InLoop(m) \/ st.M[m].yield
FairM(m) == []<>(~MFairOn(m)) \/ []<><<SchedStep(m) \/ Goyield(m)>>_st
FairRetake(p) == []<>(~RetakeEnabled(p)) \/ []<><<Retake(p) \/ RetakeHandoff(p)>>_st
\* STW: the stopper's restart steps, once enabled; and, while gcwaiting is
\* set, the preemption of each P's running G (preemptall, retried until
\* the world is stopped). Both hold trivially without STW.
FairStopper == []<>(~StopperEnabled) \/ []<><<StopperStep>>_st
FairSTWPreempt(p) == []<>(~(st.GCWaiting /\ PreemptEnabled(p))) \/ []<><<Preempt(p)>>_st
\* NTimers: the clock's tick, weakly fair (spec's tick family; trivial
\* without timers).
FairTick == []<>(~TickEnabled) \/ []<><<TimerTick>>_st
Fairness ==
    /\ \A m \in Ms : FairM(m)
    /\ \A p \in Ps : FairRetake(p)
    /\ \A p \in Ps : FairSTWPreempt(p)
    /\ FairStopper
    /\ FairTick

Spec == Init /\ [][Next]_st
FairSpec == Spec /\ Fairness

-----------------------------------------------------------------------------
(* Invariants: spec/check.go's ten, numbered as in docs/spec.md.           *)

TypeOK ==
    /\ \A g \in Gs : st.G[g] \in GStatuses
    /\ \A p \in Ps : /\ st.P[p].status \in PStatuses
                     /\ st.P[p].tick \in 0..SchedTick-1
                     /\ st.P[p].runnext \in 0..NG
                     /\ \A i \in 1..Len(st.P[p].ring) : st.P[p].ring[i] \in Gs
    /\ \A m \in Ms : /\ st.M[m].pc \in MPCs
                     /\ st.M[m].p \in Ps \cup {NoP}
                     /\ st.M[m].curg \in 0..NG
                     /\ st.M[m].spinning \in BOOLEAN
                     /\ st.M[m].scan \subseteq Ps
                     /\ st.M[m].wake \in {"none", "pending", "cas"}
                     /\ st.M[m].inj \in 0..NG
                     /\ st.M[m].lockedg \in 0..NG
                     /\ st.M[m].nextp \in Ps \cup {NoP}
                     /\ st.M[m].tainted \in BOOLEAN
                     /\ st.M[m].victim \in Ps \cup {NoP}
                     /\ st.M[m].oldp \in Ps \cup {NoP}
                     /\ st.M[m].yield \in BOOLEAN
                     /\ st.M[m].snapps \in 0..NP
                     /\ st.M[m].wasspinning \in BOOLEAN
                     /\ st.M[m].polluntil \in 0..NTimers + 1
                     /\ st.M[m].checked \in BOOLEAN
                     /\ st.M[m].inherit \in BOOLEAN
    /\ \A i \in 1..Len(st.Runq) : st.Runq[i] \in Gs
    /\ Len(st.Pidle) \in 0..NP /\ \A i \in 1..Len(st.Pidle) : st.Pidle[i] \in Ps
    /\ st.NPIdle \in 0..NP /\ st.NMSpinning \in 0..NM /\ st.SpawnLeft \in 0..Spawn
    /\ st.NeedSpinning \in BOOLEAN /\ st.RetakeP \in Ps \cup {NoP}
    /\ st.GCWaiting \in BOOLEAN /\ st.StopWait \in 0..NP /\ st.STWPhase \in STWPhases
    /\ st.STWLeft \in 0..2 /\ st.Procs \in 1..NP /\ st.NilRead \in BOOLEAN
    /\ st.LastPoll \in BOOLEAN /\ st.PollUntil \in 0..NTimers + 1
    /\ \A g \in Gs : st.TimerP[g] \in Ps \cup {NoP} /\ st.TimerWhen[g] \in 0..NTimers

Occurrences(g, s) == Cardinality({i \in 1..Len(s) : s[i] = g})
RingSlots(g) == UNION {{<<p, i>> : i \in {j \in 1..Len(st.P[p].ring) : st.P[p].ring[j] = g}} : p \in Ps}
QueuedCount(g) ==
    Occurrences(g, st.Runq)
    + Cardinality({p \in Ps : st.P[p].runnext = g})
    + Cardinality(RingSlots(g))
CurgOf(g) == {m \in Ms : st.M[m].curg = g}
\* (An M at pc "exitlockcheck" keeps the id of a G it has already queued
\* in inj: that is no hold on the G.)
InjOf(g) == {m \in Ms : st.M[m].inj = g /\ st.M[m].pc \in {"injectglob", "injectlocal"}}
\* The locked M that holds g's P in nextp: g came with that P, runnable.
NextPOf(g) == {m \in Ms : st.M[m].nextp # NoP /\ st.M[m].lockedg = g}
\* The pcs at which an M holds its runnable curg in hand (at "netpolllock"
\* the G the network readied, if any).
HandPCs == {"syscallnop", "resetspin", "injectglob", "injectstart", "injectlocal", "injectwake",
            "startlocked", "netpolllock", "recheckspin"}

\* 1. Each G is in exactly one place consistent with its status. A runnable
\*    G is queued once, or is "in hand": the curg of an M in exitsyscallNoP,
\*    of a spinning M about to resetspinning, of an M in injectglist or
\*    about to startlockedm, the G injectglist is about to queue, or the
\*    locked G of an M whose nextp holds the P it came with.
InvGPlace ==
    \A g \in Gs :
        CASE st.G[g] = "runnable" -> \/ /\ QueuedCount(g) = 1 /\ CurgOf(g) = {} /\ InjOf(g) = {}
                                        /\ NextPOf(g) = {}
                                     \/ /\ QueuedCount(g) = 0 /\ Cardinality(CurgOf(g)) = 1 /\ InjOf(g) = {}
                                        /\ NextPOf(g) = {}
                                        /\ \A m \in CurgOf(g) : st.M[m].pc \in HandPCs
                                     \/ /\ QueuedCount(g) = 0 /\ CurgOf(g) = {} /\ Cardinality(InjOf(g)) = 1
                                        /\ NextPOf(g) = {}
                                        /\ \A m \in InjOf(g) : st.M[m].pc \in {"injectglob", "injectlocal"}
                                     \/ /\ QueuedCount(g) = 0 /\ CurgOf(g) = {} /\ InjOf(g) = {}
                                        /\ Cardinality(NextPOf(g)) = 1
          [] st.G[g] = "running"  -> /\ QueuedCount(g) = 0 /\ Cardinality(CurgOf(g)) = 1 /\ InjOf(g) = {}
                                     /\ NextPOf(g) = {}
                                     /\ \A m \in CurgOf(g) : st.M[m].p # NoP /\ st.M[m].pc = "run"
          [] st.G[g] = "syscall"  -> /\ QueuedCount(g) = 0 /\ Cardinality(CurgOf(g)) = 1 /\ InjOf(g) = {}
                                     /\ NextPOf(g) = {}
                                     /\ \A m \in CurgOf(g) : st.M[m].pc = "run"
          [] OTHER                -> QueuedCount(g) = 0 /\ CurgOf(g) = {} /\ InjOf(g) = {} /\ NextPOf(g) = {}

\* 2. Every ring holds at most Cap Gs.
InvQueueCap == \A p \in Ps : Len(st.P[p].ring) <= Cap

\* 3. A spinning M holds a P whose local queue is empty, or has just
\*    released it (pc "dropspin"), or has found work (pc "resetspin": a
\*    steal or a global batch fills its queue just before resetspinning).
\*    Without timers only the G running on a P puts Gs on its local queue;
\*    with timers (NTimers) the M's own checkTimers may, so the queue may
\*    hold Gs at the top after CheckTimers (checked) and at "local".
TimersReadied(m) == NTimers > 0 /\ ((st.M[m].pc = "sched" /\ st.M[m].checked) \/ st.M[m].pc = "local")
InvSpinning ==
    \A m \in Ms :
        st.M[m].spinning =>
            IF st.M[m].p = NoP THEN st.M[m].pc = "dropspin"
            ELSE IF st.M[m].pc \in {"resetspin", "injectwake"} \/ TimersReadied(m) THEN TRUE
            ELSE LocalEmpty(st, st.M[m].p)

\* 4. An idle P has an empty local queue and no holder; a running P has
\*    exactly one holder. A P in a locked M's nextp is held by that M; the
\*    P sysmon's retake took is held by sysmon (no M) until its handoffp.
HolderCount(p) == Cardinality({m \in Ms : st.M[m].p = p}) + Cardinality({m \in Ms : st.M[m].nextp = p})
                  + (IF st.RetakeP = p THEN 1 ELSE 0)
InvPIdle ==
    /\ IF st.RetakeP = NoP THEN TRUE
       ELSE Syscalls /\ st.P[st.RetakeP].status = "running" /\ \A m \in Ms : st.M[m].p # st.RetakeP
    /\ \A p \in Ps :
        CASE st.P[p].status = "idle" -> LocalEmpty(st, p) /\ HolderCount(p) = 0
          [] st.P[p].status = "running" -> HolderCount(p) = 1
          [] OTHER -> TRUE   \* gcstop, dead: invariant 9

\* 5. NPIdle and NMSpinning equal their recounts (an M that won wakep's
\*    CAS counts until its lock section); sched.pidle lists each idle P
\*    once and nothing else, NPIdle entries; needspinning only where the
\*    Go version has it.
InvCounts ==
    /\ st.NPIdle = Cardinality(IdlePs(st))
    /\ Len(st.Pidle) = st.NPIdle
    /\ \A i \in 1..Len(st.Pidle) : st.Pidle[i] \in IdlePs(st)
    /\ \A i, j \in 1..Len(st.Pidle) : i # j => st.Pidle[i] # st.Pidle[j]
    /\ st.NMSpinning = Cardinality({m \in Ms : st.M[m].spinning})
                        + Cardinality({m \in Ms : st.M[m].wake = "cas"})
    /\ st.NeedSpinning => NeedSpinningOn

\* 6. No G is both free (idle/dead) and live (queued or a curg).
InvFreeLive ==
    \A g \in Gs : st.G[g] \in {"idle", "dead"} =>
                     (QueuedCount(g) = 0 /\ CurgOf(g) = {} /\ InjOf(g) = {} /\ NextPOf(g) = {})

\* 7. M shape: the fields each pc allows.
InvMShape ==
    \A m \in Ms :
        LET r == st.M[m] IN
        /\ r.scan # {} => r.pc \in {"steal", "stealnext", "recheckrunqs"}
        /\ r.victim # NoP => r.pc = "stealnext"
        /\ r.snapps # 0 => (ProcResize /\ r.pc \in {"dropspin", "recheck", "recheckrunqs", "recheckp"})
        /\ r.yield => (GoyieldOn /\ r.pc = "run" /\ r.p # NoP /\ r.curg # NoG /\ st.G[r.curg] = "running")
        /\ r.oldp # NoP => (r.pc = "run" /\ r.p = NoP /\ r.curg # NoG /\ st.G[r.curg] = "syscall")
        /\ r.wake # "none" => /\ r.p # NoP
                              /\ \/ r.pc \in {"run", "resetspin", "startlocked"} /\ r.curg # NoG
                                 \/ r.pc = "sched" /\ r.curg = NoG
        /\ r.inj # NoG => r.pc \in {"injectglob", "injectlocal", "exitlockcheck"}
        /\ r.pc \in {"injectglob", "injectlocal"} => r.inj # NoG
        \* nextp only on a locked M at the top of schedule, which holds a P.
        /\ r.nextp # NoP => (r.lockedg # NoG /\ r.pc = "sched" /\ r.p # NoP)
        \* A locked M runs its G (or is in its syscall, or exits it), is at
        \* the top of schedule before stoplockedm, or is parked there with
        \* no P; it never spins, scans or injects.
        /\ r.lockedg # NoG =>
               /\ \/ r.pc \in {"run", "syscallnop"} /\ r.curg = r.lockedg
                  \/ r.pc = "sched" /\ r.curg = NoG
                  \/ r.pc \in {"lockedwait", "exitlockcheck"} /\ r.curg = NoG /\ r.p = NoP
               /\ ~r.spinning /\ r.scan = {} /\ r.inj = NoG
        /\ CASE r.pc \in {"idle", "recheck", "recheckrunqs", "recheckp", "stop"} ->
                    r.p = NoP /\ r.curg = NoG /\ ~r.spinning /\ r.lockedg = NoG
             [] r.pc \in {"sched", "local", "poll", "spin", "drop"} -> r.p # NoP /\ r.curg = NoG
             [] r.pc = "steal" -> r.p # NoP /\ r.curg = NoG /\ r.spinning /\ r.p \notin r.scan
             [] r.pc = "stealnext" ->
                    r.p # NoP /\ r.curg = NoG /\ r.spinning /\ r.p \notin r.scan /\ r.victim \in r.scan
             [] r.pc = "dropspin" -> r.p = NoP /\ r.curg = NoG /\ r.spinning
             [] r.pc = "syscallnop" -> r.p = NoP /\ r.curg # NoG /\ ~r.spinning
             [] r.pc = "resetspin" -> r.p # NoP /\ r.curg # NoG /\ r.spinning
             [] r.pc = "recheckspin" -> r.p # NoP /\ ~r.spinning /\ r.lockedg = NoG
             [] r.pc \in {"injectglob", "injectstart", "injectlocal", "injectwake"} ->
                    r.p # NoP /\ r.curg # NoG /\ r.inj # r.curg
             [] r.pc = "startlocked" ->
                    r.p # NoP /\ r.curg # NoG /\ ~r.spinning /\ LockedElsewhere(st, m, r.curg)
             [] r.pc = "lockedwait" -> r.p = NoP /\ r.curg = NoG /\ r.lockedg # NoG
             [] r.pc = "exitlockcheck" ->
                    /\ r.p = NoP /\ r.curg = NoG /\ ~r.spinning /\ LockCheckAfterPut
                    /\ (r.inj # NoG) # (r.lockedg # NoG)
             [] r.pc \in {"timersnop", "pollcheck", "netpoll", "netpollret"} ->
                    r.p = NoP /\ r.curg = NoG /\ ~r.spinning /\ PollBlock
             [] r.pc = "netpolllock" -> r.p = NoP /\ ~r.spinning /\ PollBlock
             [] OTHER -> r.curg # NoG

\* 8. A locked G is live and locked to one M, and runs on no other M; no M
\*    is a clone of a thread a locked G exited on (go1.11's newm).
InvLocked ==
    /\ \A m \in Ms : ~st.M[m].tainted
    /\ \A m \in Ms : st.M[m].lockedg # NoG => st.G[st.M[m].lockedg] \notin {"idle", "dead"}
    /\ \A m1, m2 \in Ms : (m1 # m2 /\ st.M[m1].lockedg # NoG) => st.M[m1].lockedg # st.M[m2].lockedg
    /\ \A m \in Ms : (st.M[m].pc = "run" /\ st.M[m].curg # NoG /\ st.M[m].lockedg # st.M[m].curg)
                      => LockedMs(st, st.M[m].curg) = {}

\* 9. Stop-the-world: a stopped or dead P has no holder; a P past
\*    gomaxprocs is dead and empty, one below it is not dead; a stopped P
\*    exists only while gcwaiting is set, and no P is idle then;
\*    gcwaiting is set exactly while the stopper is stopping (or, in
\*    go1.10dev, has grown allp), stopwait counts the Ps not stopped; no
\*    rechecking M read allp's nil slot (go1.10dev).
InvSTW ==
    /\ \A p \in Ps :
        /\ (st.P[p].status \in {"gcstop", "dead"} => HolderCount(p) = 0)
        /\ CASE ~STW -> st.P[p].status \notin {"gcstop", "dead"}
             [] p >= st.Procs -> /\ st.P[p].status = "dead" /\ LocalEmpty(st, p) /\ st.P[p].tick = 0
                                 /\ \A g \in Gs : st.TimerP[g] # p
             [] OTHER -> /\ st.P[p].status # "dead"
                         /\ (st.P[p].status = "gcstop" => st.GCWaiting)
                         /\ (st.P[p].status = "idle" => ~st.GCWaiting)
    /\ STW => (/\ (st.GCWaiting <=> st.STWPhase \in {"stopping", "grown"})
               /\ st.Procs \in 1..NP
               /\ ~st.NilRead
               /\ (st.STWPhase = "grown" => (LiveAllp /\ st.StopWait = 0))
               /\ (st.GCWaiting => st.StopWait = Cardinality({p \in LivePs(st) : st.P[p].status # "gcstop"}))
               /\ (~st.GCWaiting => st.StopWait = 0))

\* 10. The blocking poller and timers: at most one M is in the poller (pc
\*     "netpoll" or "netpollret"), and sched.lastpoll is 0 exactly while
\*     one is; sched.pollUntil is set only while an M polls, within the
\*     longest sleep, and an M still blocked has a timeout not yet
\*     reached; a G with a timer is waiting, on an existing P's heap, due
\*     within NTimers ticks; findRunnable's locals are where they mean
\*     something (NormM), and all of it is off without the poller.
PollLocalsOff(m) ==
    ~st.M[m].wasspinning /\ st.M[m].polluntil = 0 /\ ~st.M[m].checked /\ ~st.M[m].inherit
PollerOK ==
    /\ Cardinality(Pollers(st)) <= 1
    /\ (st.LastPoll <=> (Pollers(st) = {}))
    /\ (st.PollUntil # 0 => (Pollers(st) # {}))
    /\ st.PollUntil <= NTimers + 1
    /\ ~(PollerBlocked(st) /\ st.PollUntil = 1)
TimerOK(g) ==
    IF st.TimerP[g] = NoP THEN st.TimerWhen[g] = 0
    ELSE NTimers > 0 /\ st.TimerP[g] \in Ps /\ st.G[g] = "waiting" /\ st.TimerWhen[g] <= NTimers
InvPoll ==
    /\ \A m \in Ms : st.M[m].polluntil <= NTimers + 1 /\ NormM(st.M[m]) = st.M[m]
    /\ \A m \in Ms : PollBlock \/ PollLocalsOff(m)
    /\ IF PollBlock THEN PollerOK ELSE (~st.LastPoll /\ st.PollUntil = 0 /\ Pollers(st) = {})
    /\ \A g \in Gs : TimerOK(g)

-----------------------------------------------------------------------------
(* Liveness, as temporal properties of FairSpec: checked by TLC, or without *)
(* TLC by the Go explorer on the same graph (docs/tla.md says why           *)
(* tla-checker 0.9.0's own verdict on them is not used).                    *)

\* An M in the no-P recheck: it will look at every source of work again.
Rechecking(m) == st.M[m].pc \in {"dropspin", "recheck", "recheckrunqs", "recheckp"}

\* Some G is runnable, a P is idle, and no M is looking for work.
LostWakeup ==
    /\ \E g \in Gs : st.G[g] = "runnable"
    /\ st.NPIdle > 0
    /\ \A m \in Ms : ~st.M[m].spinning /\ ~Rechecking(m)

\* (a) Work conservation / no lost wakeup: no fair behaviour stays in
\* LostWakeup forever.
WorkConservation == []<>(~LostWakeup)

\* The stuttering half of (a) as a state invariant, which every checker can
\* check: LostWakeup in a state where no fair action is enabled (no M is in
\* its schedule loop, no Retake is possible, the clock cannot tick and the
\* stopper has no step to take) is a fair behaviour that stays there
\* forever by stuttering.
FairEnabled ==
    \/ \E m \in Ms : InLoop(m)
    \/ \E p \in Ps : RetakeEnabled(p)
    \/ TickEnabled
    \/ STW /\ StopperEnabled
NoStuckLostWakeup == ~(LostWakeup /\ ~FairEnabled)

\* A step of P p that starts a fresh time slice (execute with inheritTime
\* false), or preempts it: sysmon's time slice (forcePreemptNS). A spinning
\* M's find executes nothing (Run: pc "resetspin"); its ResetSpinning is
\* the fresh slice. Steal and RecheckGlobal are always a spinning M's. A G
\* locked to another M is not executed where it is found (Dispatch: pc
\* "startlocked"): its slice starts when its own M executes it, in
\* StartLockedM (that M parked) or StopLockedM (the P in its nextp). With
\* timers a spinning M may hold a G from its own runnext (StealTimers,
\* or RunqGet after CheckTimers): its ResetSpinning inherits the slice.
FreshSlice(p) ==
    \E m \in Ms :
        \/ MyP(m) = p /\ ~Spinning(m) /\ st'.M[m].pc = "run"
           /\ \/ Global61(m) \/ GlobRunqGetBatch(m) \/ (\E g \in Gs : Netpoll(m, g))
              \/ (RunqGet(m) /\ st.P[p].runnext = NoG) \/ InjectWakep(m)
        \/ MyP(m) = p /\ ResetSpinning(m) /\ ~st.M[m].inherit /\ st'.M[m].pc = "run"
        \/ ExitSyscallLateP(m) /\ PidleGot(st) = p /\ st'.M[m].pc = "run"
        \/ NetpollPidleget(m) /\ PidleGot(st) = p /\ st'.M[m].pc = "run"
        \/ MyP(m) = p /\ StartLockedM(m) /\ st.M[LockedM(st, st.M[m].curg)].pc = "lockedwait"
        \/ StopLockedM(m) /\ st.M[m].nextp = p
TimeSlice == \A p \in Ps : []<>(st.P[p].status # "running") \/ []<><<FreshSlice(p) \/ Preempt(p)>>_st

\* (b) No starvation of the global queue, given the time slice.
\* Without asynchronous preemption (Go 1.13) no fresh time slice is owed:
\* the starvation properties drop TimeSlice there (spec/liveness.go).
SliceOwed == AsyncPreempt => TimeSlice
NoGlobalStarvation ==
    SliceOwed => \A g \in Gs : []<>(Occurrences(g, st.Runq) = 0)

\* G g is in some P's local run queue: its runnext or its ring.
InLocalQueue(g) ==
    \E p \in Ps : st.P[p].runnext = g \/ Occurrences(g, st.P[p].ring) # 0

\* (c) No starvation of the local queues, given the time slice: under the
\* fairness and time slices of (b), no G stays in the local run queues
\* (some P's runnext or ring, not necessarily the same P's) forever. Not
\* one of the default checks (spec.Options.LocalStarvation): Go 1.26 fails
\* it, as golang/go#52934 (open) says (GMP_hist_52934.cfg): two Gs of a P
\* ready each other into runnext and run there on an inherited slice,
\* while the G at the head of its ring waits.
NoLocalStarvation ==
    SliceOwed => \A g \in Gs : []<>(~InLocalQueue(g))

\* (d) The stop-the-world completes: no fair behaviour keeps gcwaiting set
\* forever (STW). No time-slice premise: the fairness of FairStopper and
\* FairSTWPreempt is what it rests on.
STWCompletes == []<>(~st.GCWaiting)

\* A step by which the network readies a G: findRunnable's netpoll(0)
\* (alone or with injectglist), sysmon's netpoll, the blocked poller's
\* return (spec's netReady kinds).
NetStep ==
    \/ \E m \in Ms : \E g \in Gs : Netpoll(m, g)
    \/ \E m \in Ms : \E g, h \in Gs : NetpollInject(m, g, h)
    \/ \E g \in Gs : InjectGList(g)
    \/ \E g \in Gs : NetpollReady(g)
\* The network eventually goes quiet: finitely many NetStep steps
\* (<>[][~NetStep]_st, written as the negation TLC reads best).
QuietNet == ~([]<><<NetStep>>_st)

\* g's timer is due (on a P's heap, not yet run).
TimerDue(g) == st.TimerP[g] # NoP /\ st.TimerWhen[g] = 0

\* (e) A due timer runs (NTimers): no fair behaviour keeps g's timer due
\* forever, given the time slice of (b), the clock's fairness (FairTick,
\* in Fairness) and a network that goes quiet. The last premise is
\* spec's quietNet (docs/spec.md, liveness (e)): without it an M whose G
\* parks and is readied at once by netpoll(0), forever, never looks past
\* its own P.
TimerRuns ==
    (QuietNet /\ SliceOwed) => \A g \in Gs : []<>(~TimerDue(g))

\* Every P is idle, a G waits on the network, and nobody blocks in netpoll
\* (sched.lastpoll # 0). sysmon, which would poll, sleeps while every P is
\* idle.
NetpollUnwatched == st.LastPoll /\ st.NPIdle = st.Procs /\ NetpollAnyWaiters(st)

\* (f) The network is watched (PollBlock): no fair behaviour stays in
\* NetpollUnwatched forever. No time slice and no quiet network assumed.
NetpollWatched == []<>(~NetpollUnwatched)

=============================================================================
