package spec

import (
	"bytes"
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
		if got := v.commit(k, hash64(k)); int(got) != i {
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
