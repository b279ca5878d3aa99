package impl

import (
	"strconv"
	"time"
)

// appendSchedtrace appends one schedtrace line in the runtime's
// GODEBUG=schedtrace=X format:
//
//	SCHED 12ms: gomaxprocs=2 idleprocs=0 threads=4 spinningthreads=0 needspinning=0 idlethreads=1 runqueue=3 [ 0 5 ] schedticks=[ 17 9 ]
//
// threads counts the Ms alive (created, less those mexit ended) plus
// sysmon; needspinning is
// sched.needspinning. The
// bracketed list is each P's ring length (runnext excluded, as in the
// runtime).
func (s *Sched) appendSchedtrace(b []byte, now time.Duration) []byte {
	s.glob.Lock()
	defer s.glob.Unlock()
	ps := s.ps()
	threads := len(s.allm) - int(s.nmdead)
	if !s.det && !s.cfg.NoSysmon {
		threads++
	}
	b = append(b, "SCHED "...)
	b = strconv.AppendInt(b, now.Milliseconds(), 10)
	b = append(b, "ms: gomaxprocs="...)
	b = strconv.AppendInt(b, int64(ps.n), 10)
	b = append(b, " idleprocs="...)
	b = strconv.AppendInt(b, int64(s.npidle.Load()), 10)
	b = append(b, " threads="...)
	b = strconv.AppendInt(b, int64(threads), 10)
	b = append(b, " spinningthreads="...)
	b = strconv.AppendInt(b, int64(s.nmspinning.Load()), 10)
	b = append(b, " needspinning="...)
	b = strconv.AppendUint(b, uint64(s.needspinning.Load()), 10)
	b = append(b, " idlethreads="...)
	b = strconv.AppendInt(b, int64(s.nmidle), 10)
	b = append(b, " runqueue="...)
	b = strconv.AppendInt(b, int64(s.glob.runq.Len()), 10)
	for i, pp := range ps.allp {
		b = append(b, ' ')
		if i == 0 {
			b = append(b, "[ "...)
		}
		b = strconv.AppendInt(b, int64(ringLen(pp.runq)), 10)
		if i == len(ps.allp)-1 {
			b = append(b, " ]"...)
		}
	}
	b = append(b, " schedticks=[ "...)
	for _, pp := range ps.allp {
		b = strconv.AppendUint(b, uint64(pp.schedtick.Load()), 10)
		b = append(b, ' ')
	}
	return append(b, "]\n"...)
}

// SchedTrace returns the current schedtrace line.
func (s *Sched) SchedTrace() string {
	return string(s.appendSchedtrace(nil, time.Since(s.start)))
}

// ringLen is t-h of a ring, read without synchronising (a snapshot).
func ringLen(q *Runq) int {
	n := int(int32(q.tail.Load() - q.head.Load()))
	if n < 0 || n > q.Cap() {
		return 0
	}
	return n
}
