package linearize

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/gmpcheck/gmpcheck/spec"
)

// fuzzCaps are the ring capacities the first byte of a fuzz input selects.
var fuzzCaps = [...]int{2, 4, 8, 256}

const fuzzRecord = 8 // bytes per operation

// decodeHistory turns arbitrary bytes into a history of any shape the types
// allow: unknown kinds, NoG and negative G ids, outputs of the wrong type or
// nil, batches with duplicates or in reverse, overlapping intervals. Byte 0
// picks the capacity; then each 8-byte record is one operation:
//
//	0 kind (mod 9: 0 and 8 are not kinds)   4 batch length (mod 6)
//	1 client (mod 4)                        5 first G of the batch (int8)
//	2 G put or returned (int8)              6 stride of the batch (int8)
//	3 flags: 1 stealRunNext, 2 inherit,     7 low nibble: gap since the
//	  4 empty, 8|16 output shape              previous call; high: duration
func decodeHistory(data []byte) (capacity int, h []porcupine.Operation) {
	if len(data) == 0 {
		return 4, nil
	}
	capacity = fuzzCaps[int(data[0])%len(fuzzCaps)]
	data = data[1:]
	var now int64
	for len(data) >= fuzzRecord && len(h) < 16 {
		r := data[:fuzzRecord]
		data = data[fuzzRecord:]
		in := Input{Kind: Kind(r[0] % 9), G: spec.GID(int8(r[2])), StealRunNext: r[3]&1 != 0}
		batch := make([]spec.GID, int(r[4])%6)
		for i := range batch {
			batch[i] = spec.GID(int8(r[5]) + int8(i)*int8(r[6]))
		}
		var out any
		switch (r[3] >> 3) & 3 {
		case 0:
			out = Output{G: spec.GID(int8(r[2])), InheritTime: r[3]&2 != 0, Empty: r[3]&4 != 0}
		case 1:
			out = nil
		case 2:
			out = int(r[2])
		case 3:
			out = Output{G: spec.GID(int8(r[5])), Gs: batch, InheritTime: r[3]&2 != 0, Empty: r[3]&4 != 0}
		}
		now += int64(r[7] & 15)
		call, ret := now, now+int64(r[7]>>4)
		in.Call, in.Return = call, ret
		h = append(h, porcupine.Operation{ClientId: int(r[1] % 4), Input: in, Call: call, Output: out, Return: ret})
	}
	return capacity, h
}

// FuzzModel: the model never panics, whatever the history, and its Equal
// and Hash agree: stepping the model by hand through every operation (legal
// or not), describing each state and operation, and checking the whole
// history with porcupine.
func FuzzModel(f *testing.F) {
	f.Add([]byte{1,
		1, 0, 1, 0, 0, 0, 0, 0x11, // Put(g1)
		1, 0, 2, 0, 0, 0, 0, 0x11, // Put(g2)
		3, 0, 1, 0, 0, 0, 0, 0x11, // Get() → g1
		4, 1, 0, 24, 1, 1, 0, 0x11, // Steal() → [g1]
	})
	f.Add([]byte{0, 2, 0, 0, 8, 0, 0, 0, 0x52, 7, 1, 0, 16, 0, 0, 0, 0x31})
	f.Fuzz(func(t *testing.T, data []byte) {
		capacity, h := decodeHistory(data)
		m, err := NewModel(capacity)
		if err != nil {
			t.Fatal(err)
		}
		s := m.Init()
		for _, op := range h {
			_ = m.DescribeOperation(op.Input, op.Output)
			ok, next := m.Step(s, op.Input, op.Output)
			if !m.Equal(next, next) {
				t.Fatalf("a state is not equal to itself: %s", m.DescribeState(next))
			}
			if !ok {
				if !m.Equal(next, s) {
					t.Fatal("an illegal step changed the state")
				}
				continue
			}
			// Stepping the same input again from the same state is
			// deterministic: equal results, equal hashes.
			ok2, again := m.Step(s, op.Input, op.Output)
			if !ok2 || !m.Equal(next, again) || m.Hash(next) != m.Hash(again) {
				t.Fatalf("Step is not deterministic: %s vs %s", m.DescribeState(next), m.DescribeState(again))
			}
			s = next
			_ = m.DescribeState(s)
		}
		chk, err := NewChecker(capacity)
		if err != nil {
			t.Fatal(err)
		}
		res, err := chk.Check(h, 2*time.Second)
		if err == nil && res != porcupine.Ok && res != porcupine.Illegal && res != porcupine.Unknown {
			t.Fatalf("verdict %v", res)
		}
	})
}
