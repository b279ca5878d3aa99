package spec

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// The exact arena's offsets are 64-bit: a key in block 1024 or later (past
// 4 GiB of full 4 MiB blocks) is found again as it was stored. The blocks
// before it are tiny stand-ins, so the test needs no 4 GiB of memory.
func TestVisitedPast4GiB(t *testing.T) {
	v := newVisited(false)
	const first = 1<<(32-blockBits) + 5 // a block number that needs 33 offset bits
	for range first {
		v.blocks = append(v.blocks, make([]byte, 0, 1))
	}
	var keys [][]byte
	for i := range 64 {
		k := []byte(fmt.Sprintf("state-%02d-key", i))
		keys = append(keys, k)
		if got := v.commit(k); int(got) != i {
			t.Fatalf("commit %d gave number %d", i, got)
		}
	}
	if len(v.blocks) <= first {
		t.Fatalf("%d blocks: the keys did not go past block %d", len(v.blocks), first)
	}
	for i, k := range keys {
		if got := v.key(uint32(i)); !bytes.Equal(got, k) {
			t.Fatalf("key %d = %q, want %q", i, got, k)
		}
	}
	if v.full(1 << 20) {
		t.Error("the exact set reports itself full past 4 GiB of arena")
	}
}

// visitedChunk inserts keys as the search's dedupe and merge phases do:
// each as a pending candidate, then the new ones committed in order and
// the pending references resolved. It returns which keys were new.
func visitedChunk(v *visited, keys [][]byte) []bool {
	hs := make([]uint64, len(keys))
	isNew := make([]bool, len(keys))
	keyOf := func(ref uint32) []byte {
		if ref&pendingRef != 0 {
			return keys[ref&^pendingRef]
		}
		return v.key(ref - 1)
	}
	for i, k := range keys {
		hs[i] = hash64(k)
		isNew[i], _ = v.insert(hs[i], k, uint32(i), keyOf)
	}
	id := make([]int64, len(keys))
	for i, k := range keys {
		id[i] = -1
		if isNew[i] {
			id[i] = int64(v.commit(k))
		}
	}
	if !v.fp {
		for s := range v.shards {
			v.resolve(&v.shards[s], func(ref uint32) uint64 { return hs[ref] }, func(ref uint32) int64 { return id[ref] })
		}
	}
	return isNew
}

// visitedKey is the i-th test key: 35 bytes, as the every-mechanism
// model's keys are, distinct for distinct i.
func visitedKey(i int) []byte {
	k := make([]byte, 35)
	for j := 0; j < len(k); j += 8 {
		x := mix64(uint64(i)*8 + uint64(j))
		for b := 0; b < 8 && j+b < len(k); b++ {
			k[j+b] = byte(x >> (8 * b))
		}
	}
	return k
}

// Growing a shard moves every slot by what the slot holds (the tag, or
// the fingerprint), without reading its key back: after many doublings
// every key is still found once, with its number, in both modes, and keys
// never inserted are not.
func TestVisitedGrowKeepsEveryKey(t *testing.T) {
	for _, fp := range []bool{false, true} {
		t.Run(fmt.Sprintf("fingerprint=%v", fp), func(t *testing.T) {
			v := newVisited(fp)
			const n, chunk = 300_000, 4096
			for lo := 0; lo < n; lo += chunk {
				var keys [][]byte
				for i := lo; i < min(lo+chunk, n); i++ {
					keys = append(keys, visitedKey(i))
					keys = append(keys, visitedKey(i/2)) // one already in, or just before in this chunk
				}
				isNew := visitedChunk(v, keys)
				for j := range keys {
					if want := j%2 == 0; isNew[j] != want {
						t.Fatalf("key %d of chunk %d: new = %v, want %v", j, lo, isNew[j], want)
					}
				}
			}
			if v.len() != n {
				t.Fatalf("%d keys in the set, want %d", v.len(), n)
			}
			for s := range v.shards {
				if sh := &v.shards[s]; len(sh.slots) <= 1<<initSlotBits {
					t.Fatalf("shard %d never grew (%d slots): the test does not reach grow", s, len(sh.slots))
				}
			}
			if fp {
				return // fingerprint mode keeps no key to look up by
			}
			for i := 0; i < n; i++ {
				if id, ok := v.lookup(visitedKey(i)); !ok || int(id) != i {
					t.Fatalf("key %d: lookup = %d, %v", i, id, ok)
				}
			}
			for i := n; i < n+1000; i++ {
				if id, ok := v.lookup(visitedKey(i)); ok {
					t.Fatalf("key %d was never inserted, yet lookup finds number %d", i, id)
				}
			}
		})
	}
}

// The exact set's dedupe at the every-mechanism model's scale: 2^23 new
// 35-byte keys in chunks of 32768, each followed by a duplicate (two of
// every three of that model's successors are states seen before). The
// set's growth is in it, which rehashed every key from the arena before
// homes came from the tag.
//
//	go test ./spec -run '^$' -bench VisitedInsert -benchtime 1x
func BenchmarkVisitedInsert(b *testing.B) {
	const n, chunk = 1 << 23, 32768
	for range b.N {
		v := newVisited(false)
		keys := make([][]byte, 0, 2*chunk)
		for lo := 0; lo < n; lo += chunk {
			keys = keys[:0]
			for i := lo; i < lo+chunk; i++ {
				keys = append(keys, visitedKey(i), visitedKey(i/2))
			}
			visitedChunk(v, keys)
		}
		if v.len() != n {
			b.Fatalf("%d keys, want %d", v.len(), n)
		}
	}
}

// full counts the numbers left below pendingRef, whatever the mode: the
// fingerprint queue's offsets are 64-bit, like the exact arena's.
func TestVisitedFull(t *testing.T) {
	for _, fp := range []bool{false, true} {
		v := newVisited(fp)
		v.n = pendingRef - 10
		if v.full(8) || !v.full(9) || !v.full(1<<20) {
			t.Errorf("fingerprint=%v, %d numbers used: full(8)=%v full(9)=%v full(2^20)=%v",
				fp, v.n, v.full(8), v.full(9), v.full(1<<20))
		}
	}
}

// A fingerprint search keeps no key of an expanded state: each is rebuilt
// by stepping, from the initial state, the actions that reached the
// states on its path. On every 37th state of a model, under each
// symmetry, the rebuilt key is the one the exact search stored under the
// same number (both searches number states in the sequential order).
func TestFingerprintPathKeys(t *testing.T) {
	sequentialUnderRace(t)
	b := Bounds{Ps: 2, Ms: 2, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true}
	for _, opt := range []Options{{}, {Symmetry: true}, {GSymmetry: true}, {GSymmetry: true, PSymmetry: true}} {
		md, err := NewModel(b)
		if err != nil {
			t.Fatal(err)
		}
		opt.Workers = 2
		exact, re := bfs(context.Background(), md, opt)
		opt.Fingerprint = true
		fp, rf := bfs(context.Background(), md, opt)
		if re.Distinct != rf.Distinct || re.Distinct < 1000 {
			t.Fatalf("%+v: %d states exact, %d with fingerprints", opt, re.Distinct, rf.Distinct)
		}
		nonzero := 0
		for id := uint32(1); int(id) < fp.len(); id += 37 {
			p := fp.path(id)
			keys := fp.pathKeys(p)
			if !bytes.Equal(keys[len(keys)-1], exact.seen.key(id)) {
				t.Fatalf("%+v: state %d rebuilt as %x, stored as %x", opt, id, keys[len(keys)-1], exact.seen.key(id))
			}
			if *fp.act.at(int(id)) != 0 {
				nonzero++
			}
		}
		if nonzero == 0 {
			t.Fatalf("%+v: every state checked was reached by its parent's first action", opt)
		}
	}
}

// The fingerprint queue keeps the keys of states not yet expanded in
// blocks: dropping the expanded ones releases every block that holds only
// theirs (to the free list, which the next keys take from), and the keys
// after them are found again as they were stored.
func TestFingerprintQueueBlocks(t *testing.T) {
	v := newVisited(true)
	key := func(i int) []byte { return []byte(fmt.Sprintf("%039d", i)) }
	const n = 100000 // 3.9 MB of keys: four blocks
	for i := range n {
		if got := v.commit(key(i)); int(got) != i {
			t.Fatalf("commit %d gave number %d", i, got)
		}
	}
	before := v.bytes()
	v.dropQueue(n / 2)
	if v.qdropped != 1 || len(v.qfree) != 1 || v.bytes() >= before {
		t.Fatalf("after dropping half: %d blocks released, %d free, %d bytes (%d before)", v.qdropped, len(v.qfree), v.bytes(), before)
	}
	for i := n / 2; i < n; i++ {
		if got := v.key(uint32(i)); !bytes.Equal(got, key(i)) {
			t.Fatalf("key %d = %q, want %q", i, got, key(i))
		}
	}
	for i := n; i < n+30000; i++ { // past the last block: the free one is taken
		v.commit(key(i))
	}
	if len(v.qfree) != 0 {
		t.Fatalf("%d free blocks after a new block was needed", len(v.qfree))
	}
	for i := n / 2; i < n+30000; i++ {
		if got := v.key(uint32(i)); !bytes.Equal(got, key(i)) {
			t.Fatalf("key %d = %q, want %q", i, got, key(i))
		}
	}
	v.dropQueue(n + 30000) // all expanded: only the block in use stays
	if live := len(v.qblocks) - v.qdropped; live != 1 {
		t.Fatalf("%d blocks live with nothing queued", live)
	}
}
