package spec

import (
	"encoding/binary"
)

// visited is the explorer's set of canonical state keys, numbered in
// insertion (BFS) order. It has two modes.
//
// Exact (the default): every key is kept, back to back in one arena (no
// allocation per state, nothing for the GC to scan); a state is found
// again by its number, which liveness and counterexamples need. The arena
// is a list of blocks (doubling up to 4 MiB), so that growing it never
// copies it (append's growth by 1.25 copied a large arena about five times
// over, all of it in the sequential merge); a key never straddles two
// blocks.
//
// Fingerprint (Options.Fingerprint): only a 64-bit fingerprint of each key
// is kept, in the index itself, as TLC does; two states with one
// fingerprint are taken for one (Result.FPCollision bounds the
// probability). A number is not mapped back to its fingerprint: a path is
// rebuilt from the actions that reached its states (graph.act). The keys
// of the states still to expand are kept in a queue of blocks (qblocks,
// each key's place in qref) and dropped once expanded: a block whose keys
// have all been expanded goes to a short free list for the keys to come.
// The queue was one array that grew by copying and was compacted by
// copying; each growth left the old array, gigabytes on a large model, to
// the collector.
//
// The index is split into nShards open-addressing tables of uint64 slots,
// picked by the hash's top bits, so that the parallel search can insert
// into different shards from different workers without locks. An exact
// slot holds the hash's high 32 bits as a tag and a reference: the state's
// number plus one, or, while the chunk that found it is being merged,
// pendingRef plus the candidate's index (its number is given later, in
// candidate order, which keeps the numbering that of a sequential search).
// A fingerprint slot holds the fingerprint itself.
//
// A key's home slot is taken from the hash bits just below the shard's
// (home), which an exact slot's tag holds as long as a shard has at most
// 2^maxSlotBits slots: doubling a shard then moves every slot by its tag
// alone. Taking the home from the low bits, as before, made each doubling
// read every key back from the arena and hash it again, a cache miss per
// state: a fifth of the search's time on the every-mechanism model.
type visited struct {
	fp     bool
	shards [nShards]shard

	blocks [][]byte         // exact mode's arena, in blocks of blockSize bytes
	off    blockLog[uint64] // key i starts at off[i]: block<<blockBits | position

	qblocks  [][]byte         // blocks of qBlockSize; qblocks[:qdropped] released
	qdropped int              // blocks released
	qfree    [][]byte         // released blocks kept for reuse, at most qFreeMax
	qref     blockLog[uint64] // state i's key: block<<28 | position<<8 | length
	n        int
}

const (
	blockBits  = 22
	blockSize  = 1 << blockBits
	shardBits  = 4
	nShards    = 1 << shardBits
	pendingRef = 1 << 31
	// maxSlotBits bounds a shard to the slots an exact tag can address
	// (the tag's 32 bits less the shard's); past it the shard fills
	// beyond half, which 2^31 states (pendingRef) never force, as they
	// average 2^27 a shard.
	maxSlotBits  = 32 - shardBits
	initSlotBits = 12
	// qBlockSize is a queue block's size: positions take 20 bits of a
	// qref entry.
	qBlockSize = 1 << 20
	qFreeMax   = 16
)

type shard struct {
	slots []uint64
	mask  uint64
	shift uint // 64 - log2(len(slots)): home takes the bits below the shard's
	n     int
	pend  []uint32 // candidate indexes inserted pending in this chunk
}

func newVisited(fp bool) *visited {
	v := &visited{fp: fp}
	for i := range v.shards {
		v.shards[i].setSize(initSlotBits)
	}
	return v
}

func shardOf(h uint64) int { return int(h >> (64 - shardBits)) }

// setSize gives the shard 2^bits empty slots.
func (sh *shard) setSize(bits uint) {
	sh.slots = make([]uint64, 1<<bits)
	sh.mask = 1<<bits - 1
	sh.shift = 64 - bits
}

// home is the slot where the probe for hash h starts: the bits just below
// the shard's, all within an exact slot's tag (h>>32) while the shard has
// at most 2^maxSlotBits slots.
func (sh *shard) home(h uint64) uint64 { return h << shardBits >> sh.shift }

func (v *visited) len() int { return v.n }

// key is state i's key: any state in exact mode, only a queued (not yet
// expanded) one in fingerprint mode.
func (v *visited) key(i uint32) []byte {
	if !v.fp {
		o := *v.off.at(int(i))
		b := v.blocks[o>>blockBits]
		start := o & (blockSize - 1)
		end := uint64(len(b))
		if int(i)+1 < v.off.len() {
			if next := *v.off.at(int(i) + 1); next>>blockBits == o>>blockBits {
				end = next & (blockSize - 1)
			}
		}
		return b[start:end]
	}
	e := *v.qref.at(int(i))
	pos := e >> 8 & (qBlockSize - 1)
	return v.qblocks[e>>28][pos : pos+e&0xff]
}

// full reports whether n more states could overflow the numbers (31
// bits, below pendingRef). The exact arena's offsets and the fingerprint
// queue's are 64-bit: both are bounded by memory alone
// (Options.MaxMemory), not by 4 GiB.
func (v *visited) full(n int) bool {
	return uint64(v.n)+uint64(n) >= pendingRef-1
}

// commit gives the next number to a key that insert found new.
func (v *visited) commit(k []byte) uint32 {
	id := uint32(v.n)
	v.n++
	if v.fp {
		nb := len(v.qblocks)
		if nb == 0 || len(v.qblocks[nb-1])+len(k) > qBlockSize {
			b := make([]byte, 0, qBlockSize)
			if f := len(v.qfree); f > 0 {
				b, v.qfree = v.qfree[f-1][:0], v.qfree[:f-1]
			}
			v.qblocks = append(v.qblocks, b)
			nb++
		}
		b := &v.qblocks[nb-1]
		v.qref.append(uint64(nb-1)<<28 | uint64(len(*b))<<8 | uint64(len(k)))
		*b = append(*b, k...)
		return id
	}
	nb := len(v.blocks)
	if nb == 0 || len(v.blocks[nb-1])+len(k) > cap(v.blocks[nb-1]) {
		size := 1 << 16 // small models stay small; blocks double up to blockSize
		if nb > 0 {
			size = min(2*cap(v.blocks[nb-1]), blockSize)
		}
		v.blocks = append(v.blocks, make([]byte, 0, size))
		nb++
	}
	b := &v.blocks[nb-1]
	v.off.append(uint64(nb-1)<<blockBits | uint64(len(*b)))
	*b = append(*b, k...)
	return id
}

// dropQueue forgets the queued keys of states below id (fingerprint
// mode): the blocks that hold only such keys go to the free list, or to
// the collector once it is full.
func (v *visited) dropQueue(id uint32) {
	if !v.fp {
		return
	}
	keep := len(v.qblocks) - 1 // the block the next keys go to
	if int(id) < v.n {
		keep = int(*v.qref.at(int(id)) >> 28)
	}
	for ; v.qdropped < keep; v.qdropped++ {
		if len(v.qfree) < qFreeMax {
			v.qfree = append(v.qfree, v.qblocks[v.qdropped])
		}
		v.qblocks[v.qdropped] = nil
	}
	v.qref.dropBefore(int(id))
}

// insert looks k (hash h) up in its shard and inserts it if it is absent:
// exact mode as pending candidate ref (keyOf resolves references), the
// fingerprint in fingerprint mode. Only one goroutine may use a shard at a
// time. When k was there already, found is its reference in exact mode
// (its number plus one, or pendingRef plus the candidate's index).
func (v *visited) insert(h uint64, k []byte, ref uint32, keyOf func(uint32) []byte) (isNew bool, found uint32) {
	sh := &v.shards[shardOf(h)]
	if v.fp {
		if h == 0 {
			h = 1
		}
		for i := sh.home(h); ; i = (i + 1) & sh.mask {
			slot := sh.slots[i]
			if slot == 0 {
				sh.slots[i] = h
				sh.n++
				if sh.n*4 > len(sh.slots)*3 {
					v.grow(sh)
				}
				return true, 0
			}
			if slot == h {
				return false, 0
			}
		}
	}
	tag := h >> 32
	for i := sh.home(h); ; i = (i + 1) & sh.mask {
		slot := sh.slots[i]
		if slot == 0 {
			sh.slots[i] = tag<<32 | uint64(pendingRef|ref)
			sh.pend = append(sh.pend, ref)
			sh.n++
			if sh.n*2 > len(sh.slots) && 64-sh.shift < maxSlotBits {
				v.grow(sh)
			}
			return true, 0
		}
		if slot>>32 == tag && bytesEqual(keyOf(uint32(slot)), k) {
			return false, uint32(slot)
		}
	}
}

// resolve replaces shard sh's pending references by the numbers commit
// gave them (id[ref], or -1 for a candidate never committed).
func (v *visited) resolve(sh *shard, h func(ref uint32) uint64, id func(ref uint32) int64) {
	for _, ref := range sh.pend {
		hh := h(ref)
		want := uint64(pendingRef | ref)
		for i := sh.home(hh); ; i = (i + 1) & sh.mask {
			if uint32(sh.slots[i]) == uint32(want) && sh.slots[i]>>32 == hh>>32 {
				if n := id(ref); n >= 0 {
					sh.slots[i] = hh>>32<<32 | uint64(n+1)
				}
				break
			}
		}
	}
	sh.pend = sh.pend[:0]
}

// lookup returns k's number if it is in the set (exact mode).
func (v *visited) lookup(k []byte) (uint32, bool) {
	h := hash64(k)
	sh := &v.shards[shardOf(h)]
	tag := h >> 32
	for i := sh.home(h); ; i = (i + 1) & sh.mask {
		slot := sh.slots[i]
		if slot == 0 {
			return 0, false
		}
		if slot>>32 == tag && uint32(slot)&pendingRef == 0 {
			if cand := uint32(slot) - 1; bytesEqual(v.key(cand), k) {
				return cand, true
			}
		}
	}
}

// grow doubles a shard. A slot's new home comes from the slot itself: the
// fingerprint, or an exact slot's tag (the hash's high half, which holds
// every home bit up to maxSlotBits), so no key is read back or rehashed.
func (v *visited) grow(sh *shard) {
	old := sh.slots
	sh.setSize(65 - sh.shift)
	for _, slot := range old {
		if slot == 0 {
			continue
		}
		h := slot
		if !v.fp {
			h = slot >> 32 << 32
		}
		for i := sh.home(h); ; i = (i + 1) & sh.mask {
			if sh.slots[i] == 0 {
				sh.slots[i] = slot
				break
			}
		}
	}
}

// bytes is the memory the set holds (capacities, not lengths).
func (v *visited) bytes() uint64 {
	n := v.off.bytes() + uint64(len(v.qblocks)-v.qdropped+len(v.qfree))*qBlockSize + v.qref.bytes()
	for _, b := range v.blocks {
		n += uint64(cap(b))
	}
	for i := range v.shards {
		n += 8*uint64(len(v.shards[i].slots)) + 4*uint64(cap(v.shards[i].pend))
	}
	return n
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// hash64 is the key's 64-bit fingerprint: a fixed function (the same on
// every run, so results and shard loads are reproducible), mixing 8 bytes
// at a time through splitmix64's finalizer, which is a bijection.
func hash64(b []byte) uint64 {
	h := uint64(len(b))*0x9e3779b97f4a7c15 ^ 0x243f6a8885a308d3
	for len(b) >= 8 {
		h = mix64(h ^ binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	return mix64(h ^ w ^ uint64(len(b))<<56)
}

func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
