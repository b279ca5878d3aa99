----------------------------- MODULE RunQueue -----------------------------
(***************************************************************************)
(* The lock-free P-local run queue of the Go 1.26 runtime (runqput,        *)
(* runqputslow, runqget, runqgrab/runqsteal) at the granularity of its     *)
(* atomic steps: one owner P and a set of thieves share runnext and a ring *)
(* of Cap slots indexed by the counters head and tail.                     *)
(*                                                                         *)
(* Every step of every process below is one atomic access to shared        *)
(* memory (a load, a store or a CAS), possibly together with accesses to   *)
(* the process's own locals. Go's atomics are sequentially consistent, so  *)
(* interleaving these steps is exact. Two merges keep the state space      *)
(* small and lose nothing:                                                 *)
(*   - a process reads all the slots it needs in one step. Slots are       *)
(*     written only by the owner, only at index tail, and only while       *)
(*     tail - head < Cap; so a slot a consumer is reading can change       *)
(*     under it only after head has moved past the consumer's h, and then  *)
(*     the consumer's CAS on head fails and its reads are discarded;       *)
(*   - the owner reads its own tail (which nobody else writes) in the same *)
(*     step as its load of head.                                           *)
(*                                                                         *)
(* The refinement to the abstract queue of spec/localqueue.go (runnext +   *)
(* FIFO ring) is a ghost variable aq updated at each linearization point:  *)
(*   put       the store of tail (the runnext CAS for a put with next)     *)
(*   putslow   the CAS of head that removes half of the ring               *)
(*   get       the runnext CAS, or the CAS of head                         *)
(*   grab      the CAS of head, or the runnext CAS; an empty grab          *)
(*             linearizes at the load of tail that saw tail = head         *)
(* Refinement checks that the concrete queue equals aq in every state;     *)
(* ResultsLinearizable checks that every value an operation returned is    *)
(* one the abstract operation allows at that point (LocalQueue.Get, and    *)
(* LocalQueue.StealOK / GrabBounds for a concurrent thief).                *)
(*                                                                         *)
(* Bug selects a seeded bug (the same module is checked with different     *)
(* cfgs); "none" is the runtime's algorithm.                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Cap,      \* ring capacity (a power of two, 2 or 4 here)
    NG,       \* the owner puts Gs 1..NG, in that order; 0 is "no G"
    Thieves,  \* model values: the other Ps, which only steal
    Bug       \* "none" or the name of a seeded bug (see BugNames)

BugNames == {"none",
             "cas_store",      \* thief commits its grab with a plain store of head
             "publish_early",  \* owner stores tail before writing the slot
             "runnext_store",  \* thief clears runnext with a plain store
             "get_store"}      \* owner's runqget advances head with a plain store

ASSUME Cap \in {2, 4, 8} /\ NG \in Nat /\ NG >= 1 /\ Bug \in BugNames

NoG == 0
G == 1..NG
Half == Cap \div 2

VARIABLES
    head, tail,   \* runqhead, runqtail
    slot,         \* slot[i] for i in 0..Cap-1: the ring's memory (stale values stay)
    runnext,      \* runnext
    gq,           \* sched.runq, the global queue (a sequence), under sched.lock
    nextg,        \* the next G the owner will put (NG+1: none left)
    consumed,     \* consumed[g]: how many times g was taken by a consumer
    opc, og, oh, ot, okick, obatch,     \* the owner's pc and locals
    tpc, th, tn, tnext, tbatch,   \* each thief's pc and locals
    aq,           \* ghost: the abstract LocalQueue [runnext, ring]
    linok         \* ghost: every returned value so far was legal

ownerVars == <<opc, og, oh, ot, okick, obatch>>
thiefVars == <<tpc, th, tn, tnext, tbatch>>
queueVars == <<head, tail, slot, runnext, gq, nextg, consumed>>
vars == <<queueVars, ownerVars, thiefVars, aq, linok>>

OwnerPCs == {"idle", "put_ld", "put_write", "put_store", "slow_cas", "slow_glob",
             "next_ld", "next_cas", "get_casnext", "get_ld", "get_cas"}
ThiefPCs == {"idle", "ld_head", "ld_tail", "read", "cas", "ld_next", "cas_next"}

\* The Gs in the ring, head first, as the abstract queue sees them.
Live == [i \in 1..(tail - head) |-> slot[(head + i - 1) % Cap]]

\* The first k elements of s, and s without them. Both are total (a
\* seeded bug can make a consumer take more than the queue holds).
Take(s, k) == IF k >= Len(s) THEN s ELSE SubSeq(s, 1, k)
Drop(s, k) == IF k >= Len(s) THEN <<>> ELSE SubSeq(s, k + 1, Len(s))

\* GrabBounds of spec.LocalQueue: a concurrent grab may take k Gs from a
\* ring of n for any k in 1..n - n\div 2 (0..0 when the ring is empty).
GrabHi(n) == n - n \div 2
StealOK(batch) ==
    /\ Len(batch) >= 1
    /\ Len(batch) <= GrabHi(Len(aq.ring))
    /\ batch = Take(aq.ring, Len(batch))

Init ==
    /\ head = 0 /\ tail = 0
    /\ slot = [i \in 0..Cap-1 |-> NoG]
    /\ runnext = NoG
    /\ gq = <<>>
    /\ nextg = 1
    /\ consumed = [g \in G |-> 0]
    /\ opc = "idle" /\ og = NoG /\ oh = 0 /\ ot = 0 /\ okick = NoG /\ obatch = <<>>
    /\ tpc = [t \in Thieves |-> "idle"]
    /\ th = [t \in Thieves |-> 0]
    /\ tn = [t \in Thieves |-> 0]
    /\ tnext = [t \in Thieves |-> NoG]
    /\ tbatch = [t \in Thieves |-> <<>>]
    /\ aq = [runnext |-> NoG, ring |-> <<>>]
    /\ linok = TRUE

ownerDone == /\ opc' = "idle" /\ og' = NoG /\ oh' = 0 /\ ot' = 0
             /\ okick' = NoG /\ obatch' = <<>>

-----------------------------------------------------------------------------
(* The owner: runqput                                                      *)

\* Load-acquire head (and read our own tail). Room: write the slot next
\* (or, with the publish_early bug, publish tail first). Full: runqputslow.
\* From idle this is runqput(g, next=false) of the next G (taking it is
\* local, so it shares the step); from put_ld it is a retry, or the put of
\* a G that PutNextCas displaced.
PutLoadHead ==
    /\ \/ opc = "idle" /\ nextg <= NG /\ og' = nextg /\ nextg' = nextg + 1
       \/ opc = "put_ld" /\ UNCHANGED <<og, nextg>>
    /\ oh' = head /\ ot' = tail
    /\ opc' = IF tail - head < Cap
                THEN (IF Bug = "publish_early" THEN "put_store" ELSE "put_write")
                ELSE "slow_cas"
    \* runqputslow reads the first half of the ring; see the header for
    \* why the reads can share this step.
    /\ obatch' = IF tail - head < Cap
                   THEN <<>>
                   ELSE [i \in 1..Half |-> slot[(head + i - 1) % Cap]]
    /\ UNCHANGED <<head, tail, slot, runnext, gq, consumed, okick, thiefVars, aq, linok>>

PutWrite ==
    /\ opc = "put_write"
    /\ slot' = [slot EXCEPT ![ot % Cap] = og]
    /\ IF Bug = "publish_early"
         THEN ownerDone
         ELSE /\ opc' = "put_store"
              /\ UNCHANGED <<og, oh, ot, okick, obatch>>
    /\ UNCHANGED <<head, tail, runnext, gq, nextg, consumed, thiefVars, aq, linok>>

\* Store-release tail: the linearization point of the put.
PutStore ==
    /\ opc = "put_store"
    /\ tail' = ot + 1
    /\ aq' = [aq EXCEPT !.ring = Append(@, og)]
    /\ IF Bug = "publish_early"
         THEN /\ opc' = "put_write"
              /\ UNCHANGED <<og, oh, ot, okick, obatch>>
         ELSE ownerDone
    /\ UNCHANGED <<head, slot, runnext, gq, nextg, consumed, thiefVars, linok>>

\* runqputslow's CAS of head: half of the ring leaves with g. On failure
\* a thief took some Gs, so the ring has room now: retry the put.
SlowCas ==
    /\ opc = "slow_cas"
    /\ IF head = oh
         THEN /\ head' = oh + Half
              /\ obatch' = Append(obatch, og)
              /\ aq' = [aq EXCEPT !.ring = Drop(@, Half)]
              /\ linok' = (linok /\ obatch = Take(aq.ring, Half))
              /\ opc' = "slow_glob"
         ELSE /\ opc' = "put_ld" /\ obatch' = <<>>
              /\ UNCHANGED <<head, aq, linok>>
    /\ UNCHANGED <<tail, slot, runnext, gq, nextg, consumed, og, oh, ot, okick, thiefVars>>

\* globrunqputbatch under sched.lock.
SlowGlob ==
    /\ opc = "slow_glob"
    /\ gq' = gq \o obatch
    /\ ownerDone
    /\ UNCHANGED <<head, tail, slot, runnext, nextg, consumed, thiefVars, aq, linok>>

\* runqput(g, next=true) of the next G: load runnext, then CAS it to g.
PutNextLoad ==
    /\ \/ opc = "idle" /\ nextg <= NG /\ og' = nextg /\ nextg' = nextg + 1
       \/ opc = "next_ld" /\ UNCHANGED <<og, nextg>>
    /\ okick' = runnext /\ opc' = "next_cas"
    /\ UNCHANGED <<head, tail, slot, runnext, gq, consumed, oh, ot, obatch, thiefVars, aq, linok>>

\* The CAS that installs g. A displaced G is then put on the ring as by a
\* plain runqput; abstractly, Put(g, true) = runnext := g then Put(old).
PutNextCas ==
    /\ opc = "next_cas"
    /\ IF runnext = okick
         THEN /\ runnext' = og
              /\ aq' = [aq EXCEPT !.runnext = og]
              /\ IF okick = NoG
                   THEN ownerDone
                   ELSE /\ opc' = "put_ld" /\ og' = okick /\ okick' = NoG
                        /\ UNCHANGED <<oh, ot, obatch>>
         ELSE /\ opc' = "next_ld"
              /\ UNCHANGED <<runnext, aq, og, oh, ot, okick, obatch>>
    /\ UNCHANGED <<head, tail, slot, gq, nextg, consumed, thiefVars, linok>>

-----------------------------------------------------------------------------
(* The owner: runqget                                                      *)

\* runqget begins with a plain load of runnext.
GetLoadNext ==
    /\ opc = "idle"
    /\ okick' = runnext
    /\ opc' = IF runnext # NoG THEN "get_casnext" ELSE "get_ld"
    /\ UNCHANGED <<queueVars, og, oh, ot, obatch, thiefVars, aq, linok>>

\* Only the owner makes runnext non-empty, so a failed CAS means a thief
\* took it: go to the ring without retrying.
GetCasNext ==
    /\ opc = "get_casnext"
    /\ IF runnext = okick
         THEN /\ runnext' = NoG
              /\ consumed' = [consumed EXCEPT ![okick] = @ + 1]
              /\ aq' = [aq EXCEPT !.runnext = NoG]
              /\ linok' = (linok /\ aq.runnext = okick)
              /\ ownerDone
         ELSE /\ opc' = "get_ld" /\ okick' = NoG
              /\ UNCHANGED <<runnext, consumed, aq, linok, og, oh, ot, obatch>>
    /\ UNCHANGED <<head, tail, slot, gq, nextg, thiefVars>>

\* Load-acquire head (and our tail); read the head slot. An empty ring
\* ends the get with no G: runnext is empty too, since only the owner
\* fills it, so the abstract Get also returns NoG here.
GetLoad ==
    /\ opc = "get_ld"
    /\ IF tail = head
         THEN /\ linok' = (linok /\ aq.runnext = NoG /\ aq.ring = <<>>)
              /\ ownerDone
         ELSE /\ opc' = "get_cas" /\ oh' = head /\ og' = slot[head % Cap]
              /\ UNCHANGED <<linok, ot, okick, obatch>>
    /\ UNCHANGED <<queueVars, thiefVars, aq>>

GetCas ==
    /\ opc = "get_cas"
    /\ IF head = oh \/ Bug = "get_store"
         THEN /\ head' = oh + 1
              /\ consumed' = IF og \in G THEN [consumed EXCEPT ![og] = @ + 1] ELSE consumed
              /\ aq' = [aq EXCEPT !.ring = Drop(@, 1)]
              /\ linok' = (linok /\ aq.runnext = NoG /\ aq.ring # <<>> /\ Head(aq.ring) = og)
              /\ ownerDone
         ELSE /\ opc' = "get_ld"
              /\ UNCHANGED <<head, consumed, aq, linok, og, oh, ot, okick, obatch>>
    /\ UNCHANGED <<tail, slot, runnext, gq, nextg, thiefVars>>

-----------------------------------------------------------------------------
(* The thieves: runqgrab as called from runqsteal                          *)

thiefDone(t) ==
    /\ tpc' = [tpc EXCEPT ![t] = "idle"]
    /\ th' = [th EXCEPT ![t] = 0]
    /\ tn' = [tn EXCEPT ![t] = 0]
    /\ tnext' = [tnext EXCEPT ![t] = NoG]
    /\ tbatch' = [tbatch EXCEPT ![t] = <<>>]

\* Load-acquire head: the first step of a grab, or of a retry.
GrabLoadHead(t) ==
    /\ tpc[t] \in {"idle", "ld_head"}
    /\ th' = [th EXCEPT ![t] = head]
    /\ tpc' = [tpc EXCEPT ![t] = "ld_tail"]
    /\ UNCHANGED <<queueVars, ownerVars, tn, tnext, tbatch, aq, linok>>

\* Load-acquire tail; n := half of t - h, rounded up. With n = 0 the ring
\* was empty at this instant (head <= tail, head only grows, and h was read
\* first), which is where an empty grab linearizes; then a thief with
\* stealRunNextG tries runnext. Whether it has stealRunNextG matters only
\* here, so that choice (srn) is made here rather than when the grab
\* begins. n > Cap/2 means h and t were read inconsistently: start again.
GrabLoadTail(t, srn) ==
    /\ tpc[t] = "ld_tail"
    /\ LET n == (tail - th[t]) - (tail - th[t]) \div 2 IN
       IF n = 0
         THEN /\ linok' = (linok /\ aq.ring = <<>>)
              /\ IF srn
                   THEN /\ tpc' = [tpc EXCEPT ![t] = "ld_next"]
                        /\ UNCHANGED <<th, tn, tnext, tbatch>>
                   ELSE thiefDone(t)
       ELSE /\ srn = FALSE
            /\ IF n > Half
                 THEN /\ tpc' = [tpc EXCEPT ![t] = "ld_head"]
                      /\ UNCHANGED <<th, tn, tnext, tbatch, linok>>
                 ELSE /\ tpc' = [tpc EXCEPT ![t] = "read"]
                      /\ tn' = [tn EXCEPT ![t] = n]
                      /\ UNCHANGED <<th, tnext, tbatch, linok>>
    /\ UNCHANGED <<queueVars, ownerVars, aq>>

\* Read the n slots from h (see the header for why in one step).
GrabRead(t) ==
    /\ tpc[t] = "read"
    /\ tbatch' = [tbatch EXCEPT ![t] = [i \in 1..tn[t] |-> slot[(th[t] + i - 1) % Cap]]]
    /\ tpc' = [tpc EXCEPT ![t] = "cas"]
    /\ UNCHANGED <<queueVars, ownerVars, th, tn, tnext, aq, linok>>

\* CAS-release head from h to h+n commits the grab (the cas_store bug
\* stores instead, without comparing). On failure start again.
GrabCas(t) ==
    /\ tpc[t] = "cas"
    /\ IF head = th[t] \/ Bug = "cas_store"
         THEN /\ head' = th[t] + tn[t]
              /\ consumed' = [g \in G |-> consumed[g] +
                                Cardinality({i \in 1..tn[t] : tbatch[t][i] = g})]
              /\ aq' = [aq EXCEPT !.ring = Drop(@, tn[t])]
              /\ linok' = (linok /\ StealOK(tbatch[t]))
              /\ thiefDone(t)
         ELSE /\ tpc' = [tpc EXCEPT ![t] = "ld_head"]
              /\ th' = [th EXCEPT ![t] = 0]
              /\ tn' = [tn EXCEPT ![t] = 0]
              /\ tbatch' = [tbatch EXCEPT ![t] = <<>>]
              /\ UNCHANGED <<head, consumed, aq, linok, tnext>>
    /\ UNCHANGED <<tail, slot, runnext, gq, nextg, ownerVars>>

\* The ring looked empty: load runnext. (The runtime first sleeps ~3us if
\* the victim is running; time is not modelled, and every interleaving
\* the sleep allows is already here.)
GrabLoadNext(t) ==
    /\ tpc[t] = "ld_next"
    /\ IF runnext = NoG
         THEN thiefDone(t)
         ELSE /\ tnext' = [tnext EXCEPT ![t] = runnext]
              /\ tpc' = [tpc EXCEPT ![t] = "cas_next"]
              /\ UNCHANGED <<th, tn, tbatch>>
    /\ UNCHANGED <<queueVars, ownerVars, aq, linok>>

\* CAS runnext to empty (the runnext_store bug stores instead). On failure
\* the whole grab starts again.
GrabCasNext(t) ==
    /\ tpc[t] = "cas_next"
    /\ IF runnext = tnext[t] \/ Bug = "runnext_store"
         THEN /\ runnext' = NoG
              /\ consumed' = [consumed EXCEPT ![tnext[t]] = @ + 1]
              /\ aq' = [aq EXCEPT !.runnext = NoG]
              /\ linok' = (linok /\ aq.runnext = tnext[t])
              /\ thiefDone(t)
         ELSE /\ tpc' = [tpc EXCEPT ![t] = "ld_head"]
              /\ th' = [th EXCEPT ![t] = 0]
              /\ tnext' = [tnext EXCEPT ![t] = NoG]
              /\ UNCHANGED <<runnext, consumed, aq, linok, tn, tbatch>>
    /\ UNCHANGED <<head, tail, slot, gq, nextg, ownerVars>>

-----------------------------------------------------------------------------

Owner ==
    \/ PutLoadHead \/ PutWrite \/ PutStore \/ SlowCas \/ SlowGlob
    \/ PutNextLoad \/ PutNextCas
    \/ GetLoadNext \/ GetCasNext \/ GetLoad \/ GetCas

Thief(t) ==
    \/ GrabLoadHead(t) \/ (\E srn \in BOOLEAN : GrabLoadTail(t, srn))
    \/ GrabRead(t) \/ GrabCas(t)
    \/ GrabLoadNext(t) \/ GrabCasNext(t)

Next == Owner \/ \E t \in Thieves : Thief(t)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Invariants                                                              *)

TypeOK ==
    /\ head \in Nat /\ tail \in Nat
    /\ slot \in [0..Cap-1 -> 0..NG]
    /\ runnext \in 0..NG
    /\ nextg \in 1..NG+1
    /\ consumed \in [G -> Nat]
    /\ opc \in OwnerPCs
    /\ tpc \in [Thieves -> ThiefPCs]
    /\ linok \in BOOLEAN

\* The ring never holds more than Cap Gs (runqsteal's "runq overflow",
\* runqputslow's "queue is not full").
Bounded == head <= tail /\ tail - head <= Cap

\* Where each G is: put Gs are in exactly one place, unput Gs nowhere.
InFlight(g) ==
    \/ opc \in {"put_ld", "put_write", "put_store", "next_ld", "next_cas"} /\ og = g
    \/ opc = "slow_cas" /\ og = g
    \/ opc = "slow_glob" /\ \E i \in 1..Len(obatch) : obatch[i] = g
Count(g) ==
    Cardinality({i \in 1..Len(Live) : Live[i] = g})
    + (IF runnext = g THEN 1 ELSE 0)
    + (IF InFlight(g) THEN 1 ELSE 0)
    + Cardinality({i \in 1..Len(gq) : gq[i] = g})
    + consumed[g]
NoLossNoDup == \A g \in G : Count(g) = IF g < nextg THEN 1 ELSE 0

\* The concrete queue is the ghost abstract queue in every state.
Refinement == Live = aq.ring /\ runnext = aq.runnext

\* Every result returned so far is one the abstract operation allows at its
\* linearization point (LocalQueue.Get, StealOK, EmptyOK-style emptiness).
ResultsLinearizable == linok

=============================================================================
