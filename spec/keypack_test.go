package spec

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// Packing is a bijection on plain keys: every key comes back from its
// packed form, two keys are equal exactly when their packed forms are,
// and packing leaves the bytes before the key alone.
func TestKeyPackRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		key := func(label string) []byte {
			n := rapid.IntRange(0, 200).Draw(t, label+" length")
			k := make([]byte, n)
			for i := range k {
				if rapid.IntRange(0, 2).Draw(t, label+" nonzero") == 0 {
					k[i] = byte(rapid.IntRange(1, 255).Draw(t, label+" byte"))
				}
			}
			return k
		}
		a, b := key("a"), key("b")
		prefix := []byte("prefix")
		pa := packKey(append(append([]byte{}, prefix...), a...), len(prefix))
		pb := packKey(append([]byte{}, b...), 0)
		if !bytes.HasPrefix(pa, prefix) {
			t.Fatalf("the prefix became %q", pa[:len(prefix)])
		}
		pa = pa[len(prefix):]
		if got := unpackKey(nil, pa); !bytes.Equal(got, a) {
			t.Fatalf("%x packed as %x unpacks to %x", a, pa, got)
		}
		if bytes.Equal(a, b) != bytes.Equal(pa, pb) {
			t.Fatalf("%x and %x pack to %x and %x", a, b, pa, pb)
		}
	})
}

// On the every-mechanism model at Ps=3 Gs=4, packed keys are shorter than
// half the plain ones plus the header (the point of packing), and each
// decodes to the state it came from.
func TestKeyPackEveryMechanism(t *testing.T) {
	b := Bounds{Ps: 3, Ms: 3, Gs: 4, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true,
		InjectList: true, SyscallBlock: true, LockOSThread: true, Goyield: true, STW: true, ProcResize: true,
		PollBlock: true, Timers: 1}
	md, err := NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	r := newReach(md, 20000, nil)
	g := &graph{md: md, proto: md.Init()}
	plain, packed := 0, 0
	for i := 0; ; i++ {
		s, ok := r.state(i)
		if !ok {
			break
		}
		k := g.repKey(nil, &s)
		plain += len(s.AppendKey(nil))
		packed += len(k)
		if d := g.decode(k); d != s {
			t.Fatalf("state %d: %v decodes as %v", i, s, d)
		}
	}
	if plain == 0 || 10*packed > 7*plain {
		t.Fatalf("packed keys take %d bytes against %d plain", packed, plain)
	}
	t.Logf("packed keys take %d bytes against %d plain (%.0f%%)", packed, plain, 100*float64(packed)/float64(plain))
}
