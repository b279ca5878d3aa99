---- MODULE GMPApart ----
(***************************************************************************)
(* GMP.tla with one interleaving its one-step handoffp leaves out, for     *)
(* TLC to check what the spec's test knob staleHandoffRead found           *)
(* (spec/apart.go; docs/spec.md, "handoffp's read of nmspinning apart from *)
(* its lock section"). Not part of the model: the model takes handoffp as  *)
(* one step.                                                               *)
(*                                                                         *)
(* sysmon's handoffp of P p (RetakeHandoff) reads no work on p or in       *)
(* sched.runq, and loads nmspinning while M w's wakep holds its won CAS;   *)
(* w's sched.lock section finds no idle P (WakepNoP: needspinning set,     *)
(* the CAS given back); then handoffp's own lock section, which looks at   *)
(* gcwaiting, sched.runq and the last poller but not at needspinning,      *)
(* idles p. One step here, as in the spec's knob.                          *)
(***************************************************************************)
EXTENDS GMP

HandoffLockIdle(s, p) ==
    IF s.GCWaiting THEN GCStopP(s, p)
    ELSE IF s.Runq # <<>> \/ LastPollerClause(s) THEN StartMX(s, p, FALSE, NoM)
    ELSE IdledWithTimers(Pidleput(s, p), p, NoM)

RetakeHandoffStale(p, w) ==
    /\ st.RetakeP = p /\ st.NPIdle = 0
    /\ LocalEmpty(st, p) /\ st.Runq = <<>>
    /\ InWakep(w, "cas")
    /\ Succ(HandoffLockIdle([NoIdleP(st) EXCEPT !.NMSpinning = @ - 1, !.M[w].wake = "none", !.RetakeP = NoP], p))

NextApart == Next \/ \E p \in Ps, w \in Ms : RetakeHandoffStale(p, w)

\* The stale step is sysmon's handoffp of p: in p's retake family, as the
\* spec's RetakeHandoff-kind step is.
FairRetakeApart(p) ==
    []<>(~RetakeEnabled(p)) \/ []<><<Retake(p) \/ RetakeHandoff(p) \/ \E w \in Ms : RetakeHandoffStale(p, w)>>_st
FairnessApart ==
    /\ \A m \in Ms : FairM(m)
    /\ \A p \in Ps : FairRetakeApart(p)
    /\ \A p \in Ps : FairSTWPreempt(p)
    /\ FairStopper
    /\ FairTick
FairSpecApart == Init /\ [][NextApart]_st /\ FairnessApart
====
