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
(*   st.M[m]   [pc, p, curg, spinning] of M m (0..NM-1)                     *)
(*   st.Runq   sched.runq, the global queue                                *)
(*   st.NPIdle, st.NMSpinning, st.SpawnLeft                                *)
(* Ps, Ms and Gs are numbers rather than model values because the spec's   *)
(* canonical choices (pidleget takes the lowest idle P, startm the lowest  *)
(* idle M, gfget the lowest free G) need an order, and because symmetry    *)
(* reduction would make state counts incomparable with the Go explorer.    *)
(*                                                                         *)
(* Each action is atomic. Helpers (RunqPut, Wakep, StartM, Run, ...) are   *)
(* functions from a state record to a state record, composed inside one    *)
(* action exactly as spec/model.go calls them.                             *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets   \* Integers: NoP is -1

CONSTANTS
    NP,         \* GOMAXPROCS
    NM,         \* M slots
    NG,         \* G slots; g1 is main
    Cap,        \* capacity of each P's ring
    Spawn,      \* NewProc budget
    SchedTick,  \* period of the global-queue check (61 in the runtime)
    Syscalls,   \* EnterSyscall, ExitSyscall*, Retake
    NetpollOn,  \* model netpoll: Netpoll in findRunnable, InjectGList
    Bug         \* "none" or a seeded bug of spec.Bug (same names)

BugNames == {"none", "ready-no-wakep", "no-61", "nmspinning-no-dec",
             "gosched-local", "retake-ignores-local"}

ASSUME /\ NP \in 1..4 /\ NM \in NP..8 /\ NG \in 1..8
       /\ Cap \in {2, 4, 8} /\ Spawn \in 0..15 /\ SchedTick \in 1..61
       /\ Syscalls \in BOOLEAN /\ NetpollOn \in BOOLEAN /\ Bug \in BugNames

NoG == 0
NoP == -1
Gs == 1..NG
Ps == 0..NP-1
Ms == 0..NM-1
Half == Cap \div 2

GStatuses == {"idle", "runnable", "running", "waiting", "syscall", "dead"}
MPCs == {"idle", "sched", "recheck", "run"}

Min(S) == CHOOSE x \in S : \A y \in S : x <= y
Min3(a, b, c) == Min({a, b, c})
Max2(a, b) == IF a >= b THEN a ELSE b

VARIABLE st

Init ==
    st = [G |-> [g \in Gs |-> IF g = 1 THEN "running" ELSE "idle"],
          P |-> [p \in Ps |-> [status |-> IF p = 0 THEN "running" ELSE "idle",
                               tick |-> 0, runnext |-> NoG, ring |-> <<>>]],
          M |-> [m \in Ms |-> IF m = 0
                                THEN [pc |-> "run", p |-> 0, curg |-> 1, spinning |-> FALSE]
                                ELSE [pc |-> "idle", p |-> NoP, curg |-> NoG, spinning |-> FALSE]],
          Runq |-> <<>>,
          NPIdle |-> NP - 1,
          NMSpinning |-> 0,
          SpawnLeft |-> Spawn]

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
IdleMs(s) == {m \in Ms : s.M[m].pc = "idle"}

\* pidleget / pidleput. Pidleget takes the lowest idle P; callers check
\* that one exists (NPIdle > 0).
PidleGot(s) == Min(IdlePs(s))
Pidleget(s) == [s EXCEPT !.P[PidleGot(s)].status = "running", !.NPIdle = @ - 1]
Pidleput(s, p) == [s EXCEPT !.P[p].status = "idle", !.NPIdle = @ + 1]

\* startm: the lowest idle M takes P p. With no idle M the result is
\* NoIdleM, and the step that needed the M is not taken: like the runtime's
\* maxmcount, the M bound limits the behaviours explored (spec.Explore
\* counts these as "pruned" transitions). Helpers pass NoIdleM through;
\* Succ discards it.
NoIdleM == [startm |-> "no idle M"]
StartM(s, p, spinning) ==
    IF s = NoIdleM \/ IdleMs(s) = {} THEN NoIdleM
    ELSE [s EXCEPT !.M[Min(IdleMs(s))] = [pc |-> "sched", p |-> p, curg |-> NoG,
                                         spinning |-> spinning]]

\* The successor of an action, unless a startm in it found no idle M.
Succ(ns) == ns # NoIdleM /\ st' = ns

\* wakep: start a spinning M on an idle P unless an M already spins.
Wakep(s) ==
    IF s.NMSpinning # 0 \/ s.NPIdle = 0
      THEN s
      ELSE LET p == PidleGot(s) IN
           StartM([Pidleget(s) EXCEPT !.NMSpinning = @ + 1], p, TRUE)

\* handoffp of a P whose M is in a syscall.
Handoffp(s, p) ==
    LET local == ~LocalEmpty(s, p) /\ Bug # "retake-ignores-local" IN
    IF local \/ s.Runq # <<>>
      THEN StartM(s, p, FALSE)
    ELSE IF s.NMSpinning + s.NPIdle = 0
      THEN StartM([s EXCEPT !.NMSpinning = @ + 1], p, TRUE)
    ELSE Pidleput(s, p)

\* The end of schedule: resetspinning if m was spinning, then execute g. A
\* fresh time slice (inherit = FALSE) increments the P's schedtick.
Run(s, m, g, inherit) ==
    LET s1 == IF s.M[m].spinning
                THEN Wakep([s EXCEPT !.M[m].spinning = FALSE,
                                     !.NMSpinning = IF Bug = "nmspinning-no-dec" THEN @ ELSE @ - 1])
                ELSE s
        s2 == [s1 EXCEPT !.G[g] = "running", !.M[m].curg = g, !.M[m].pc = "run"]
        p  == s2.M[m].p
    IN IF s1 = NoIdleM THEN NoIdleM
       ELSE IF inherit THEN s2
       ELSE [s2 EXCEPT !.P[p].tick = (@ + 1) % SchedTick]

\* goschedImpl (Gosched and preemption): the G goes to sched.runq (or, with
\* the gosched-local bug, to its P's runnext), then wakep.
GoschedImpl(s, p, g) ==
    LET s1 == [s EXCEPT !.G[g] = "runnable"]
        s2 == IF Bug = "gosched-local" THEN RunqPut(s1, p, g, TRUE)
              ELSE [s1 EXCEPT !.Runq = Append(@, g)]
    IN Wakep(s2)

\* globrunqgetbatch(Cap/2): min(n, size, size/gomaxprocs+1) Gs, at least one.
GetBatchSize(n, size) == Min3(n, size, size \div NP + 1)

\* globrunqgetbatch + runqputbatch (onto an empty ring) + run.
TakeGlobalBatch(s, m) ==
    LET p == s.M[m].p
        k == Max2(GetBatchSize(Half, Len(s.Runq)), 1)
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

Cond61(s, p) == Bug # "no-61" /\ s.P[p].tick = 0 /\ s.Runq # <<>>

Stealable(s, p) == s.P[p].ring # <<>> \/ s.P[p].runnext # NoG

\* runqsteal with stealRunNext: the ring's first ceil(n/2) Gs, or runnext.
StealBatch(s, j) ==
    IF s.P[j].ring # <<>>
      THEN SubSeq(s.P[j].ring, 1, Len(s.P[j].ring) - Len(s.P[j].ring) \div 2)
      ELSE <<s.P[j].runnext>>
AfterSteal(s, j) ==
    IF s.P[j].ring # <<>>
      THEN [s EXCEPT !.P[j].ring = SubSeq(@, Len(@) - Len(@) \div 2 + 1, Len(@))]
      ELSE [s EXCEPT !.P[j].runnext = NoG]

AnyLocalWork(s) == \E p \in Ps : s.P[p].status = "running" /\ ~LocalEmpty(s, p)

RetakeCond(s, p) ==
    LET local == ~LocalEmpty(s, p) /\ Bug # "retake-ignores-local" IN
    local \/ s.NMSpinning + s.NPIdle = 0

-----------------------------------------------------------------------------
(* Goroutine actions: M m runs its G, which decides (no fairness).         *)

Running(m) == st.M[m].pc = "run" /\ st.G[st.M[m].curg] = "running"

NewProc(m) ==
    /\ Running(m) /\ st.SpawnLeft > 0 /\ Gfget(st) # NoG
    /\ LET ng == Gfget(st)
           s1 == RunqPut([st EXCEPT !.G[ng] = "runnable"], st.M[m].p, ng, TRUE)
       IN Succ(Wakep([s1 EXCEPT !.SpawnLeft = @ - 1]))

GoExit(m) ==
    /\ Running(m)
    /\ st' = [st EXCEPT !.G[st.M[m].curg] = "dead", !.M[m].curg = NoG, !.M[m].pc = "sched"]

Gosched(m) ==
    /\ Running(m)
    /\ Succ(GoschedImpl([st EXCEPT !.M[m].curg = NoG, !.M[m].pc = "sched"],
                         st.M[m].p, st.M[m].curg))

Park(m) ==
    /\ Running(m)
    /\ st' = [st EXCEPT !.G[st.M[m].curg] = "waiting", !.M[m].curg = NoG, !.M[m].pc = "sched"]

Ready(m, g) ==
    /\ Running(m) /\ st.G[g] = "waiting"
    /\ LET s1 == RunqPut([st EXCEPT !.G[g] = "runnable"], st.M[m].p, g, TRUE) IN
       Succ(IF Bug = "ready-no-wakep" THEN s1 ELSE Wakep(s1))

EnterSyscall(m) ==
    /\ Syscalls /\ Running(m)
    /\ st' = [st EXCEPT !.G[st.M[m].curg] = "syscall"]

-----------------------------------------------------------------------------
(* Syscall exit, by the M whose G is in a syscall (no fairness).           *)

InSyscall(m) == st.M[m].pc = "run" /\ st.G[st.M[m].curg] = "syscall"

ExitSyscallFast(m) ==
    /\ InSyscall(m) /\ st.M[m].p # NoP
    /\ st' = [st EXCEPT !.G[st.M[m].curg] = "running"]

ExitSyscallIdleP(m) ==
    /\ InSyscall(m) /\ st.M[m].p = NoP /\ st.NPIdle > 0
    /\ st' = [Pidleget(st) EXCEPT !.M[m].p = PidleGot(st), !.G[st.M[m].curg] = "running"]

ExitSyscallNoP(m) ==
    /\ InSyscall(m) /\ st.M[m].p = NoP /\ st.NPIdle = 0
    /\ st' = [st EXCEPT !.G[st.M[m].curg] = "runnable", !.Runq = Append(@, st.M[m].curg),
                        !.M[m].curg = NoG, !.M[m].pc = "idle"]

-----------------------------------------------------------------------------
(* The schedule loop: M m in findRunnable holding P p (weakly fair per M). *)
(* Exactly one group of steps is enabled, in findRunnable's order.          *)

InSched(m) == st.M[m].pc = "sched"
MyP(m) == st.M[m].p
NothingLocal(m) == LocalEmpty(st, MyP(m)) /\ st.Runq = <<>>

Global61(m) ==
    /\ InSched(m) /\ Cond61(st, MyP(m))
    /\ Succ(Run([st EXCEPT !.Runq = Tail(@)], m, Head(st.Runq), FALSE))

RunqGet(m) ==
    /\ InSched(m) /\ ~Cond61(st, MyP(m)) /\ ~LocalEmpty(st, MyP(m))
    /\ LET p == MyP(m) IN
       Succ(IF st.P[p].runnext # NoG
              THEN Run([st EXCEPT !.P[p].runnext = NoG], m, st.P[p].runnext, TRUE)
              ELSE Run([st EXCEPT !.P[p].ring = Tail(@)], m, Head(st.P[p].ring), FALSE))

GlobRunqGetBatch(m) ==
    /\ InSched(m) /\ ~Cond61(st, MyP(m)) /\ LocalEmpty(st, MyP(m)) /\ st.Runq # <<>>
    /\ Succ(TakeGlobalBatch(st, m))

Netpoll(m, g) ==
    /\ NetpollOn /\ InSched(m) /\ NothingLocal(m) /\ st.G[g] = "waiting"
    /\ Succ(Run(st, m, g, FALSE))

BecomeSpinning(m) ==
    /\ InSched(m) /\ NothingLocal(m) /\ ~st.M[m].spinning
    /\ 2 * st.NMSpinning < NP - st.NPIdle
    /\ st' = [st EXCEPT !.M[m].spinning = TRUE, !.NMSpinning = @ + 1]

Steal(m, j) ==
    /\ InSched(m) /\ NothingLocal(m) /\ st.M[m].spinning
    /\ j # MyP(m) /\ st.P[j].status = "running" /\ Stealable(st, j)
    /\ LET b  == StealBatch(st, j)
           s1 == AfterSteal(st, j)
           s2 == [s1 EXCEPT !.P[MyP(m)].ring = @ \o SubSeq(b, 1, Len(b) - 1)]
       IN Succ(Run(s2, m, b[Len(b)], FALSE))

ReleaseP(m) ==
    /\ InSched(m) /\ NothingLocal(m)
    /\ \/ st.M[m].spinning /\ ~\E j \in Ps : j # MyP(m) /\ st.P[j].status = "running" /\ Stealable(st, j)
       \/ ~st.M[m].spinning /\ 2 * st.NMSpinning >= NP - st.NPIdle
    /\ LET s1 == [Pidleput(st, MyP(m)) EXCEPT !.M[m].p = NoP] IN
       st' = IF st.M[m].spinning
               THEN [s1 EXCEPT !.M[m].spinning = FALSE, !.NMSpinning = @ - 1, !.M[m].pc = "recheck"]
               ELSE [s1 EXCEPT !.M[m].pc = "idle"]

(* The no-P recheck of an M that dropped spinning and its P.               *)

InRecheck(m) == st.M[m].pc = "recheck"

RecheckGlobal(m) ==
    /\ InRecheck(m) /\ st.NPIdle > 0 /\ st.Runq # <<>>
    /\ LET s1 == [Pidleget(st) EXCEPT !.M[m].p = PidleGot(st), !.M[m].pc = "sched",
                                      !.M[m].spinning = TRUE, !.NMSpinning = @ + 1]
       IN Succ(TakeGlobalBatch(s1, m))

RecheckRunqs(m) ==
    /\ InRecheck(m) /\ st.NPIdle > 0 /\ st.Runq = <<>> /\ AnyLocalWork(st)
    /\ st' = [Pidleget(st) EXCEPT !.M[m].p = PidleGot(st), !.M[m].pc = "sched",
                                  !.M[m].spinning = TRUE, !.NMSpinning = @ + 1]

StopM(m) ==
    /\ InRecheck(m) /\ ~(st.NPIdle > 0 /\ (st.Runq # <<>> \/ AnyLocalWork(st)))
    /\ st' = [st EXCEPT !.M[m].pc = "idle"]

-----------------------------------------------------------------------------
(* sysmon and netpoll (external).                                          *)

Preempt(p) ==
    /\ st.P[p].status = "running" /\ HasHolder(st, p)
    /\ LET m == Holder(st, p) IN
       /\ st.M[m].curg # NoG /\ st.G[st.M[m].curg] = "running"
       /\ Succ(GoschedImpl([st EXCEPT !.M[m].curg = NoG, !.M[m].pc = "sched"], p, st.M[m].curg))

RetakeEnabled(p) ==
    /\ Syscalls /\ st.P[p].status = "running" /\ HasHolder(st, p)
    /\ st.M[Holder(st, p)].curg # NoG /\ st.G[st.M[Holder(st, p)].curg] = "syscall"
    /\ RetakeCond(st, p)

Retake(p) ==
    /\ RetakeEnabled(p)
    /\ Succ(Handoffp([st EXCEPT !.M[Holder(st, p)].p = NoP], p))

InjectGList(g) ==
    /\ NetpollOn /\ st.G[g] = "waiting"
    /\ LET s1 == [st EXCEPT !.G[g] = "runnable", !.Runq = Append(@, g)] IN
       Succ(IF s1.NPIdle > 0 THEN StartM(Pidleget(s1), PidleGot(s1), FALSE) ELSE s1)

-----------------------------------------------------------------------------
(* Terminal states. The spec's explorer accepts a state with no enabled    *)
(* action when every G has exited (done) or, with netpoll off, every live  *)
(* G waits (a program deadlock, the runtime's checkdead); any other such   *)
(* state is a stuck scheduler. Terminated lets the accepted ones stutter,  *)
(* so the checkers' deadlock check reports exactly the stuck ones.         *)

LiveGs == {g \in Gs : st.G[g] \notin {"idle", "dead"}}
AllExited == LiveGs = {}
ProgramDeadlock == ~NetpollOn /\ LiveGs # {} /\ \A g \in LiveGs : st.G[g] = "waiting"
Terminated == (AllExited \/ ProgramDeadlock) /\ UNCHANGED st

-----------------------------------------------------------------------------

\* Every step of M m's schedule loop (the steps weak fairness is about).
SchedStep(m) ==
    \/ Global61(m) \/ RunqGet(m) \/ GlobRunqGetBatch(m)
    \/ (\E g \in Gs : Netpoll(m, g))
    \/ BecomeSpinning(m) \/ (\E j \in Ps : Steal(m, j)) \/ ReleaseP(m)
    \/ RecheckGlobal(m) \/ RecheckRunqs(m) \/ StopM(m)

GoroutineStep(m) ==
    \/ NewProc(m) \/ GoExit(m) \/ Gosched(m) \/ Park(m)
    \/ (\E g \in Gs : Ready(m, g)) \/ EnterSyscall(m)
    \/ ExitSyscallFast(m) \/ ExitSyscallIdleP(m) \/ ExitSyscallNoP(m)

\* The guards in front of the steps are implied by each step's own enabling
\* condition (every GoroutineStep(m) needs st.M[m].pc = "run", every
\* SchedStep(m) the schedule loop, Preempt and Retake a running P), so
\* they change nothing; they let tla-checker skip the disabled groups
\* (about twice as fast) and make it label each edge of its DOT export with
\* the action's own name, which the cross-check uses.
Next ==
    \/ \E m \in Ms : IF st.M[m].pc = "run" THEN GoroutineStep(m)
                    ELSE st.M[m].pc \in {"sched", "recheck"} /\ SchedStep(m)
    \/ \E p \in Ps : st.P[p].status = "running" /\ (Preempt(p) \/ Retake(p))
    \/ \E g \in Gs : InjectGList(g)
    \/ Terminated

\* Fairness as docs/spec.md states it: "an M in Sched or Recheck eventually
\* takes a step", per M, and the same for Retake per P. Nothing else is
\* fair: programs, syscalls and the outside world may do anything.
\*
\* Each conjunct is weak fairness, WF_st(A) == []<>~ENABLED <<A>>_st \/
\* []<><<A>>_st, with ENABLED <<A>>_st replaced by the condition the spec
\* uses: M m is in its schedule loop (InLoop(m)), Retake(p)'s condition
\* holds (RetakeEnabled(p)). The two differ only where every step of the M
\* (or the Retake) needs an M beyond the NM bound and is not taken (Succ):
\* there WF would let the M sit forever, an artifact of the bound (the
\* runtime starts a new M), while this fairness does not. On the cfgs in
\* this directory such states are counted by the test (docs/tla.md).
InLoop(m) == st.M[m].pc \in {"sched", "recheck"}
FairM(m) == []<>(~InLoop(m)) \/ []<><<SchedStep(m)>>_st
FairRetake(p) == []<>(~RetakeEnabled(p)) \/ []<><<Retake(p)>>_st
Fairness ==
    /\ \A m \in Ms : FairM(m)
    /\ \A p \in Ps : FairRetake(p)

Spec == Init /\ [][Next]_st
FairSpec == Spec /\ Fairness

-----------------------------------------------------------------------------
(* Invariants: spec/check.go's seven, numbered as in docs/spec.md.         *)

TypeOK ==
    /\ \A g \in Gs : st.G[g] \in GStatuses
    /\ \A p \in Ps : /\ st.P[p].status \in {"idle", "running"}
                     /\ st.P[p].tick \in 0..SchedTick-1
                     /\ st.P[p].runnext \in 0..NG
                     /\ \A i \in 1..Len(st.P[p].ring) : st.P[p].ring[i] \in Gs
    /\ \A m \in Ms : /\ st.M[m].pc \in MPCs
                     /\ st.M[m].p \in Ps \cup {NoP}
                     /\ st.M[m].curg \in 0..NG
                     /\ st.M[m].spinning \in BOOLEAN
    /\ \A i \in 1..Len(st.Runq) : st.Runq[i] \in Gs
    /\ st.NPIdle \in 0..NP /\ st.NMSpinning \in 0..NM /\ st.SpawnLeft \in 0..Spawn

Occurrences(g, s) == Cardinality({i \in 1..Len(s) : s[i] = g})
RingSlots(g) == UNION {{<<p, i>> : i \in {j \in 1..Len(st.P[p].ring) : st.P[p].ring[j] = g}} : p \in Ps}
QueuedCount(g) ==
    Occurrences(g, st.Runq)
    + Cardinality({p \in Ps : st.P[p].runnext = g})
    + Cardinality(RingSlots(g))
CurgOf(g) == {m \in Ms : st.M[m].curg = g}

\* 1. Each G is in exactly one place consistent with its status.
InvGPlace ==
    \A g \in Gs :
        CASE st.G[g] = "runnable" -> QueuedCount(g) = 1 /\ CurgOf(g) = {}
          [] st.G[g] = "running"  -> QueuedCount(g) = 0 /\ Cardinality(CurgOf(g)) = 1
                                     /\ \A m \in CurgOf(g) : st.M[m].p # NoP /\ st.M[m].pc = "run"
          [] st.G[g] = "syscall"  -> QueuedCount(g) = 0 /\ Cardinality(CurgOf(g)) = 1
                                     /\ \A m \in CurgOf(g) : st.M[m].pc = "run"
          [] OTHER                -> QueuedCount(g) = 0 /\ CurgOf(g) = {}

\* 2. Every ring holds at most Cap Gs.
InvQueueCap == \A p \in Ps : Len(st.P[p].ring) <= Cap

\* 3. A spinning M holds a P, and that P's local queue is empty.
InvSpinning == \A m \in Ms : st.M[m].spinning => st.M[m].p # NoP /\ LocalEmpty(st, st.M[m].p)

\* 4. An idle P has an empty local queue and no holder; a running P has
\*    exactly one holder.
InvPIdle ==
    \A p \in Ps :
        IF st.P[p].status = "idle"
          THEN LocalEmpty(st, p) /\ ~HasHolder(st, p)
          ELSE Cardinality({m \in Ms : st.M[m].p = p}) = 1

\* 5. NPIdle and NMSpinning equal their recounts.
InvCounts ==
    /\ st.NPIdle = Cardinality(IdlePs(st))
    /\ st.NMSpinning = Cardinality({m \in Ms : st.M[m].spinning})

\* 6. No G is both free (idle/dead) and live (queued or a curg).
InvFreeLive ==
    \A g \in Gs : st.G[g] \in {"idle", "dead"} => QueuedCount(g) = 0 /\ CurgOf(g) = {}

\* 7. M shape.
InvMShape ==
    \A m \in Ms :
        CASE st.M[m].pc = "idle"    -> st.M[m].p = NoP /\ st.M[m].curg = NoG /\ ~st.M[m].spinning
          [] st.M[m].pc = "sched"   -> st.M[m].p # NoP /\ st.M[m].curg = NoG
          [] st.M[m].pc = "recheck" -> st.M[m].p = NoP /\ st.M[m].curg = NoG /\ ~st.M[m].spinning
          [] OTHER                  -> st.M[m].curg # NoG

-----------------------------------------------------------------------------
(* Liveness, as temporal properties of FairSpec: checked by TLC, or without *)
(* TLC by the Go explorer on the same graph (docs/tla.md says why           *)
(* tla-checker 0.9.0's own verdict on them is not used).                    *)

\* Some G is runnable, a P is idle, and no M is looking for work.
LostWakeup ==
    /\ \E g \in Gs : st.G[g] = "runnable"
    /\ st.NPIdle > 0
    /\ \A m \in Ms : ~st.M[m].spinning /\ st.M[m].pc # "recheck"

\* (a) Work conservation / no lost wakeup: no fair behaviour stays in
\* LostWakeup forever.
WorkConservation == []<>(~LostWakeup)

\* The stuttering half of (a) as a state invariant, which every checker can
\* check: LostWakeup in a state where no fair action is enabled (no M is in
\* its schedule loop and no Retake is possible) is a fair behaviour that
\* stays there forever by stuttering.
FairEnabled ==
    \/ \E m \in Ms : InLoop(m)
    \/ \E p \in Ps : RetakeEnabled(p)
NoStuckLostWakeup == ~(LostWakeup /\ ~FairEnabled)

\* A step of P p that starts a fresh time slice (execute with inheritTime
\* false), or preempts it: sysmon's time slice (forcePreemptNS).
FreshSlice(p) ==
    \E m \in Ms :
        \/ MyP(m) = p /\ (Global61(m) \/ GlobRunqGetBatch(m) \/ (\E g \in Gs : Netpoll(m, g))
                          \/ (\E j \in Ps : Steal(m, j))
                          \/ (RunqGet(m) /\ st.P[p].runnext = NoG))
        \/ RecheckGlobal(m) /\ PidleGot(st) = p
TimeSlice == \A p \in Ps : []<>(st.P[p].status = "idle") \/ []<><<FreshSlice(p) \/ Preempt(p)>>_st

\* (b) No starvation of the global queue, given the time slice.
NoGlobalStarvation ==
    TimeSlice => \A g \in Gs : []<>(Occurrences(g, st.Runq) = 0)

=============================================================================
