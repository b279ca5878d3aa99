package spec

import "math"

// The search knows the number of every transition's target: its dedupe
// phase found the key in the visited set or put it there. The liveness
// pass needs those edges again among the bad states, and finding them
// again meant stepping each bad state and looking each successor's key
// up in the visited set: half of buildEdges, and buildEdges was a sixth
// of spec/'s tests. succLog keeps the numbers the search found, four
// bytes a transition and one a state, so that buildEdges steps only the
// edges that stay among bad states (for their action's effects and, under
// G symmetry, their labels) and looks nothing up.
//
// The search expands states in their numbers' order and merges them in
// that order, so the states recorded are a prefix of the numbering; the
// recording stops for good at succLogCap transitions, or at a state it
// cannot record (one never expanded, or with more enabled actions than a
// byte counts). The states past the prefix are stepped and looked up as
// before. Only an exact search with liveness records (Options.Liveness):
// nothing else reads the log.

// noSucc is the target of an enabled action whose step reached no state:
// cut by the M bound (ErrNoIdleM) or a step error.
const noSucc = ^uint32(0)

// succLogCap bounds the transitions recorded (1 GiB of numbers), so that
// the largest searches keep their memory for states; MaxMemory counts the
// log as it grows (searcher.memory).
var succLogCap = 1 << 28

// succAtEvery is the spacing of the log's checkpoints (succLog.at).
const succAtEvery = 1024

type succLog struct {
	on  bool             // recording: an exact search with liveness, until it stops
	ids blockLog[uint32] // the recorded states' targets, each state's in enabled-action order
	n   blockLog[uint8]  // each recorded state's number of enabled actions
	at  []uint64         // where in ids state k*succAtEvery's targets start
}

// len is the number of states recorded: states 0 to len-1.
func (l *succLog) len() int { return l.n.len() }

// add records state v's targets, which must be the next state's; anything
// else stops the recording.
func (l *succLog) add(v uint32, ts []uint32) {
	if !l.on {
		return
	}
	if int(v) != l.n.len() || len(ts) > math.MaxUint8 || l.ids.len()+len(ts) > succLogCap {
		l.on = false
		return
	}
	if l.n.len()%succAtEvery == 0 {
		l.at = append(l.at, uint64(l.ids.len()))
	}
	l.n.append(uint8(len(ts)))
	for _, t := range ts {
		l.ids.append(t)
	}
}

// bytes is the memory the log holds.
func (l *succLog) bytes() uint64 { return l.ids.bytes() + l.n.bytes() + 8*uint64(cap(l.at)) }

// succCursor reads the recorded targets of consecutive states.
type succCursor struct {
	l   *succLog
	v   int    // the next state
	pos uint64 // where its targets start in l.ids
}

// from is a cursor at state v.
func (l *succLog) from(v int) succCursor {
	c := succCursor{l: l, v: v}
	if v >= l.len() {
		return c
	}
	k := v / succAtEvery
	c.pos = l.at[k]
	for u := k * succAtEvery; u < v; u++ {
		c.pos += uint64(*l.n.at(u))
	}
	return c
}

// next moves past the cursor's state and reports whether it was
// recorded; with read, its targets are appended to dst.
func (c *succCursor) next(dst []uint32, read bool) ([]uint32, bool) {
	v := c.v
	c.v++
	if v >= c.l.len() {
		return dst, false
	}
	n := uint64(*c.l.n.at(v))
	if read {
		for i := c.pos; i < c.pos+n; i++ {
			dst = append(dst, *c.l.ids.at(int(i)))
		}
	}
	c.pos += n
	return dst, true
}
