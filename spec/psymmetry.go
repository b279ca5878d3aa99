package spec

import "fmt"

// Symmetry over P identities (Options.PSymmetry, docs/spec.md, "Ps"). With
// sched.pidle in the state as the runtime's LIFO list (State.IdlePs), the
// model names a P only where the runtime does by identity: the P slots, the
// Ps an M holds, had, is handed or scans, sysmon's retaken P, the timers'
// Ps and the idle list. Renaming Ps maps behaviours to behaviours, except
// in two places that name Ps by position, and both are the stop-the-world's:
// its restart puts the idle Ps on sched.pidle in allp order, and procresize
// destroys the highest Ps. So the reduction is for models without
// Bounds.STW. The no-P recheck, which the runtime runs in allp order, visits
// the Ps in any order in the model (a superset), so it is symmetric.

// maxPSymPs bounds the Ps a P-symmetric search may have: each state is
// renamed by every permutation of Ps that its P signatures leave open (at
// most Ps!), and 4! = 24 keeps that cheap.
const maxPSymPs = 4

// pPerm is a permutation of P numbers in the frames' convention (as
// mPerm): P i of the representative is P p[i] of the state it stands for.
type pPerm [MaxPs]int8

func identityPPerm() pPerm {
	var p pPerm
	for i := range p {
		p[i] = int8(i)
	}
	return p
}

// then is "first q, then p": (p.then(q))[i] = p[q[i]].
func (p pPerm) then(q pPerm) pPerm {
	var r pPerm
	compose(r[:], p[:], q[:])
	return r
}

func (p pPerm) inverse() pPerm {
	var r pPerm
	invert(r[:], p[:])
	return r
}

// symPerm is a frame under M and P symmetry: an M permutation and a P
// permutation, each mapping the representative's numbers to the state's.
// (G numbers are carried by the pair graph's labels, not by frames.)
type symPerm struct {
	m mPerm
	p pPerm
}

func identitySymPerm() symPerm { return symPerm{identityPerm(), identityPPerm()} }

func (a symPerm) then(b symPerm) symPerm { return symPerm{a.m.then(b.m), a.p.then(b.p)} }

func (a symPerm) inverse() symPerm { return symPerm{a.m.inverse(), a.p.inverse()} }

// pSymmetryErr says why bounds b do not allow P symmetry, or nil.
func pSymmetryErr(b Bounds) error {
	switch {
	case b.STW:
		return fmt.Errorf("symmetry over Ps needs a model without the stop-the-world: its restart lists the idle Ps in allp order and procresize destroys the highest, which names Ps by position")
	case b.Ps > maxPSymPs:
		return fmt.Errorf("symmetry over Ps renames each state by up to Ps! permutations: at most %d Ps, not %d", maxPSymPs, b.Ps)
	}
	return nil
}

// renameP returns s with P p renamed perm[p] wherever a P is named: the P
// slots, an M's P, old P, next P, steal victim and scan bits, sysmon's
// retaken P, the timers' Ps and the idle list.
func renameP(s *State, perm *[MaxPs]int8) State {
	t := *s
	plus1 := func(x int8) int8 { // a P stored plus one, 0 for none
		if x <= 0 {
			return x
		}
		return perm[x-1] + 1
	}
	for p := 0; p < int(s.nP); p++ {
		t.P[perm[p]] = s.P[p]
	}
	for m := 0; m < int(s.nM); m++ {
		ms := &t.M[m]
		if ms.P != NoP {
			ms.P = perm[ms.P]
		}
		ms.OldP, ms.NextP, ms.Victim = plus1(ms.OldP), plus1(ms.NextP), plus1(ms.Victim)
		ms.Scan = 0
		for p := 0; p < int(s.nP); p++ {
			if s.M[m].Scan&(1<<p) != 0 {
				ms.Scan |= 1 << perm[p]
			}
		}
	}
	t.RetakeP = plus1(t.RetakeP)
	for i := 0; i < int(s.NPIdle); i++ {
		t.IdlePs[i] = perm[s.IdlePs[i]]
	}
	for g := range t.TimerP {
		t.TimerP[g] = uint8(plus1(int8(t.TimerP[g])))
	}
	return t
}

// pPerms lists the permutations of 0..n-1, the identity first.
func pPerms(n int) [][]int8 {
	if n == 0 {
		return [][]int8{{}}
	}
	var out [][]int8
	for _, q := range pPerms(n - 1) {
		for i := len(q); i >= 0; i-- {
			out = append(out, append(append(append([]int8{}, q[:i]...), int8(n-1)), q[i:]...))
		}
	}
	return out
}

// pPermsOf[n] are pPerms(n), computed once.
var pPermsOf = func() (t [maxPSymPs + 1][][]int8) {
	for n := range t {
		t[n] = pPerms(n)
	}
	return t
}()

// pSig is what a P is, told apart without naming a P, an M or a G: its
// status, schedtick, how many Gs its queue holds and whether one is in
// runnext, its place on the idle list, how many timers its heap holds, and
// whether sysmon holds it. Every renaming of Ps, Ms and Gs keeps each P's
// signature, so sorting by it is a first cut of the canonical form that
// does not depend on numbers.
func pSig(s *State, p int) uint64 {
	ps := &s.P[p]
	k := uint64(ps.Status)<<56 | uint64(ps.SchedTick)<<48 | uint64(ps.N)<<40
	if ps.RunNext != NoG {
		k |= 1 << 39
	}
	for i := 0; i < int(s.NPIdle); i++ {
		if int(s.IdlePs[i]) == p {
			k |= uint64(i+1) << 32
		}
	}
	timers := 0
	for g := 1; g <= int(s.nG); g++ {
		if int(s.TimerP[g]) == p+1 {
			timers++
		}
	}
	k |= uint64(timers) << 24
	if int(s.RetakeP) == p+1 {
		k |= 1 << 23
	}
	return k
}

// canon is s's representative under the graph's symmetry, with its frame
// (the M sorting and the P renaming) and its G labels (identities without
// G symmetry).
func (g *graph) canon(s *State) (State, symPerm, [MaxGs + 1]GID) {
	if g.psym {
		rep, rho, label, pr := canonPFull(s, g.gsym)
		return rep, symPerm{rho, pr}, label
	}
	rep, rho, label := canonFull(s, g.gsym)
	return rep, symPerm{rho, identityPPerm()}, label
}

// realG is the G of the concrete state x that is G x of x's representative
// (under G symmetry).
func (g *graph) realG(x *State, r GID) GID {
	_, _, label := g.canon(x)
	for i := 1; i <= int(x.nG); i++ {
		if label[i] == r {
			return GID(i)
		}
	}
	panic("spec: G not found in its representative")
}

// canonPFull is the representative of s under P, M and (gsym) G
// renamings: the least key over the renamings of Ps that sort the Ps by
// pSig, each then canonicalized under M and G (canonFull). It returns the
// representative, its M sorting rho (rep.M[i] is s.M[rho[i]]), its G
// labels (G g of s is G label[g] of rep) and its P renaming (P i of rep is
// P pr[i] of s). The least key over a set that every renaming of s maps
// to itself is the same for the whole orbit (TestPSymmetryCanonical).
func canonPFull(s *State, gsym bool) (State, mPerm, [MaxGs + 1]GID, pPerm) {
	n := int(s.nP)
	var sig [MaxPs]uint64
	for p := 0; p < n; p++ {
		sig[p] = pSig(s, p)
	}
	var (
		best      State
		bestRho   mPerm
		bestLabel [MaxGs + 1]GID
		bestPr    pPerm
		bestKey   []byte
		key       []byte
		perm      [MaxPs]int8
	)
	found := false
	for _, q := range pPermsOf[n] {
		// q lists, for each new number i, the old P: a candidate sorts
		// the signatures.
		ok := true
		for i := 0; i+1 < n && ok; i++ {
			ok = sig[q[i]] <= sig[q[i+1]]
		}
		if !ok {
			continue
		}
		for i := 0; i < n; i++ {
			perm[q[i]] = int8(i)
		}
		t := renameP(s, &perm)
		rep, rho, label := canonFull(&t, gsym)
		key = rep.AppendKey(key[:0])
		if found && string(key) >= string(bestKey) {
			continue
		}
		found = true
		bestKey = append(bestKey[:0], key...)
		best, bestRho, bestLabel = rep, rho, label
		bestPr = identityPPerm()
		copy(bestPr[:n], q)
	}
	return best, bestRho, bestLabel, bestPr
}
