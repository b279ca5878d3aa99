package spec

import (
	"bytes"
	"hash/maphash"
	"math"
)

// visited is the explorer's set of canonical state keys, numbered in
// insertion (BFS) order. It is built for tens of millions of small keys:
// the keys live back to back in one arena (no allocation per state, nothing
// for the GC to scan), and the index is an open-addressing table of uint64
// slots, each holding a key's hash (high 32 bits) and its number plus one
// (low 32 bits), so most probes never touch the arena. About 60 bytes per
// state, against about 120 for a map[string]uint32.
type visited struct {
	arena []byte
	off   []uint32 // key i is arena[off[i]:off[i+1]]
	table []uint64
	mask  uint64
	seed  maphash.Seed
}

func newVisited() *visited {
	v := &visited{off: []uint32{0}, seed: maphash.MakeSeed()}
	v.table = make([]uint64, 1<<16)
	v.mask = uint64(len(v.table) - 1)
	return v
}

func (v *visited) len() int { return len(v.off) - 1 }

func (v *visited) key(i uint32) []byte { return v.arena[v.off[i]:v.off[i+1]] }

// full reports whether another key of length n would overflow the 32-bit
// offsets or ids.
func (v *visited) full(n int) bool {
	return uint64(len(v.arena))+uint64(n) > math.MaxUint32 || v.len() >= math.MaxUint32-1
}

// lookupOrInsert returns k's number, inserting it (copied) if it is new.
func (v *visited) lookupOrInsert(k []byte) (id uint32, inserted bool) {
	h := maphash.Bytes(v.seed, k)
	tag := h >> 32
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		slot := v.table[i]
		if slot == 0 {
			id = uint32(v.len())
			v.arena = append(v.arena, k...)
			v.off = append(v.off, uint32(len(v.arena)))
			v.table[i] = tag<<32 | uint64(id+1)
			if uint64(v.len())*2 > uint64(len(v.table)) {
				v.grow()
			}
			return id, true
		}
		if slot>>32 == tag {
			if cand := uint32(slot) - 1; bytes.Equal(v.key(cand), k) {
				return cand, false
			}
		}
	}
}

// lookup returns k's number if it is in the set.
func (v *visited) lookup(k []byte) (uint32, bool) {
	h := maphash.Bytes(v.seed, k)
	tag := h >> 32
	for i := h & v.mask; ; i = (i + 1) & v.mask {
		slot := v.table[i]
		if slot == 0 {
			return 0, false
		}
		if slot>>32 == tag {
			if cand := uint32(slot) - 1; bytes.Equal(v.key(cand), k) {
				return cand, true
			}
		}
	}
}

// grow doubles the table; slots keep their hash tags, but the low bits that
// pick the bucket are gone, so each key is rehashed.
func (v *visited) grow() {
	old := v.table
	v.table = make([]uint64, 2*len(old))
	v.mask = uint64(len(v.table) - 1)
	for _, slot := range old {
		if slot == 0 {
			continue
		}
		h := maphash.Bytes(v.seed, v.key(uint32(slot)-1))
		for i := h & v.mask; ; i = (i + 1) & v.mask {
			if v.table[i] == 0 {
				v.table[i] = slot
				break
			}
		}
	}
}
