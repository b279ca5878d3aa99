package impl

import (
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
)

// forcePreemptNS is the time slice a G gets before sysmon asks it to yield.
const forcePreemptNS = 10 * time.Millisecond

// sysmonLongNS is how long sysmon lets a system call run (retake), or a
// ready list wait unpolled (its netpoll), before it acts: the runtime's
// 10 ms in both places.
const sysmonLongNS = 10 * time.Millisecond

// lasted reports whether what began at since has lasted d by now: sysmon's
// one comparison of times, kept apart so that its decisions can be tested
// with times given rather than measured.
func lasted(since, now, d time.Duration) bool { return now-since >= d }

// sysmonDeepSleep bounds sysmon's sleep while every P is idle: the runtime's
// forcegcperiod/2 (there are no timers here to bound it sooner).
const sysmonDeepSleep = 60 * time.Second

// sysmontick is sysmon's memory of one P: the schedtick and syscalltick it
// last saw and when it first saw them.
type sysmontick struct {
	schedtick   uint32
	syscalltick uint32
	schedwhen   time.Duration
	syscallwhen time.Duration
}

// sysmonDelay is sysmon's sleep schedule: 20µs while it keeps finding
// things to do, then, after 50 idle rounds (about 1 ms), doubling up to
// 10 ms. idle counts consecutive rounds in which retake did nothing.
func sysmonDelay(idle int, prev time.Duration) time.Duration {
	d := prev
	switch {
	case idle == 0:
		d = 20 * time.Microsecond
	case idle > 50:
		d *= 2
	}
	return min(d, 10*time.Millisecond)
}

// sysmonIdle is sysmon's count of consecutive idle rounds after a round
// in which retake took took Ps: any taken P restarts it.
func sysmonIdle(idle, took int) int {
	if took != 0 {
		return 0
	}
	return idle + 1
}

// sysmon is the monitor goroutine: it runs without a P, retakes Ps blocked
// in syscalls, asks long-running Gs to yield, and prints schedtrace. When
// every P is idle it sleeps until a P becomes busy.
func (s *Sched) sysmon() {
	defer s.wg.Done()
	var delay time.Duration
	idle := 0
	var lasttrace, pollSince time.Duration
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		delay = sysmonDelay(idle, delay)
		timer.Reset(delay)
		select {
		case <-timer.C:
		case <-s.sysmonStop:
			return
		}
		if s.cfg.SchedTrace <= 0 && s.npidle.Load() == s.ps().n {
			// Deep sleep, with every P idle there is nothing to retake,
			// until a G enters a syscall, leaves one with an idle P, or
			// work comes from outside (injectglist), or for at most
			// sysmonDeepSleep. An M started inside the scheduler does
			// not wake it, as in the runtime.
			s.sysmonOn.Store(true)
			if s.npidle.Load() == s.ps().n {
				timer.Reset(sysmonDeepSleep)
				select {
				case <-s.sysmonWake:
					idle, delay = 0, 0
				case <-timer.C:
				case <-s.sysmonStop:
					return
				}
			}
			s.sysmonOn.Store(false)
		}
		now := time.Since(s.start)
		idle = sysmonIdle(idle, s.retake(now))
		pollSince = s.sysmonNetpoll(now, pollSince)
		if s.cfg.SchedTrace > 0 && now-lasttrace >= s.cfg.SchedTrace {
			lasttrace = now
			s.cfg.SchedTraceOut.Write(s.appendSchedtrace(nil, now))
		}
	}
}

// wakeSysmon ends sysmon's deep sleep.
func (s *Sched) wakeSysmon() {
	select {
	case s.sysmonWake <- struct{}{}:
	default:
	}
}

// retake is one sysmon pass over the Ps: a P that has run the same time
// slice (schedtick) for ForcePreempt gets its G asked to yield; a P whose
// G is in a syscall is taken and handed off when the syscall has lasted a
// sysmon tick and retakeSyscallOK agrees. It returns how many Ps it took.
func (s *Sched) retake(now time.Duration) int {
	n := 0
	for _, pp := range s.ps().allp {
		if pp.status.Load() != uint32(spec.PRunning) {
			continue
		}
		pd := &pp.sysmontick
		sysretake := false
		if t := pp.schedtick.Load(); pd.schedtick != t {
			pd.schedtick = t
			pd.schedwhen = now
		} else if lasted(pd.schedwhen, now, s.cfg.ForcePreempt) {
			s.preemptone(pp)
			// A G in a syscall cannot see the request: take its P.
			sysretake = true
		}
		took := s.retakeSyscall(pp, func(runqEmpty bool) bool {
			if t := pp.syscalltick.Load(); !sysretake && pd.syscalltick != t {
				// First sight of this syscall: give it one tick.
				pd.syscalltick = t
				pd.syscallwhen = now
				return false
			}
			long := lasted(pd.syscallwhen, now, sysmonLongNS)
			return retakeSyscallOK(runqEmpty, s.nmspinning.Load(), s.npidle.Load(), long)
		})
		if took {
			n++
		}
	}
	return n
}

// preemptone asks the G running on pp to yield at its next Checkpoint or
// Gosched. It is best-effort, as in the runtime: the G may have just left.
// A G in a syscall is not asked (it is not running Go code here).
func (s *Sched) preemptone(pp *P) bool {
	m := pp.m.Load()
	if m == nil {
		return false
	}
	g := m.curg.Load()
	if g == nil || g.Status() != Grunning {
		return false
	}
	g.x.preempt.Store(true)
	return true
}
