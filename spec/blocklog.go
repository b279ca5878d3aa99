package spec

import "unsafe"

// blockLog is an append-only array kept in fixed blocks of about
// blockLogBytes: appending never copies what is stored, and at most one
// block is unused. A slice grown by doubling holds up to twice its length
// and, while it doubles, the old and the new array both: 12 GB for the
// parents of a billion states where 4 GB are in use.
type blockLog[T any] struct {
	blocks  [][]T
	n       int
	dropped int // blocks[:dropped] are released (dropBefore)
}

const blockLogBytes = 1 << 18

// per is the number of elements in a block.
func (l *blockLog[T]) per() int {
	var z T
	return max(1, blockLogBytes/int(unsafe.Sizeof(z)))
}

func (l *blockLog[T]) append(x T) {
	per := l.per()
	if l.n%per == 0 {
		l.blocks = append(l.blocks, make([]T, 0, per))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, x)
	l.n++
}

// at is the i-th element appended; it stays where it is.
func (l *blockLog[T]) at(i int) *T {
	per := l.per()
	return &l.blocks[i/per][i%per]
}

func (l *blockLog[T]) len() int { return l.n }

// dropBefore releases the blocks that hold only elements below i, which
// must not be read again; the others keep their numbers.
func (l *blockLog[T]) dropBefore(i int) {
	for ; l.dropped < i/l.per(); l.dropped++ {
		l.blocks[l.dropped] = nil
	}
}

// bytes is the memory the blocks hold.
func (l *blockLog[T]) bytes() uint64 {
	var z T
	return uint64(len(l.blocks)-l.dropped) * uint64(l.per()) * uint64(unsafe.Sizeof(z))
}
