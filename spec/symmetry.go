package spec

// Symmetry over M identities (docs/spec.md, "Symmetry"). A state refers to
// an M only by its slot in State.M: no other variable holds an M number,
// and the model's one choice among Ms, startm's "lowest idle M", picks among
// Ms whose MState values are all equal (MIdle, no P, no G, not spinning, no
// scan: invariant 7). So permuting the M slots maps behaviours to
// behaviours, and the canonical representative of a state's orbit is the
// state with its M slots sorted by their encoding.

// mKeyOffset is where the M slots start in s's key (State.AppendKey).
func mKeyOffset(s *State) int {
	off := int(s.nG)
	for p := 0; p < int(s.nP); p++ {
		off += 3 + int(s.P[p].N)
	}
	return off
}

// canonM sorts the 2-byte M slots of key, s's key, in place. It returns
// nothing: the permutation is recovered by canonPerm when needed.
func canonM(key []byte, s *State) {
	off := mKeyOffset(s)
	n := int(s.nM)
	m := key[off : off+2*n]
	for i := 1; i < n; i++ {
		a0, a1 := m[2*i], m[2*i+1]
		j := i
		for ; j > 0; j-- {
			b0, b1 := m[2*j-2], m[2*j-1]
			if b0 < a0 || b0 == a0 && b1 <= a1 {
				break
			}
			m[2*j], m[2*j+1] = b0, b1
		}
		m[2*j], m[2*j+1] = a0, a1
	}
}

// mPerm is a permutation of M slots: slot i of the representative is slot
// p[i] of the state it represents.
type mPerm [MaxMs]int8

func identityPerm() mPerm {
	var p mPerm
	for i := range p {
		p[i] = int8(i)
	}
	return p
}

// canonPerm returns the canonical representative of s and the permutation
// rho with s.M[rho[i]] == rep.M[i] (rep's slot i is s's slot rho[i]).
func canonPerm(s *State) (State, mPerm) {
	key := s.AppendKey(nil)
	off := mKeyOffset(s)
	n := int(s.nM)
	p := identityPerm()
	enc := func(i int8) uint16 { return uint16(key[off+2*int(i)])<<8 | uint16(key[off+2*int(i)+1]) }
	for i := 1; i < n; i++ {
		x := p[i]
		j := i
		for ; j > 0 && enc(p[j-1]) > enc(x); j-- {
			p[j] = p[j-1]
		}
		p[j] = x
	}
	rep := *s
	for i := 0; i < n; i++ {
		rep.M[i] = s.M[p[i]]
	}
	return rep, p
}

// then is the composition "first q, then p" on M numbers as used for
// frames: (p.then(q))[i] = p[q[i]].
func (p mPerm) then(q mPerm) mPerm {
	var r mPerm
	for i := range r {
		r[i] = p[q[i]]
	}
	return r
}

func (p mPerm) inverse() mPerm {
	var r mPerm
	for i := range p {
		r[p[i]] = int8(i)
	}
	return r
}
