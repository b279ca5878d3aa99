package spec

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// The explorer stores keys packed. A state's key (State.AppendKey) is a
// byte per field, and most fields are zero most of the time: an empty
// run queue slot, an M without a G, a counter at rest. On the
// every-mechanism model at Ps=3 Gs=4 keys are 39 to 41 bytes, and 57% of
// their bytes are zero. The packed form is the plain key's length, a
// bitmap of its nonzero bytes, then those bytes in order: 23 bytes for
// such a key. It is a function of the plain key and has an inverse, so two
// plain keys are equal exactly when their packed forms are, and the
// visited set, its hash and every comparison work on packed keys as they
// did on plain ones; only decoding a state, and the symmetry code that
// reorders a plain key's slots, see the plain form.

// maxKeyLen bounds a plain key and a packed one: the packed form stores
// the plain length in a byte, and the search's candidates store the
// packed length in a byte. The largest model the bounds allow has plain
// keys under 200 bytes, packed ones under 230.
const maxKeyLen = 255

// packKey replaces the plain key at dst[n:] by its packed form. The
// packed form is built after the plain key, eight bytes at a time, and
// moved down over it.
func packKey(dst []byte, n int) []byte {
	l := len(dst) - n
	if l > maxKeyLen {
		panic("spec: a state key longer than 255 bytes")
	}
	end := len(dst)
	groups := (l + 7) / 8
	dst = slices.Grow(dst, 1+groups+l)[:end+1+groups+l] // every byte read is written first
	out := dst[end:]
	out[0] = byte(l)
	v := 1 + groups
	for gi := range groups {
		i := n + 8*gi
		var w uint64
		if i+8 <= end {
			w = binary.LittleEndian.Uint64(dst[i:])
		} else {
			for j := i; j < end; j++ {
				w |= uint64(dst[j]) << (8 * (j - i))
			}
		}
		mb := nonzeroBytes(w)
		out[1+gi] = mb
		for ; mb != 0; mb &= mb - 1 {
			out[v] = byte(w >> (8 * bits.TrailingZeros8(mb)))
			v++
		}
	}
	if v > maxKeyLen {
		panic("spec: a packed state key longer than 255 bytes")
	}
	copy(dst[n:], out[:v])
	return dst[:n+v]
}

// nonzeroBytes has bit j set when byte j of w (little-endian) is nonzero.
func nonzeroBytes(w uint64) byte {
	const lo7, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	t := ((w & lo7) + lo7 | w) & hi // each byte's top bit: the byte is nonzero
	return byte((t >> 7) * 0x0102040810204080 >> 56)
}

// unpackKey appends the plain key of packed key k to dst, a word of eight
// bytes per bitmap byte.
func unpackKey(dst, k []byte) []byte {
	l := int(k[0])
	groups := (l + 7) / 8
	mask, vals := k[1:1+groups], k[1+groups:]
	base := len(dst)
	dst = slices.Grow(dst, 8*groups)[:base+8*groups] // each word is written
	for gi, mb := range mask {
		var w uint64
		for ; mb != 0; mb &= mb - 1 {
			w |= uint64(vals[0]) << (8 * bits.TrailingZeros8(mb))
			vals = vals[1:]
		}
		binary.LittleEndian.PutUint64(dst[base+8*gi:], w)
	}
	return dst[:base+l]
}
