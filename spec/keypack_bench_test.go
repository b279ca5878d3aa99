package spec

import "testing"

// Packing and unpacking the keys of the every-mechanism model at Ps=3
// Gs=4 (the search packs each successor's key and unpacks each state it
// expands).
//
//	go test ./spec -run '^$' -bench KeyPack
func BenchmarkKeyPack(b *testing.B) {
	md, err := NewModel(Bounds{Ps: 3, Ms: 3, Gs: 4, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true,
		InjectList: true, SyscallBlock: true, LockOSThread: true, Goyield: true, STW: true, ProcResize: true,
		PollBlock: true, Timers: 1})
	if err != nil {
		b.Fatal(err)
	}
	r := newReach(md, 4096, nil)
	var plain, packed [][]byte
	for i := 0; ; i++ {
		s, ok := r.state(i)
		if !ok {
			break
		}
		plain = append(plain, s.AppendKey(nil))
		packed = append(packed, packKey(s.AppendKey(nil), 0))
	}
	buf := make([]byte, 0, 2*maxKeyLen)
	b.Run("pack", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			k := plain[i%len(plain)]
			buf = packKey(append(buf[:0], k...), 0)
		}
	})
	b.Run("unpack", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = unpackKey(buf[:0], packed[i%len(packed)])
		}
	})
}
