package interleave

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// memoryReader is a Backend whose whole shared memory can be read between
// steps: every word the queue code can read, including the counters' raw
// values and the ring slots outside the queue's content (a stale slot is
// what a thief with an inconsistent read of head and tail copies). The
// StateCache reduction needs it: two states with equal memory and equal
// actors have equal futures only if "memory" is all of it.
type memoryReader interface {
	// appendMemory appends the memory of local queue q (or of the global
	// queue, for GlobalObj) to b. It is called only while every actor is
	// parked at a yield point.
	appendMemory(b []byte, q int) []byte
	// appendRead appends what access op of queue q (GlobalObj: the global
	// queue) can read -- the word it loads or compares -- or, for an
	// access that reads nothing back (a store, taking the global lock,
	// after which the critical section only appends), nothing. For an op
	// it does not know it appends the whole queue, like appendMemory.
	appendRead(b []byte, q int, op impl.Op) []byte
	// appendOwn appends the words of local queue q that only q's owner
	// writes: tail and the slots.
	appendOwn(b []byte, q int) []byte
}

// runqLayout is where impl.Runq keeps its words. impl exports no raw view
// of a ring (Contents is the logical one: runnext and the Gs between head
// and tail), so the words are found by reflection once, their types
// checked, and read with the same atomic loads impl uses. A change of
// impl.Runq's fields makes the StateCache reduction fail with an error,
// never read the wrong words.
var runqLayout struct {
	once                           sync.Once
	head, tail, runnext, ring, msk uintptr
	err                            error
}

func loadRunqLayout() error {
	runqLayout.once.Do(func() {
		t := reflect.TypeFor[impl.Runq]()
		field := func(name string, want reflect.Type) uintptr {
			f, ok := t.FieldByName(name)
			if !ok || f.Type != want {
				if runqLayout.err == nil {
					runqLayout.err = fmt.Errorf("interleave: impl.Runq has no field %s of type %v, which the state-caching reduction reads (use the dpor reduction)", name, want)
				}
				return 0
			}
			return f.Offset
		}
		runqLayout.head = field("head", reflect.TypeFor[atomic.Uint32]())
		runqLayout.tail = field("tail", reflect.TypeFor[atomic.Uint32]())
		runqLayout.runnext = field("runnext", reflect.TypeFor[atomic.Pointer[impl.G]]())
		runqLayout.ring = field("ring", reflect.TypeFor[*[spec.MaxQueueCap]atomic.Pointer[impl.G]]())
		runqLayout.msk = field("mask", reflect.TypeFor[uint32]())
	})
	return runqLayout.err
}

// raw is local queue q's words.
func (b *implBackend) raw(q int) (head, tail *atomic.Uint32, next *atomic.Pointer[impl.G], ring *[spec.MaxQueueCap]atomic.Pointer[impl.G], size uint32) {
	p := unsafe.Pointer(b.queues[q])
	head = (*atomic.Uint32)(unsafe.Add(p, runqLayout.head))
	tail = (*atomic.Uint32)(unsafe.Add(p, runqLayout.tail))
	next = (*atomic.Pointer[impl.G])(unsafe.Add(p, runqLayout.runnext))
	ring = *(**[spec.MaxQueueCap]atomic.Pointer[impl.G])(unsafe.Add(p, runqLayout.ring))
	size = *(*uint32)(unsafe.Add(p, runqLayout.msk)) + 1
	return
}

func appendSlots(buf []byte, ring *[spec.MaxQueueCap]atomic.Pointer[impl.G], size uint32) []byte {
	for i := range size {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(gid(ring[i].Load())))
	}
	return buf
}

func (b *implBackend) appendRead(buf []byte, q int, op impl.Op) []byte {
	if q == GlobalObj {
		if op == impl.OpLockSched {
			return buf
		}
		return b.appendMemory(buf, q)
	}
	head, tail, next, ring, size := b.raw(q)
	switch op {
	case impl.OpLoadHead, impl.OpCasHead:
		return binary.LittleEndian.AppendUint32(buf, head.Load())
	case impl.OpLoadTail:
		return binary.LittleEndian.AppendUint32(buf, tail.Load())
	case impl.OpLoadRunnext, impl.OpCasRunnext:
		return binary.LittleEndian.AppendUint32(buf, uint32(gid(next.Load())))
	case impl.OpLoadSlot:
		return appendSlots(buf, ring, size)
	case impl.OpStoreHead, impl.OpStoreTail, impl.OpStoreSlot:
		return buf
	}
	return b.appendMemory(buf, q)
}

func (b *implBackend) appendOwn(buf []byte, q int) []byte {
	_, tail, _, ring, size := b.raw(q)
	return appendSlots(binary.LittleEndian.AppendUint32(buf, tail.Load()), ring, size)
}

func (b *implBackend) appendMemory(buf []byte, q int) []byte {
	if q == GlobalObj {
		gs := b.glob.Contents()
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(gs)))
		for _, g := range gs {
			buf = binary.LittleEndian.AppendUint64(buf, g.ID())
		}
		return buf
	}
	head, tail, next, ring, size := b.raw(q)
	buf = binary.LittleEndian.AppendUint32(buf, head.Load())
	buf = binary.LittleEndian.AppendUint32(buf, tail.Load())
	buf = binary.LittleEndian.AppendUint32(buf, uint32(gid(next.Load())))
	return appendSlots(buf, ring, size)
}
