package impl

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
	"go.uber.org/goleak"
)

// Tests added for the mutants of docs/mutation.md that every other check
// let live. Each names the mutant it kills.

// TestMutationKillRunqCap kills impl/runq.go's Cap() +1 -> -1: Cap is what
// the scheduler's callers and the checks read as the ring's capacity.
func TestMutationKillRunqCap(t *testing.T) {
	for c := 2; c <= DefaultQueueCapacity; c *= 2 {
		q, err := NewRunq(c, NewGlobalRunq())
		if err != nil {
			t.Fatal(err)
		}
		if q.Cap() != c {
			t.Errorf("NewRunq(%d).Cap() = %d", c, q.Cap())
		}
	}
}

// TestMutationKillSchedShutdownIdleCount kills impl/sched.go's Shutdown
// nmidle-- -> nmidle++: the Ms Shutdown takes off the idle list must leave
// sched.nmidle equal to the number of Ms still idle (checkdead and
// schedtrace read it).
func TestMutationKillSchedShutdownIdleCount(t *testing.T) {
	s, err := New(Config{Procs: 4})
	if err != nil {
		t.Fatal(err)
	}
	for range 64 {
		if err := s.Go(func(tk Task) { tk.Gosched() }); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	s.glob.Lock()
	defer s.glob.Unlock()
	idle := 0
	for _, m := range s.allm {
		if m.idle {
			idle++
		}
	}
	if int(s.nmidle) != idle {
		t.Errorf("after Shutdown nmidle = %d, but %d of %d Ms are idle", s.nmidle, idle, len(s.allm))
	}
}

// TestMutationKillSchedStealEventCount kills impl/steal.go's EvSteal
// N: Len()+1 -> Len()-1: a steal event counts the Gs the thief took, the
// one it runs included, so N is at least 1 (a steal of runnext alone, or of
// a one-G ring, takes exactly one).
func TestMutationKillSchedStealEventCount(t *testing.T) {
	steals := 0
	for round := 0; round < 20 && steals < 20; round++ {
		var mu sync.Mutex
		var bad []Event
		s, err := New(Config{Procs: 4, QueueCapacity: 4, Trace: func(e Event) {
			if e.Kind != EvSteal {
				return
			}
			mu.Lock()
			steals++
			if e.N < 1 || int(e.N) > 4/2+1 {
				bad = append(bad, e)
			}
			mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		for range 8 {
			s.Go(func(tk Task) {
				for range 6 {
					tk.Go(func(tk Task) { spinFor(20 * time.Microsecond) })
				}
				spinFor(100 * time.Microsecond)
			})
		}
		if err := s.Wait(); err != nil {
			t.Fatal(err)
		}
		s.Shutdown()
		for _, e := range bad {
			t.Errorf("steal event with N = %d: %+v", e.N, e)
		}
	}
	t.Logf("%d steal events", steals)
}

// spinFor burns CPU for d without a scheduling point of the scheduler's own.
func spinFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// TestMutationKillSchedSyscallGlobPutEvent kills impl/syscall.go's
// EvGlobPut P: -1 -> +1 in exitsyscallNoP: a G that returns from a syscall
// to find no P goes to the global queue from an M without a P, and the
// event says so (a trace viewer draws it on no P's track).
func TestMutationKillSchedSyscallGlobPutEvent(t *testing.T) {
	var evs []Event
	d, err := NewDriver(Config{Procs: 1, Trace: func(e Event) { evs = append(evs, e) }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Sched().Shutdown()
	if err := d.EnterSyscall(0); err != nil {
		t.Fatal(err)
	}
	if took, err := d.Retake(0); err != nil || !took {
		t.Fatalf("retake: %v %v", took, err)
	}
	if err := d.ExitSyscall(0); err != nil {
		t.Fatal(err)
	}
	if err := d.Step(0); err != nil {
		t.Fatal(err)
	}
	found := false
	for i, e := range evs {
		if e.Kind == EvAction && e.Action == spec.ActExitSyscallGlobrunq {
			found = true
			if i+1 >= len(evs) || evs[i+1].Kind != EvGlobPut || evs[i+1].P != -1 || evs[i+1].G != e.G {
				t.Errorf("after %+v: want EvGlobPut of g%d with P -1, got %+v", e, e.G, evs[i+1:])
			}
		}
	}
	if !found {
		t.Fatalf("no ExitSyscallGlobrunq in %+v", evs)
	}
}

// TestMutationKillGMCPULimit kills impl/gm.go's mloop mcpu >= procs ->
// mcpu > procs: the GM scheduler runs at most procs Gs' code at once, even
// when syscalls made it start more Ms than procs.
func TestMutationKillGMCPULimit(t *testing.T) {
	const procs = 1
	s, err := NewGM(procs)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	var running, peak atomic.Int32
	user := func(d time.Duration) {
		n := running.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		spinFor(d)
		running.Add(-1)
	}
	for range 4 {
		s.Go(func(tk Task) {
			for range 5 {
				user(50 * time.Microsecond)
				tk.Syscall(func() { time.Sleep(300 * time.Microsecond) })
			}
		})
	}
	for range 40 {
		s.Go(func(tk Task) {
			for range 5 {
				user(100 * time.Microsecond)
				tk.Gosched()
			}
		})
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > procs {
		t.Errorf("%d Gs ran user code at once with procs = %d", p, procs)
	}
}

// TestMutationKillRunqStealOverflowBoundary kills impl/runq.go's
// publishStolen check t-h+n >= size -> >: runqgrab copies the victim's
// half into the thief's ring before the check, so when the thief already
// holds k Gs the copy fits only if k plus the half is at most the ring's
// size; one more and the last copied G has overwritten the thief's head,
// which must stop the world (the runtime throws) rather than lose that G.
// Every k from empty to full, with a full victim: a panic exactly when the
// copy does not fit, and otherwise every G accounted for, in order.
func TestMutationKillRunqStealOverflowBoundary(t *testing.T) {
	for _, c := range []int{4, 8} {
		half := c / 2 // runqgrab takes n - n/2 of a full victim's c
		for k := 0; k <= c; k++ {
			glob := NewGlobalRunq()
			victim, thief := mustRunq(t, c, glob), mustRunq(t, c, glob)
			var vs, ts []*G
			for i := range c {
				vs = append(vs, NewG(uint64(100+i)))
				victim.Put(vs[i], false)
			}
			for i := range k {
				ts = append(ts, NewG(uint64(200+i)))
				thief.Put(ts[i], false)
			}
			var g *G
			msg := catchPanic(func() { g = thief.Steal(victim, false) })
			if fits := k+half <= c; !fits {
				if msg != "runqsteal: runq overflow" {
					t.Errorf("c=%d k=%d: the copy overwrote the thief's head, panic %q, want the overflow throw", c, k, msg)
				}
				continue
			}
			if msg != "" {
				t.Errorf("c=%d k=%d: panic %q, but the copy fits", c, k, msg)
				continue
			}
			_, ring := thief.Contents()
			want := append(append([]*G(nil), ts...), vs[:half-1]...)
			if g != vs[half-1] || fmt.Sprint(ring) != fmt.Sprint(want) {
				t.Errorf("c=%d k=%d: steal returned %v with the thief's ring %v; want %v and %v", c, k, g, ring, vs[half-1], want)
			}
		}
	}
}

// TestMutationKillGMSyscallReturnTakesCPU kills impl/gm.go's Syscall
// return path mcpu++ -> mcpu--: a G back from a syscall to a free CPU
// takes that CPU, so while it runs no other M may run a G with procs = 1.
// The syscall is arranged to end only after the G it handed off has exited
// (its CPU free again) and with a second M idle; the G then readies
// another G and, for a bounded while, watches whether that G starts
// beside it. On the GM it cannot (the window only bounds how long the
// mutant has to show itself).
func TestMutationKillGMSyscallReturnTakesCPU(t *testing.T) {
	s, err := NewGM(1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	cpuFree := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.mcpu < s.procs && s.nidle == s.nm-1
	}
	var overlap atomic.Bool
	handed := make(chan struct{})
	s.Go(func(tk Task) {
		tk.Go(func(Task) { close(handed) }) // queued: the syscall hands it to a new M
		tk.Syscall(func() {
			<-handed
			for !cpuFree() { // that G has exited and its M idles
				runtime.Gosched()
			}
		})
		var started atomic.Bool
		tk.Go(func(Task) { started.Store(true) })
		for start := time.Now(); time.Since(start) < 200*time.Millisecond; {
			if started.Load() {
				overlap.Store(true)
				break
			}
		}
	})
	ok, err := waitWithin(s, 10*time.Second)
	if !ok || err != nil {
		t.Fatalf("wait: returned %v, %v", ok, err)
	}
	if overlap.Load() {
		t.Error("a G ran beside the G back from its syscall with procs = 1: the return did not take the CPU")
	}
}

// TestMutationKillGMSyscallHandsOff kills impl/gm.go's Syscall
// runq.n > 0 -> <= 0 and nidle > 0 -> >= 0: a G that blocks in a syscall
// with work queued must get that work an M (an idle one, else a new one);
// here the work is what ends the syscall, so without it the program hangs.
func TestMutationKillGMSyscallHandsOff(t *testing.T) {
	s, err := NewGM(1)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	s.Go(func(tk Task) {
		tk.Go(func(Task) { close(ch) })
		tk.Syscall(func() { <-ch })
	})
	ok, err := waitWithin(s, 10*time.Second)
	if !ok {
		t.Fatal("the G blocked in a syscall waits for a G that no M runs")
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
}

// TestMutationKillSchedStealOrderCoprimes kills impl/steal.go's
// newRandomOrder i++ -> i--: the steal order's strides are every number in
// 1..count coprime to count (the runtime's randomOrder), so that the
// victims' order varies; with stride 1 alone every scan from a start visits
// the Ps in the same order. The expected strides are found by trial
// division, not by the gcd the order is built with (with gcd's loop test
// negated, a test using gcd agreed with the broken order: impl/steal.go:51:8,
// seed 1137's full run).
func TestMutationKillSchedStealOrderCoprimes(t *testing.T) {
	coprime := func(i, n uint32) bool {
		for d := uint32(2); d <= i; d++ {
			if i%d == 0 && n%d == 0 {
				return false
			}
		}
		return true
	}
	for count := uint32(1); count <= 12; count++ {
		var want []uint32
		for i := uint32(1); i <= count; i++ {
			if coprime(i, count) {
				want = append(want, i)
			}
		}
		got := newRandomOrder(count).coprimes
		if len(got) != len(want) {
			t.Fatalf("count %d: coprimes %v, want %v", count, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("count %d: coprimes %v, want %v", count, got, want)
			}
		}
	}
}

// TestMutationKillSchedStealOrderStarts kills impl/steal.go's start
// r/ord.count -> r*ord.count: as r runs over count*len(coprimes)
// consecutive values, the runtime's randomOrder.start yields every (first
// victim, stride) pair exactly once, so a thief's random draw reaches every
// order of the Ps alike. With r*count the stride's index is a multiple of
// count mod len(coprimes): at count 4 (strides 1 and 3) always 1, so every
// scan walks the Ps upwards.
func TestMutationKillSchedStealOrderStarts(t *testing.T) {
	for count := uint32(1); count <= 12; count++ {
		ord := newRandomOrder(count)
		n := count * uint32(len(ord.coprimes))
		for _, from := range []uint32{0, 7 * n} { // any n consecutive draws
			seen := map[[2]uint32]bool{}
			for r := from; r < from+n; r++ {
				e := ord.start(r)
				seen[[2]uint32{e.position(), e.inc}] = true
			}
			if uint32(len(seen)) != n {
				t.Fatalf("count %d: draws %d..%d gave %d distinct (start, stride) pairs, want %d: %v", count, from, from+n-1, len(seen), n, seen)
			}
		}
	}
}

// TestMutationKillRunqLenFull kills impl/runq.go's Len "n > q.Cap()" ->
// ">=" (seed 1129): a full ring is Cap Gs, not a torn read to clamp to
// zero. checkdead counts the queued Gs with Len to tell a lost wakeup
// (runnable Gs, every M idle) from a deadlock, so a full queue read as
// empty would misname it.
func TestMutationKillRunqLenFull(t *testing.T) {
	for _, capacity := range []int{2, 4, 256} {
		glob := NewGlobalRunq()
		q, err := NewRunq(capacity, glob)
		if err != nil {
			t.Fatal(err)
		}
		for i := range capacity {
			q.Put(NewG(uint64(i+1)), false)
		}
		if glob.Len() != 0 {
			t.Fatalf("cap %d: %d Gs spilled filling the ring", capacity, glob.Len())
		}
		if n := q.Len(); n != capacity {
			t.Errorf("cap %d: a full ring has Len %d, want %d", capacity, n, capacity)
		}
		q.Put(NewG(uint64(capacity+1)), true) // runnext
		if n := q.Len(); n != capacity+1 {
			t.Errorf("cap %d: a full ring and runnext have Len %d, want %d", capacity, n, capacity+1)
		}
	}
}

// TestMutationKillSchedSysmonDeepSleep kills impl/sysmon.go's deep-sleep
// test "npidle == procs" -> "!=" (seed 1129): with every P idle sysmon
// has nothing to retake and sleeps until woken (sysmonOn), as the
// runtime's does, instead of polling every 10 ms. The mutant never enters
// that sleep while every P is idle.
func TestMutationKillSchedSysmonDeepSleep(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := New(Config{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	awaitSched(t, s, "sysmon in deep sleep with every P idle", s.sysmonOn.Load)
}

// TestMutationKillSchedStealBackoffNoCurg kills impl/steal.go's
// stealBackoff g == nil || ... -> &&: a thief may look at a running P whose
// M is between Gs (curg nil, in findRunnable); the backoff must not touch
// the missing G.
func TestMutationKillSchedStealBackoffNoCurg(t *testing.T) {
	d, err := NewDriver(Config{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Sched().Shutdown()
	if err := d.Gosched(0); err != nil { // m0 keeps p0, with no curg
		t.Fatal(err)
	}
	s := d.Sched()
	if m := s.ps().allp[0].m.Load(); m == nil || m.curg.Load() != nil {
		t.Fatalf("p0 should be held by an M without a G")
	}
	s.stealBackoff(s.ps().allp[0])()
}

// TestMutationKillGMDeadlock kills impl/gm.go's checkdead
// nlive > 0 -> <= 0: every M idle, the queue empty and a live G parked for
// ever is a deadlock, which Wait reports.
func TestMutationKillGMDeadlock(t *testing.T) {
	s, err := NewGM(2)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	s.Go(func(tk Task) {
		mu.Lock()
		tk.ParkUnlock("for ever", &mu)
	})
	ok, err := waitWithin(s, 10*time.Second)
	if !ok {
		t.Fatal("Wait did not report the deadlock")
	}
	if !errors.Is(err, ErrDeadlock) {
		t.Fatalf("Wait = %v, want ErrDeadlock", err)
	}
	s.Shutdown()
}

// TestMutationKillGMDeadlockAfterWork kills impl/gm.go's mloop
// s.nidle-- -> s.nidle++ after the wait (seed 1128): nidle must count the
// Ms waiting now, not every wait so far, or once an M has been woken the
// check "every M idle" never holds again and a later deadlock goes
// unreported. TestMutationKillGMDeadlock cannot see it when its G is queued
// before any M first waits (no wake happens); here both Ms wait first.
func TestMutationKillGMDeadlockAfterWork(t *testing.T) {
	s, err := NewGM(2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	awaitGMIdle(t, s, 2)
	if err := s.Go(func(Task) {}); err != nil { // wakes an M
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatalf("Wait after a G that exits = %v", err)
	}
	var mu sync.Mutex
	if err := s.Go(func(tk Task) {
		mu.Lock()
		tk.ParkUnlock("for ever", &mu)
	}); err != nil {
		t.Fatal(err)
	}
	ok, err := waitWithin(s, 10*time.Second)
	if !ok {
		t.Fatal("Wait did not report the deadlock")
	}
	if !errors.Is(err, ErrDeadlock) {
		t.Fatalf("Wait = %v, want ErrDeadlock", err)
	}
}

// TestMutationKillGMGoidsCountUp kills impl/gm.go's newproc
// s.goidgen++ -> s.goidgen-- (seed 1128): on both schedulers the first two
// Gs, both alive, have ids 1 and 2, as the runtime's goids count up from 1.
func TestMutationKillGMGoidsCountUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func() (Scheduler, error)
	}{
		{"gmp", func() (Scheduler, error) { return New(Config{Procs: 2}) }},
		{"gm", func() (Scheduler, error) { return NewGM(2) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.new()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Shutdown()
			ids := make(chan uint64, 2)
			release := make(chan struct{})
			for range 2 {
				if err := s.Go(func(tk Task) {
					ids <- tk.ID()
					<-release
				}); err != nil {
					t.Fatal(err)
				}
			}
			got := map[uint64]bool{<-ids: true, <-ids: true}
			close(release)
			if err := s.Wait(); err != nil {
				t.Fatal(err)
			}
			if !got[1] || !got[2] {
				t.Errorf("the first two Gs have ids %v, want 1 and 2", got)
			}
		})
	}
}

// TestMutationKillSchedTaskInSyscallPanics kills impl/task.go's mutant of
// mustRun ("status != Grunning || m == nil" -> "&&"): a Task method called
// from inside the G's own Syscall (the G is in _Gsyscall, still on its M)
// is misuse and must panic as on any G that is not running. The misuse
// tests only called Task methods on exited Gs, whose M is already nil.
func TestMutationKillSchedTaskInSyscallPanics(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := New(Config{Procs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	var got any
	s.Go(func(tk Task) {
		tk.Syscall(func() {
			defer func() { got = recover() }()
			tk.Gosched()
		})
	})
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if msg, _ := got.(string); !strings.Contains(msg, "not running") {
		t.Fatalf("Gosched inside the G's own Syscall: recovered %v, want a 'not running' panic", got)
	}
}

// TestMutationKillSchedClampMicros kills impl/timers.go's clampMicros
// mutant 1<<31-1 -> 1>>31-1 (every event's microseconds become -1): the
// conversion keeps a duration in range, negative ones at 0.
func TestMutationKillSchedClampMicros(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want int32
	}{{5000, 5}, {-7, 0}, {0, 0}, {1 << 62, 1<<31 - 1}} {
		if got := clampMicros(c.ns); got != c.want {
			t.Errorf("clampMicros(%d) = %d, want %d", c.ns, got, c.want)
		}
	}
}

// TestMutationKillSchedStartTheWorldWakepEvent kills impl/stw.go's mutant
// of startTheWorldWakep's event (P -1 -> +1): the stopper's wakep is taken
// with no P, as the spec's StartTheWorldWakep, and its event says so.
func TestMutationKillSchedStartTheWorldWakepEvent(t *testing.T) {
	defer goleak.VerifyNone(t)
	var mu sync.Mutex
	var evs []Event
	s, err := New(Config{Procs: 2, Trace: func(e Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if err := s.StopTheWorld(); err != nil {
		t.Fatal(err)
	}
	if err := s.StartTheWorld(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, e := range evs {
		if e.Kind == EvAction && e.Action == spec.ActStartTheWorldWakep {
			found = true
			if e.P != -1 || e.M != -1 {
				t.Errorf("StartTheWorldWakep's event names M %d P %d, want -1 and -1: %+v", e.M, e.P, e)
			}
		}
	}
	if !found {
		t.Fatalf("no StartTheWorldWakep in %d events", len(evs))
	}
}

// TestMutationKillSchedRetakeAfterForcePreempt kills impl/sysmon.go's
// mutant "!sysretake && first sight" -> "||": a P whose G has held it for
// a whole time slice and is now in a syscall (it cannot see the preempt
// request) is retaken at once, without the one sysmon tick a syscall gets
// on first sight. sysmon's pass takes its clock as an argument, so the
// test drives two passes with chosen times on the deterministic driver.
func TestMutationKillSchedRetakeAfterForcePreempt(t *testing.T) {
	d := syscallSysmonMissed(t, Config{})
	s := d.Sched()
	if n := s.retake(0); n != 0 {
		t.Fatalf("first pass, g1 running: took %d Ps", n)
	}
	if err := d.EnterSyscall(0); err != nil {
		t.Fatal(err)
	}
	if n := s.retake(s.cfg.ForcePreempt); n != 1 {
		t.Fatalf("a pass a time slice later, g1 in a syscall since: took %d Ps, want p0 retaken at once", n)
	}
}

// syscallSysmonMissed is a Driver with one P (cfg's other fields kept)
// whose g1 has made a syscall that ended before sysmon looked: p0's
// syscalltick has moved on, so g1's next syscall is one sysmon has not
// seen. Sysmon's passes are the test's to play (retake, with its clock as
// an argument).
func syscallSysmonMissed(t *testing.T, cfg Config) *Driver {
	t.Helper()
	cfg.Procs = 1
	d, err := NewDriver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Sched().Shutdown)
	if err := d.EnterSyscall(0); err != nil {
		t.Fatal(err)
	}
	if err := d.ExitSyscall(0); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMutationKillSchedReadyNilG kills impl/task.go's Ready mutant
// (!ok || gp == nil || ... -> !ok && gp == nil || ...): Ready of a nil *G
// is misuse reported as an error, not a nil dereference.
func TestMutationKillSchedReadyNilG(t *testing.T) {
	defer goleak.VerifyNone(t)
	s, err := New(Config{Procs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	var rerr error
	var rec any
	s.Go(func(tk Task) {
		defer func() { rec = recover() }()
		rerr = tk.Ready((*G)(nil))
	})
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if rec != nil || rerr == nil {
		t.Fatalf("Ready((*G)(nil)): error %v, panic %v; want an error", rerr, rec)
	}
}

// TestMutationKillSchedPMaskPast64 checks the idle mask past its first
// word (SetProcs allows up to 65,536 Ps; every other check runs at most
// 8): each bit is set, read and cleared alone.
func TestMutationKillSchedPMaskPast64(t *testing.T) {
	for _, i := range []int{0, 63, 64, 100, 200} {
		m := newPMask(256)
		m.set(i)
		for j := 0; j < 256; j++ {
			if m.read(j) != (j == i) {
				t.Fatalf("a mask with bit %d set reads %v at %d", i, m.read(j), j)
			}
		}
		if m.clear(i); m.read(i) {
			t.Errorf("bit %d still set after clear", i)
		}
	}
}

// TestMutationKillSchedInjectNoPGlobPutEvent kills impl/netpollblock.go's
// EvGlobPut P: -1 -> +1 in injectNoPLocked: a poller back from the network
// with a ready G and no idle P (NetpollNoP) puts the G on the global queue
// from an M without a P, and the event says so, as exitsyscallNoP's does.
// The walk to it is the spec's shortest, found breadth-first. It also kills
// the same step's EvNetpollBlock Victim: -1 -> +1 (seed 1128): the
// poller's return names neither a P nor another P as victim. The put names
// the poller's M, as exitsyscallNoP's names its M (the full impl/sched
// run's netpollblock.go:250:37 found it named none, -1, and that a
// mutant naming m1 passed).
func TestMutationKillSchedInjectNoPGlobPutEvent(t *testing.T) {
	walk := shortestWalkTo(t, pollBreakBounds, spec.ActNetpollNoP)
	r, err := newSpecRun(pollBreakBounds, spec.Go126, spec.BugNone, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := walkRun(r, walk[:len(walk)-1]); err != nil {
		t.Fatal(err)
	}
	var evs []Event
	s := r.d.Sched()
	driverTrace := s.trace
	s.trace = func(e Event) {
		evs = append(evs, e.Normalized()) // as the user's trace receives it
		driverTrace(e)
	}
	if _, err := walkRun(r, walk[len(walk)-1:]); err != nil {
		t.Fatal(err)
	}
	poller := int32(-1)
	for _, e := range evs {
		if e.Kind == EvAction && e.Action == spec.ActNetpollNoP {
			poller = e.M
		}
	}
	if poller < 0 {
		t.Fatalf("no NetpollNoP action in %v", evs)
	}
	puts, returns := 0, 0
	for _, e := range evs {
		switch e.Kind {
		case EvGlobPut:
			puts++
			if e.P != -1 {
				t.Errorf("%s's global put names p%d, want no P (-1): %+v", walk[len(walk)-1], e.P, e)
			}
			if e.M != poller {
				t.Errorf("%s's global put names m%d, want the poller m%d: %+v", walk[len(walk)-1], e.M, poller, e)
			}
		case EvNetpollBlock:
			returns++
			if e.On || e.P != -1 || e.Victim != -1 {
				t.Errorf("%s's return from the poller: %+v, want On false, P -1, Victim -1", walk[len(walk)-1], e)
			}
		}
	}
	if puts == 0 {
		t.Fatalf("%s put nothing on the global queue: %v", walk[len(walk)-1], evs)
	}
	if returns != 1 {
		t.Errorf("%s emitted %d returns from the poller, want 1: %v", walk[len(walk)-1], returns, evs)
	}
}

// shortestWalkTo is the spec's shortest walk, by the actions' printed
// names, from b's initial state to a step of kind k (the last name).
func shortestWalkTo(t *testing.T, b spec.Bounds, k spec.ActionKind) []string {
	t.Helper()
	md, err := spec.NewModel(b)
	if err != nil {
		t.Fatal(err)
	}
	type edge struct {
		from spec.State
		a    spec.Action
	}
	init := md.Init()
	parent := map[spec.State]edge{}
	seen := map[spec.State]bool{init: true}
	for frontier := []spec.State{init}; len(frontier) > 0; {
		var next []spec.State
		for _, s := range frontier {
			// The Driver runs a wakep to its end within one step: no
			// other actor moves while an M is inside one.
			waking := -1
			for m := 0; m < s.NumMs(); m++ {
				if s.M[m].Wake != spec.WakeNone {
					waking = m
				}
			}
			for _, a := range md.Enabled(s) {
				if waking >= 0 && int(a.M) != waking {
					continue
				}
				ns, err := md.Step(s, a)
				if err != nil {
					continue // past the M bound
				}
				if a.Kind == k {
					walk := []string{a.String()}
					for at := s; at != init; at = parent[at].from {
						walk = append(walk, parent[at].a.String())
					}
					slices.Reverse(walk)
					return walk
				}
				if !seen[ns] {
					seen[ns] = true
					parent[ns] = edge{s, a}
					next = append(next, ns)
				}
			}
		}
		frontier = next
	}
	t.Fatalf("no %v reachable on %v", k, b)
	return nil
}

// TestMutationKillSchedSeedReachesStealOrder kills impl/m.go's
// Seed*k1 + slot*k2 + 1 -> Seed/k1 + ...: each M's steal order is seeded by
// Config.Seed, so two seeds give the same M different orders (with the
// division every seed below k1 gives the same one, and Seed no longer
// varies the Driver's comparison runs).
func TestMutationKillSchedSeedReachesStealOrder(t *testing.T) {
	rngOf := func(seed uint64) uint64 {
		d, err := NewDriver(Config{Procs: 2, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Sched().Shutdown()
		return d.Sched().allm[0].rng
	}
	if a, b := rngOf(1), rngOf(2); a == b {
		t.Fatalf("seeds 1 and 2 give m0 the same steal-order state %#x", a)
	}
}

// TestMutationKillGMReadyWakesIdleM kills impl/gm.go's Ready signalling
// the cond only when no M is idle (nidle > 0 negated): the parked G's
// Ready, from outside, must wake the one idle M, which nothing else wakes.
// It also kills Ready's misuse test with && (a typed nil Task must be an
// error, not a nil dereference).
func TestMutationKillGMReadyWakesIdleM(t *testing.T) {
	s, err := NewGM(1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if err := s.Ready((*gmG)(nil)); err == nil {
		t.Fatal("Ready of a nil goroutine: no error")
	}
	parked, done := make(chan Task, 1), make(chan struct{})
	var mu sync.Mutex
	if err := s.Go(func(tk Task) {
		mu.Lock()
		parked <- tk
		tk.ParkUnlock("for Ready", &mu)
		close(done)
	}); err != nil {
		t.Fatal(err)
	}
	tk := <-parked
	awaitGMIdle(t, s, 1)
	if err := s.Ready(tk); err != nil { // the M idles only once the G has parked
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Ready did not wake the idle M: the G never ran again")
	}
}

// TestMutationKillSchedForcePreemptIsTheRuntimes kills impl/sysmon.go's
// forcePreemptNS computed as 10 / time.Millisecond (0): the default time
// slice is the runtime's forcePreemptNS, 10 ms.
func TestMutationKillSchedForcePreemptIsTheRuntimes(t *testing.T) {
	s, err := New(Config{Procs: 1, NoSysmon: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	if got := s.cfg.ForcePreempt; got != 10*time.Millisecond {
		t.Fatalf("default ForcePreempt %v, want the runtime's 10ms", got)
	}
}

// awaitGMIdle waits until n of GM's Ms wait on its cond (nidle), for at
// most 10 s: a hang limit, which the correct GM meets at once.
func awaitGMIdle(t *testing.T, s *GM, n int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		idle := s.nidle
		s.mu.Unlock()
		if idle == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of GM's Ms wait, want %d", idle, n)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// TestMutationKillSchedStartmAfterShutdown kills impl/m.go's
// nmspinning.Add(-1) -> Add(1) in startm's shutdown branch (seed 1131): a
// startm that finds the scheduler stopping gives the P back to the idle
// list and undoes the spinning count its caller took (wakep's CAS), so
// that the counters stay what they count after Shutdown.
func TestMutationKillSchedStartmAfterShutdown(t *testing.T) {
	s := newTestSched(t, Config{Procs: 2, NoSysmon: true})
	s.Shutdown()
	s.glob.Lock()
	pp := s.pidleget()
	s.glob.Unlock()
	if pp == nil {
		t.Fatal("no idle P after Shutdown")
	}
	spinning, idle := s.nmspinning.Load(), s.npidle.Load()
	s.nmspinning.Add(1) // the caller's count, as wakep's CAS takes it
	s.startm(pp, true, false)
	if got := s.nmspinning.Load(); got != spinning {
		t.Errorf("nmspinning %d after a startm past Shutdown, want %d: the caller's count not undone", got, spinning)
	}
	if got := s.npidle.Load(); got != idle+1 {
		t.Errorf("npidle %d, want %d: the P not given back", got, idle+1)
	}
	if st := spec.PStatus(pp.status.Load()); st != spec.PIdle {
		t.Errorf("p%d is %v, want idle", pp.id, st)
	}
}

// TestMutationKillSchedSysmonNetpollWaits kills impl/netpoll.go's
// now-since -> now+since in sysmonNetpoll (seed 1131), and its < -> <=:
// sysmon injects a ready list only once it has waited 10 ms since sysmon
// first saw it (the runtime's sysmon polls when nobody has for 10 ms). The
// times are given, not measured: the decision is a function of them. The
// list itself is left empty, with its count set: what is injected does not
// enter the decision.
func TestMutationKillSchedSysmonNetpollWaits(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1, NoSysmon: true})
	const ms = time.Millisecond
	for _, c := range []struct {
		now, since, want time.Duration
		injected         bool
	}{
		{now: 50 * ms, since: 0, want: 50 * ms},                 // first seen: remember when
		{now: 55 * ms, since: 50 * ms, want: 50 * ms},           // 5 ms later: still waiting
		{now: 60 * ms, since: 50 * ms, want: 0, injected: true}, // 10 ms: injected
	} {
		s.poll.nready.Store(1)
		if got := s.sysmonNetpoll(c.now, c.since); got != c.want {
			t.Errorf("sysmonNetpoll(now %v, since %v) = %v, want %v", c.now, c.since, got, c.want)
		}
		if injected := s.poll.nready.Load() == 0; injected != c.injected {
			t.Errorf("now %v, since %v: injected %v, want %v", c.now, c.since, injected, c.injected)
		}
	}
	s.poll.nready.Store(0)
	if got := s.sysmonNetpoll(60*ms, 50*ms); got != 0 {
		t.Errorf("an empty list: sysmonNetpoll = %v, want 0 (nothing seen)", got)
	}
}

// TestMutationKillGMSyscallStartsM kills two mutants of GM's Syscall
// (seed 1132 and its neighbour).
//   - nidle > 0 -> >= 0: a G entering a system call with work queued and no
//     M idle must start a new M (the runtime's handoffp from entersyscall),
//     not signal a cond nobody waits on. The queued G is the one that ends
//     the system call, so without the new M it never returns (10 s limit;
//     then the test ends the call itself, so that Shutdown can finish).
//   - impl/gm.go:333:14, runq.n > 0 -> >= 0: with nothing queued, a system
//     call starts no M; the Ms created stay the one that runs the G.
func TestMutationKillGMSyscallStartsM(t *testing.T) {
	t.Run("work queued", func(t *testing.T) {
		s, err := NewGM(1)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown()
		done, abort := make(chan struct{}), make(chan struct{})
		if err := s.Go(func(tk Task) {
			ch := make(chan struct{})
			tk.Go(func(Task) { close(ch) }) // queued: the one CPU is this G's
			tk.Syscall(func() {
				select {
				case <-ch:
				case <-abort:
				}
			})
			close(done)
		}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			close(abort)
			t.Fatal("the queued G never ran while its creator was in a system call: Syscall started no M")
		}
	})
	t.Run("nothing queued", func(t *testing.T) {
		s, err := NewGM(1)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown()
		done := make(chan struct{})
		if err := s.Go(func(tk Task) {
			for range 3 {
				tk.Syscall(func() {})
			}
			close(done)
		}); err != nil {
			t.Fatal(err)
		}
		<-done
		s.mu.Lock()
		nm := s.nm
		s.mu.Unlock()
		if nm != 1 {
			t.Fatalf("%d Ms created for one G and three system calls with nothing queued, want 1", nm)
		}
	})
}

// TestMutationKillSchedLasted kills impl/sysmon.go:125:26 and 125:47 (seed
// 1133), retake's syscallwhen+10ms <= now made - and >, now lasted: what
// began at since has lasted d at since+d and after, not before; and
// sysmon's 10 ms is the runtime's.
func TestMutationKillSchedLasted(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		since, now, d time.Duration
		want          bool
	}{
		{50 * ms, 55 * ms, 10 * ms, false},
		{50 * ms, 60 * ms, 10 * ms, true},
		{50 * ms, 61 * ms, 10 * ms, true},
		{0, 9 * ms, 10 * ms, false},
		{20 * ms, 20 * ms, 0, true},
	} {
		if got := lasted(c.since, c.now, c.d); got != c.want {
			t.Errorf("lasted(since %v, now %v, %v) = %v, want %v", c.since, c.now, c.d, got, c.want)
		}
	}
	if sysmonLongNS != 10*ms {
		t.Errorf("sysmonLongNS = %v, want the runtime's 10ms", sysmonLongNS)
	}
}

// TestMutationKillSchedProcsRange kills the range checks of GOMAXPROCS (seed
// 1134: impl/gm.go:97:15's || -> && let NewGM(-1) through, 97:24's
// > -> >= refused 65536; impl/procresize.go:17:16 likewise): the three
// entry points share validProcs, whose bounds are 1 and 65536 inclusive,
// and each refuses what it refuses.
func TestMutationKillSchedProcsRange(t *testing.T) {
	for n, want := range map[int]bool{-1: false, 0: false, 1: true, 2: true, maxProcs - 1: true, maxProcs: true, maxProcs + 1: false} {
		if got := validProcs(n); got != want {
			t.Errorf("validProcs(%d) = %v, want %v", n, got, want)
		}
	}
	if maxProcs != 65536 {
		t.Errorf("maxProcs %d, want 65536 (the documented range)", maxProcs)
	}
	for _, n := range []int{-1, maxProcs + 1} {
		if _, err := NewGM(n); err == nil {
			t.Errorf("NewGM(%d): no error", n)
		}
		if _, err := New(Config{Procs: n}); err == nil {
			t.Errorf("New(Procs %d): no error", n)
		}
	}
	s := newTestSched(t, Config{Procs: 1, NoSysmon: true})
	for _, n := range []int{0, maxProcs + 1} {
		if _, err := s.SetProcs(n); err == nil || !strings.Contains(err.Error(), "want 1..65536") {
			t.Errorf("SetProcs(%d): %v, want the range error", n, err)
		}
	}
}

// TestMutationKillSchedStealOrderPerM kills impl/m.go:183:53 (seed 1135;
// mSeed's line since), the M seed's slot term `*` made `/`: every M then
// drew the same steal order, so thieves woken together raced for the same
// victim. Nothing looked at two Ms' draws side by side. The first draws
// of eight Ms' cheaprand must differ pairwise under each of a few Seeds,
// and one M's under each Seed (the seed term `*` made `/` gave every
// small Seed the same orders, so a fuzzer's Seeds explored one schedule).
func TestMutationKillSchedStealOrderPerM(t *testing.T) {
	draws := func(seed uint64, slot int) [4]uint32 {
		m := &M{rng: mSeed(seed, slot)}
		var d [4]uint32
		for i := range d {
			d[i] = m.cheaprand()
		}
		return d
	}
	seeds := []uint64{0, 1, 42}
	for _, seed := range seeds {
		seen := map[[4]uint32]int{}
		for slot := range 8 {
			d := draws(seed, slot)
			if other, ok := seen[d]; ok {
				t.Fatalf("Seed %d: m%d and m%d draw the same steal order %v", seed, other, slot, d)
			}
			seen[d] = slot
		}
	}
	bySeed := map[[4]uint32]uint64{}
	for _, seed := range seeds {
		d := draws(seed, 1)
		if other, ok := bySeed[d]; ok {
			t.Fatalf("Seeds %d and %d give m1 the same steal order %v", other, seed, d)
		}
		bySeed[d] = seed
	}
}

// TestMutationKillSchedCheaprandUniform kills impl/steal.go:64:19, the
// cheaprand finalizer 'z ^ z>>31' -> 'z & z>>31': each output bit is then
// set one time in four, so a thief's first victim and stride (cheaprand
// modulo the order's pairs) cluster on a few Ps. The generator is
// deterministic under a seed, so this is not a statistical test that can
// flake: the draws of three seeds, 16,000 each, fall into each of 16
// residues within a fifth of the even share (splitmix64's are within 6%).
// (Seed 1137's full run found 64:22, the same step's '>>' made '<<'; that
// one, and the two other steps' shift mutants, still spread evenly and are
// argued equivalent.)
func TestMutationKillSchedCheaprandUniform(t *testing.T) {
	const draws, buckets = 16000, 16
	for _, seed := range []uint64{0, 1, 42} {
		m := &M{rng: mSeed(seed, 0)}
		var n [buckets]int
		for range draws {
			n[m.cheaprand()%buckets]++
		}
		for b, c := range n {
			if want := draws / buckets; c < want*4/5 || c > want*6/5 {
				t.Fatalf("Seed %d: residue %d drawn %d times of %d, want about %d: %v", seed, b, c, draws, want, n)
			}
		}
	}
}

// TestMutationKillSchedGFreeLists kills impl/proc.go:107:22,
// gfput's spill loop 'Len() >= 32' -> '> 32': a P whose free list reaches
// 64 dead Gs moves them to the global list until 31 are left, as the
// runtime's gfput does.
func TestMutationKillSchedGFreeLists(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1})
	pp := s.ps().allp[0]
	if n := pp.gFree.Len(); n != 0 {
		t.Fatalf("a fresh P has %d free Gs", n)
	}
	globalLen := func() int {
		s.gfree.Lock()
		defer s.gfree.Unlock()
		return s.gfree.q.Len()
	}
	global := globalLen()
	put := func(i int) {
		g := NewG(uint64(1000 + i))
		g.status.Store(uint32(Gdead))
		s.gfput(pp, g)
	}
	for i := range 63 {
		put(i)
	}
	if n, moved := pp.gFree.Len(), globalLen()-global; n != 63 || moved != 0 {
		t.Fatalf("after 63 dead Gs: %d on the P, %d moved to the global list; want 63 and 0", n, moved)
	}
	put(63)
	if n, moved := pp.gFree.Len(), globalLen()-global; n != 31 || moved != 33 {
		t.Fatalf("after the 64th: %d on the P, %d moved to the global list; want 31 and 33", n, moved)
	}
	// gfget on an empty P refills it with 32 from the global list (impl/proc.go:121:22,
	// '< 32' -> '<= 32', seed 1137's full run) and takes one.
	p1 := s.ps().allp[0]
	for !p1.gFree.Empty() {
		p1.gFree.Pop()
	}
	before := globalLen()
	if before < 33 {
		t.Fatalf("%d dead Gs on the global list, want at least 33", before)
	}
	if g := s.gfget(p1); g == nil || p1.gFree.Len() != 31 || globalLen() != before-32 {
		t.Fatalf("gfget on an empty P: got %v, %d left on the P, %d taken from the global list; want a G, 31, 32", g, p1.gFree.Len(), before-globalLen())
	}
}

// TestMutationKillSchedSysmonBackoff kills impl/sysmon.go's idle count
// (idle++ -> idle--, seed 1137's full run) and sysmonDelay's first case
// (idle == 0 -> !=): sysmon polls every 20 us while it finds work, and
// after 50 idle rounds doubles its sleep up to 10 ms; a round that takes a
// P starts over. The loop's decisions, played here without the sleeps.
func TestMutationKillSchedSysmonBackoff(t *testing.T) {
	idle, delay := 0, time.Duration(0)
	var got []time.Duration
	round := func(took int) {
		delay = sysmonDelay(idle, delay)
		got = append(got, delay)
		idle = sysmonIdle(idle, took)
	}
	for range 60 {
		round(0)
	}
	round(1)
	round(0)
	want := make([]time.Duration, 0, 62)
	for range 51 {
		want = append(want, 20*time.Microsecond)
	}
	for d := 40 * time.Microsecond; len(want) < 60; d *= 2 {
		want = append(want, min(d, 10*time.Millisecond))
	}
	want = append(want, 10*time.Millisecond, 20*time.Microsecond)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sysmon's sleeps\n got %v\nwant %v", got, want)
	}
}

// TestMutationKillSchedGstatusString kills impl/g.go:24:12, Gstatus's
// String bound '<' -> '<=': a status past the names prints as a number,
// as a corrupted word in a trace must, rather than panicking.
func TestMutationKillSchedGstatusString(t *testing.T) {
	for st, want := range map[Gstatus]string{Gidle: "idle", Gdead: "dead", Gdead + 1: fmt.Sprintf("Gstatus(%d)", Gdead+1), 1 << 20: "Gstatus(1048576)"} {
		if got := catchPanic(func() { _ = st.String() }); got != "" {
			t.Errorf("Gstatus(%d).String() panics: %s", uint32(st), got)
			continue
		}
		if got := st.String(); got != want {
			t.Errorf("Gstatus(%d).String() = %q, want %q", uint32(st), got, want)
		}
	}
}

// TestMutationKillSchedShellChoice kills impl/sched.go:232:31, the
// shell's choice 'PinThreads || HandoffShell' -> '&&': PinThreads implies
// the hand-off shell (Config's contract), since only there is an M one
// goroutine that can be wired to an OS thread; the carrier shell has no
// goroutine per M to wire. Which shell runs is not visible through the
// API, so this reads the Sched's own choice.
func TestMutationKillSchedShellChoice(t *testing.T) {
	for _, c := range []struct {
		cfg     Config
		handoff bool
	}{
		{Config{Procs: 1}, false},
		{Config{Procs: 1, HandoffShell: true}, true},
		{Config{Procs: 1, PinThreads: true}, true},
		{Config{Procs: 1, PinThreads: true, HandoffShell: true}, true},
	} {
		s := newTestSched(t, c.cfg)
		if s.handoff != c.handoff {
			t.Errorf("%+v: hand-off shell %v, want %v", c.cfg, s.handoff, c.handoff)
		}
	}
}

// TestMutationKillSchedStealTries kills impl/steal.go:98:36, the last
// pass's test 'pass == stealTries-1' -> 'stealTries+1': stealWork makes
// stealTries passes over the Ps, each in an order drawn afresh, and only
// the last looks at runnext and timers and fails the scan. A scan that
// finds nothing anywhere (every other P idle) draws stealTries orders, then
// misses each other P once and gives up; one more pass would draw one more.
func TestMutationKillSchedStealTries(t *testing.T) {
	d, err := NewDriver(Config{Procs: 4})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Sched()
	defer s.Shutdown()
	m := &M{id: 99, rng: 7}
	m.p.Store(s.ps().allp[0]) // p0 is m0's; the others idle, with nothing queued
	n := scanDraws(s, m, func(i int) {
		// The victims missed so far, as the spec's Scan sees them
		// (steal.go:184:15, '|=' made '=', seed 1137's full run: only
		// four Ps show a second miss before the scan ends).
		if n := bits.OnesCount64(m.scan.seen); n != i+1 {
			t.Fatalf("after %d misses the scan has seen %d victims (%b)", i+1, n, m.scan.seen)
		}
	})
	if n != stealTries || m.pc != spec.MDrop {
		t.Fatalf("a failed scan drew %d steal orders and ended at %v; want %d and %v", n, m.pc, stealTries, spec.MDrop)
	}
}

// scanDraws runs m's stealWork on s from its start to its end (at most
// ten steps past the first, calling each before each of them) and returns
// how many steal orders it drew: cheaprand calls, counted in cheaprandStep
// steps of m's state.
func scanDraws(s *Sched, m *M, each func(step int)) int {
	rng := m.rng
	s.startSteal(m) // the passes, then the last pass's first miss or find
	for i := 0; m.pc == spec.MSteal && i < 10; i++ {
		each(i)
		s.stealStep(m) // one miss each
	}
	n := 0
	for r := rng; r != m.rng && n < 100; r += cheaprandStep {
		n++
	}
	return n
}

// TestMutationKillSchedInjectGListEvents kills impl/proc.go's
// injectOneLocked event fields (seed 1137's full run: the EvGlobPut's M
// -1 made +1; the action's M and P): a G readied from outside the
// scheduler (here a go statement from outside) is injected by no M on no
// P, and both its events say so.
func TestMutationKillSchedInjectGListEvents(t *testing.T) {
	var evs []Event
	d, err := NewDriver(Config{Procs: 1, Trace: func(e Event) { evs = append(evs, e) }})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Sched().Shutdown()
	evs = nil
	if err := d.Sched().Go(func(Task) {}); err != nil {
		t.Fatal(err)
	}
	var inject, put *Event
	for i := range evs {
		switch e := &evs[i]; {
		case e.Kind == EvAction && e.Action == spec.ActInjectGList:
			inject = e
		case e.Kind == EvGlobPut:
			put = e
		}
	}
	if inject == nil || put == nil || inject.M != -1 || inject.P != -1 || put.M != -1 || put.P != -1 || put.G != inject.G {
		t.Fatalf("a go statement from outside: InjectGList %+v, GlobPut %+v; want both with M -1, P -1, the same G (events %v)", inject, put, evs)
	}
}

// TestMutationKillMechNetpollBreakFromOutside kills impl/netpollblock.go's
// netpollBreak 'mid := -1' -> '+1' (seed 1137's full run): a G readied by
// the network from outside the scheduler breaks the sleep of the M blocked
// in the poller, and the break's event names no M (-1), not m1.
func TestMutationKillMechNetpollBreakFromOutside(t *testing.T) {
	s, events := oneProcRecorder(t, func(e Event) bool { return e.Kind == EvNetpollBreak })
	polled := goPollParked(t, s)
	for s.poll.nwait.Load() != 1 || s.lastpoll.Load() != 0 {
		runtime.Gosched() // the G parks; m0, with nothing to run, sleeps in the poller
	}
	if err := s.NetpollReady(polled()); err != nil {
		t.Fatal(err)
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
	if breaks := events(); len(breaks) == 0 || breaks[0].M != -1 || breaks[0].P != -1 {
		t.Fatalf("breaks %v: want the first from outside, M -1, P -1", breaks)
	}
}

// oneProcRecorder builds a concurrent scheduler with one P and no sysmon
// (so that nothing polls or retakes unless the test makes it) that keeps
// the events keep accepts; events returns them so far.
func oneProcRecorder(t *testing.T, keep func(Event) bool) (*Sched, func() []Event) {
	var mu sync.Mutex
	var evs []Event
	s := newTestSched(t, Config{Procs: 1, NoSysmon: true, Trace: func(e Event) {
		if keep(e) {
			mu.Lock()
			evs = append(evs, e)
			mu.Unlock()
		}
	}})
	return s, func() []Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]Event(nil), evs...)
	}
}

// goPollParked starts a G that parks on the poller (NetpollPark) and
// returns a function that gives the G, once it has run; the test waits for
// the park itself (poll.nwait).
func goPollParked(t *testing.T, s *Sched) func() *G {
	var mu sync.Mutex
	var polled *G
	if err := s.Go(func(tk Task) {
		mu.Lock()
		polled = tk.(*G)
		polled.NetpollPark(&mu)
	}); err != nil {
		t.Fatal(err)
	}
	return func() *G {
		mu.Lock()
		defer mu.Unlock()
		return polled
	}
}

// TestMutationKillMechReadyNilG kills impl/netpoll.go:87:10 and
// impl/sched.go:296:21 (seed 1137's full run), NetpollReady's and Ready's
// '!ok || g == nil || ...' -> '!ok && g == nil || ...': a nil *G is
// refused with an error like any Task not of this scheduler, not
// dereferenced.
func TestMutationKillMechReadyNilG(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1})
	for name, ready := range map[string]func(Task) error{
		"Ready":        s.Ready,
		"NetpollReady": func(tk Task) error { return s.NetpollReady(tk) },
	} {
		var err error
		if msg := catchPanic(func() { err = ready((*G)(nil)) }); msg != "" || err == nil {
			t.Errorf("%s of a nil *G: panic %q, error %v; want an error", name, msg, err)
		}
	}
}

// TestMutationKillMechStopPreemptsRunning kills impl/stw.go's preemptall
// 'status == PRunning' -> '!=' (seed 1137's full run): the stop asks the
// G on every running P to yield, so a G that only yields when asked (a
// loop of Checkpoints) stops at its next one. Sysmon is off, so nothing
// else would ask it: without the request the stop waits for ever (here:
// until its time limit).
func TestMutationKillMechStopPreemptsRunning(t *testing.T) {
	s := newTestSched(t, Config{Procs: 2, NoSysmon: true})
	var running, stop atomic.Bool
	if err := s.Go(func(tk Task) {
		running.Store(true)
		for !stop.Load() {
			tk.Checkpoint()
		}
	}); err != nil {
		t.Fatal(err)
	}
	for !running.Load() {
		runtime.Gosched()
	}
	err := s.stopTheWorld(stwLimit)
	if err == nil {
		err = s.StartTheWorld()
	}
	stop.Store(true)
	if err != nil {
		t.Fatalf("stop with a G in a loop of Checkpoints: %v", err)
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
}

// TestMutationKillMechTimerSleepEventN kills impl/timers.go's
// EvTimerSleep N 'when - nanotime()' -> '+' (seed 1137's full run): the
// event's N is the time left to the timer, in µs, which cannot exceed the
// sleep asked for (the timer is set to the call's time plus d, and the
// event is emitted after). No timing is assumed: the bound holds however
// slowly the G runs.
func TestMutationKillMechTimerSleepEventN(t *testing.T) {
	const d = 50 * time.Millisecond
	s, events := oneProcRecorder(t, func(e Event) bool { return e.Kind == EvTimerSleep })
	if err := s.Go(func(tk Task) { tk.(TimerTask).Sleep(d) }); err != nil {
		t.Fatal(err)
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
	evs := events()
	if len(evs) != 1 || evs[0].N < 0 || evs[0].N > int32(d/time.Microsecond) {
		t.Fatalf("TimerSleep events %v: want one, N within 0..%d µs", evs, d/time.Microsecond)
	}
}

// TestMutationKillSchedTimerHeapOrder kills impl/timers.go's sift-down
// child choices (seed 1137's full run: the right child's 'h[r].when <
// h[m].when' negated): a P's timers leave the heap earliest first, whatever
// order they came in, so that checkTimers runs every due timer and sets
// the next wake-up from the true minimum. Random whens, with ties, under a
// fixed seed; minWhen follows the root.
func TestMutationKillSchedTimerHeapOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1137, 1))
	for round := range 50 {
		var ts timers
		n := 1 + rng.IntN(40)
		for i := range n {
			ts.add(timer{when: 1 + rng.Int64N(30), seq: uint64(i)})
		}
		last := int64(0)
		for i := range n {
			if w := ts.wakeTime(); w != ts.heap[0].when {
				t.Fatalf("round %d: minWhen %d, root %d", round, w, ts.heap[0].when)
			}
			tm := ts.pop()
			if tm.when < last {
				t.Fatalf("round %d: pop %d gave when %d after %d", round, i, tm.when, last)
			}
			last = tm.when
		}
		if len(ts.heap) != 0 || ts.wakeTime() != 0 {
			t.Fatalf("round %d: %d timers left, minWhen %d", round, len(ts.heap), ts.wakeTime())
		}
	}
}

// TestMutationKillMechDeadlockAfterLockedExit kills impl/locked.go's
// allMsIdleLocked '+ nmdead' -> '- nmdead' (seed 1137's full run): an M
// ended with its locked G (mexit) counts as not running, so once every
// other M idles with the remaining Gs parked, checkdead still reports the
// deadlock.
func TestMutationKillMechDeadlockAfterLockedExit(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1})
	var mu sync.Mutex
	if err := s.Go(func(tk Task) {
		tk.(*G).LockOSThread()
		tk.Go(func(tk Task) { // runs on a new M, made while m0 ends
			mu.Lock()
			tk.ParkUnlock("forever", &mu)
		})
		// The G exits locked: its M ends with it (mexit), and its slot
		// stays dead, the parked G's M already made.
	}); err != nil {
		t.Fatal(err)
	}
	ok, err := waitWithin(s, stwLimit)
	if !ok || !errors.Is(err, ErrDeadlock) {
		t.Fatalf("wait with the one live G parked after a locked exit: returned %v, %v; want ErrDeadlock", ok, err)
	}
	s.glob.Lock()
	dead := s.nmdead
	s.glob.Unlock()
	if dead != 1 {
		t.Fatalf("%d dead Ms, want 1: the test did not reach its case", dead)
	}
}

// TestMutationKillMechStaleTimerOnly kills impl/timers.go's runTimers
// 'len(due) > 0' -> '>= 0' (seed 1137's full run): a due timer whose G was
// readied another way before it fired is stale and readies nothing, so a
// check that pops only stale timers has no first G to report. Here the G
// sleeps, is readied from outside at once, and exits; its timer is then
// the P's only one, and is popped when due with nothing to run.
func TestMutationKillMechStaleTimerOnly(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1})
	pp := s.ps().allp[0]
	heapLen := func() int {
		pp.timers.mu.Lock()
		defer pp.timers.mu.Unlock()
		return len(pp.timers.heap)
	}
	var g *G
	var slept atomic.Bool
	if err := s.Go(func(tk Task) {
		g = tk.(*G)
		slept.Store(true)
		tk.(TimerTask).Sleep(20 * time.Millisecond)
	}); err != nil {
		t.Fatal(err)
	}
	for !slept.Load() || g.Status() != Gwaiting || heapLen() != 1 {
		runtime.Gosched()
	}
	if err := s.Ready(g); err != nil {
		t.Fatal(err)
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
	awaitSched(t, s, "the stale timer popped", func() bool { return heapLen() == 0 })
}

// TestMutationKillSchedRetakeLooksAtEveryP kills impl/sysmon.go's retake
// 'continue' past a P not running -> 'break' (seed 1137's full run): sysmon
// looks at every P, so a G running on p1 while p0 is idle is still asked
// to yield. Two Gs first spin without safe points (so neither can be
// preempted and moved) until each holds a P; p0's exits and p0 goes idle;
// then, with any request made before forgotten, p1's G starts calling
// Checkpoint and must be preempted.
func TestMutationKillSchedRetakeLooksAtEveryP(t *testing.T) {
	s := newTestSched(t, Config{Procs: 2})
	p1 := spinOnP1(t, s)
	p1.g.x.preempt.Store(false)
	before := s.Stats().Preempts
	p1.safe.Store(true)
	awaitSched(t, s, "sysmon preempting the G on p1 while p0 is idle", func() bool { return s.Stats().Preempts != before })
	p1.release.Store(true)
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
}

// TestMutationKillSchedSchedtraceWhileIdle kills impl/sysmon.go's deep
// sleep test 'SchedTrace <= 0 && every P idle' -> '||' (seed 1137's full
// run): with schedtrace on, sysmon does not deep-sleep, so the lines go on
// while the scheduler has nothing to run.
func TestMutationKillSchedSchedtraceWhileIdle(t *testing.T) {
	var out syncBuf
	s := newTestSched(t, Config{Procs: 2, SchedTrace: time.Millisecond, SchedTraceOut: &out})
	awaitSched(t, s, "three schedtrace lines while idle", func() bool {
		out.mu.Lock()
		defer out.mu.Unlock()
		return bytes.Count(out.b.Bytes(), []byte("\n")) >= 3
	})
}

// TestMutationKillSchedStealTimersLastPass kills impl/steal.go:99:11,
// 'last && stealTimers' -> '||' (seed 1137's full run): stealWork looks at
// a victim's timers only in its last pass, as the runtime does, so a scan
// whose one source of work is another P's due timer draws stealTries
// orders before it runs that timer's G. (The spec models the last pass
// only, so the driver's comparison cannot tell the passes apart.)
func TestMutationKillSchedStealTimersLastPass(t *testing.T) {
	d, err := NewDriver(Config{Procs: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Sched()
	defer s.Shutdown()
	ps := s.ps()
	g := NewG(50)
	g.status.Store(uint32(Gwaiting))
	p1 := ps.allp[1]
	p1.timers.mu.Lock()
	p1.timers.add(timer{when: 1, g: g, seq: g.x.sleepSeq.Add(1)})
	p1.timers.mu.Unlock()
	d.TimerTick()
	d.TimerTick() // the driver's clock past the timer
	m := &M{id: 99, rng: 7}
	m.p.Store(ps.allp[0])
	if n := scanDraws(s, m, func(int) {}); n != stealTries || g.Status() == Gwaiting {
		t.Fatalf("the scan drew %d orders and left the timer's G %v; want %d orders, the G readied in the last pass", n, g.Status(), stealTries)
	}
}

// TestMutationKillSchedClampN kills impl/proc.go:260:79 (seed 1136): the
// TimerSleep event's clamp of the sleep in ns, `1<<31-1` made `1<<31+1`,
// which a sleep over 2.1 s of the clock wrapped to a negative N. The
// clamp is clampN now, shared with clampMicros; both are checked at
// their bounds.
func TestMutationKillSchedClampN(t *testing.T) {
	for _, c := range []struct {
		in   int64
		want int32
	}{
		{-5, 0}, {0, 0}, {7, 7}, {math.MaxInt32, math.MaxInt32},
		{math.MaxInt32 + 1, math.MaxInt32}, {math.MaxInt32 + 2, math.MaxInt32}, {math.MaxInt64, math.MaxInt32},
	} {
		if got := clampN(c.in); got != c.want {
			t.Errorf("clampN(%d) = %d, want %d", c.in, got, c.want)
		}
	}
	if got := clampMicros(3 * int64(time.Hour)); got != math.MaxInt32 {
		t.Errorf("clampMicros(3h) = %d, want MaxInt32 (3h is past 2^31 µs)", got)
	}
	if got := clampMicros(2500); got != 2 {
		t.Errorf("clampMicros(2500 ns) = %d, want 2", got)
	}
}

// TestMutationKillMechSetProcsUpToMaxMs kills impl/procresize.go's
// SetProcs n > MaxMs -> n >= MaxMs: GOMAXPROCS may be as large as the M
// limit (each P needs an M to run), not one less, and no larger.
func TestMutationKillMechSetProcsUpToMaxMs(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1, MaxMs: 3})
	if old, err := s.SetProcs(3); err != nil || old != 1 {
		t.Fatalf("SetProcs(3) with MaxMs 3 = %d, %v; want 1, nil", old, err)
	}
	if _, err := s.SetProcs(4); err == nil {
		t.Fatal("SetProcs(4) with MaxMs 3 succeeded")
	}
	if n := s.Procs(); n != 3 {
		t.Fatalf("after a refused SetProcs, %d Ps; want 3", n)
	}
}

// TestMutationKillMechAbandonedStopRestartsLowerPs kills impl/stw.go's
// startTheWorldSection 'continue' -> 'break' past a P not stopped: a stop
// abandoned at its time limit (a G that never reaches a safe point) leaves
// that P running, and the restart must still restart every P that did
// stop, below it as above it. Here p1 never stops and p0, idle, did: after
// the restart p0 must be idle again, not left in _Pgcstop for good.
func TestMutationKillMechAbandonedStopRestartsLowerPs(t *testing.T) {
	s := newTestSched(t, Config{Procs: 2})
	p1 := spinOnP1(t, s)
	if err := s.stopTheWorld(100 * time.Millisecond); !errors.Is(err, errSTWTimeout) {
		t.Fatalf("stop with p1's G spinning: %v, want the time limit", err)
	}
	st := s.ps().allp[0].status.Load()
	p1.release.Store(true)
	if st == pGCStop {
		t.Fatal("after the abandoned stop p0 is still stopped: the restart skipped it")
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
}

// p1Spinner is spinOnP1's G on p1 and its controls: with safe set it calls
// Checkpoint in its loop; with release set it returns.
type p1Spinner struct {
	g             *G
	safe, release atomic.Bool
}

// spinOnP1 starts two Gs on s (two Ps) that spin with no safe point, so
// that neither can be preempted and moved, waits until each holds a P,
// lets p0's G exit and waits for p0 to go idle: one G left, on p1, and p0
// idle below it. The test's cleanup releases the G before Shutdown, which
// would otherwise wait for ever on a G that never yields.
func spinOnP1(t *testing.T, s *Sched) *p1Spinner {
	t.Helper()
	var sp [2]p1Spinner
	var on [2]atomic.Bool
	t.Cleanup(func() { sp[0].release.Store(true); sp[1].release.Store(true) })
	for range 2 {
		if err := s.Go(func(tk Task) {
			g := tk.(*G)
			p := g.x.m.p.Load().id // stable: no safe point until safe is set
			sp[p].g = g
			on[p].Store(true)
			for !sp[p].release.Load() {
				if sp[p].safe.Load() {
					tk.Checkpoint()
				}
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	awaitSched(t, s, "a spinning G on each P", func() bool { return on[0].Load() && on[1].Load() })
	sp[0].release.Store(true)
	awaitSched(t, s, "p0 idle once its G exits", func() bool {
		return spec.PStatus(s.ps().allp[0].status.Load()) == spec.PIdle
	})
	return &sp[1]
}

// TestMutationKillMechStartTheWorldPollsNetwork kills impl/stw.go's
// startTheWorldSection nready != 0 -> == 0: the restart polls the network
// first (netpoll(0), injectglist) so that a G whose I/O became ready while
// the world was stopped is queued before the Ps restart. With one P, no
// sysmon, and the one M in a syscall since before any M could go idle (so
// none sleeps in the poller), nobody else can poll meanwhile: the G must
// be injected (InjectGList) between the StopTheWorld and StartTheWorld
// events, not found by the restart's spinning M afterwards.
func TestMutationKillMechStartTheWorldPollsNetwork(t *testing.T) {
	s, events := oneProcRecorder(t, func(e Event) bool { return e.Kind == EvAction })
	polled := goPollParked(t, s)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before Shutdown, which waits for the M in the syscall
	var inSyscall atomic.Bool
	if err := s.Go(func(tk Task) {
		for s.poll.nwait.Load() != 1 {
			tk.Gosched() // the other G runs and parks on the poller
		}
		tk.Syscall(func() { inSyscall.Store(true); <-release })
	}); err != nil {
		t.Fatal(err)
	}
	for !inSyscall.Load() {
		runtime.Gosched()
	}
	if err := s.StopTheWorld(); err != nil {
		t.Fatal(err)
	}
	g := polled()
	if err := s.NetpollReady(g); err != nil {
		t.Fatal(err)
	}
	if err := s.StartTheWorld(); err != nil {
		t.Fatal(err)
	}
	free()
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
	evs := events()
	stop, inject, start := -1, -1, -1
	for i, e := range evs {
		switch {
		case e.Action == spec.ActStopTheWorld && stop < 0:
			stop = i
		case e.Action == spec.ActInjectGList && e.G == g.goid && stop >= 0 && inject < 0:
			inject = i
		case e.Action == spec.ActStartTheWorld && start < 0:
			start = i
		}
	}
	if stop < 0 || start < 0 || inject < stop || inject > start {
		t.Errorf("StopTheWorld at event %d, InjectGList of g%d at %d, StartTheWorld at %d: want the restart's netpoll to inject it in between (events %v)", stop, g.goid, inject, start, evs)
	}
}

// TestMutationKillMechPollerReturnsSeveral kills impl/netpollblock.go's
// injectNoPLocked loop 'n > 0' -> '>=' (256:10) and 'n--' -> 'n++'
// (256:16), and netpollWakeStep's 'Netpolled.Add(1 + q.Len())' -> '1 -'
// (192:35), seed 1137's full run. The spec's poller returns one G, so the
// driver comparison never has the poller return several; here the Driver
// is stepped by hand to do it. With four Ps, three Gs parked on the poller
// and every M idle but the one asleep in the poller, all three Gs' events
// arrive before it wakes: it takes a P and runs the first, and injectglist
// queues the other two and starts exactly one M for each (startIdle), so
// one P of the four stays idle, and Netpolled counts three.
func TestMutationKillMechPollerReturnsSeveral(t *testing.T) {
	d, err := NewDriver(Config{Procs: 4})
	if err != nil {
		t.Fatal(err)
	}
	d.UseNetpoll(false)
	s := d.Sched()
	gs := []*G{d.Main()}
	for i := 0; i < 2; i++ {
		g, err := d.NewProc(0)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	// Every G parks on the poller as it runs; every M steps until it is
	// idle or asleep in the poller.
	for moved, steps := true, 0; moved; steps++ {
		if steps == 1000 {
			t.Fatal("the Ms did not settle in 1000 rounds")
		}
		moved = false
		for i, m := range s.allm {
			switch m.pc {
			case spec.MIdle, spec.MLockedWait, spec.MNetpoll:
				continue
			case spec.MRun:
				err = d.Park(i)
			default:
				err = d.Step(i)
			}
			if err != nil {
				t.Fatal(err)
			}
			moved = true
		}
	}
	pm := d.poller()
	if pm == nil || s.npidle.Load() != 4 {
		t.Fatalf("settled with poller %v and %d idle Ps; want an M in the poller and 4", pm, s.npidle.Load())
	}
	for _, g := range gs {
		if err := s.NetpollReady(g); err != nil {
			t.Fatal(err)
		}
	}
	d.pollerShell() // the first event's break ends the sleep
	if pm.pc != spec.MNetpollRet {
		t.Fatalf("the poller is %v after the events; want it back from netpoll", pm.pc)
	}
	if err := d.Step(int(pm.id)); err != nil { // netpoll returns the three Gs
		t.Fatal(err)
	}
	if err := d.Step(int(pm.id)); err != nil { // pidleget, injectglist of two
		t.Fatal(err)
	}
	if pm.pc != spec.MRun {
		t.Fatalf("the poller is %v; want it running the first G", pm.pc)
	}
	started := 0
	for _, m := range s.allm {
		if m != pm && m.pc == spec.MSched {
			started++
		}
	}
	if n := s.npidle.Load(); n != 1 || started != 2 {
		t.Errorf("after the poller injected 2 Gs: %d idle Ps and %d Ms started; want 1 and 2 (one M per injected G)", n, started)
	}
	if n := s.counters.Netpolled.Load(); n != 3 {
		t.Errorf("Netpolled %d after one netpoll returned 3 Gs; want 3", n)
	}
}

// TestMutationKillSchedShutdownSettlesCounts kills impl/carrier.go:29:11
// (handM's 'carried++' -> '--') and impl/sched.go:380:19 (Shutdown's
// 'nmidlelocked--' for a locked M it wakes -> '++'), seed 1137's full run.
// Neither changes what a G sees before Shutdown: the first lets Shutdown
// stop waiting for the carriers at once (which only the race detector saw,
// on a G's kill flag), the second leaves checkdead's count of Ms wrong
// while the Ms exit. Both leave a count that Shutdown settles wrong: once
// it returns, no M is idle or parked locked, and no goroutine carries an
// M. Here an M is parked in stoplockedm (its G locked and parked) and
// others are idle or carried when Shutdown runs.
func TestMutationKillSchedShutdownSettlesCounts(t *testing.T) {
	s := newTestSched(t, Config{Procs: 2})
	var locked parkSlot
	if err := s.Go(func(tk Task) {
		tk.(ThreadTask).LockOSThread()
		locked.park(tk, "locked")
	}); err != nil {
		t.Fatal(err)
	}
	var others [4]parkSlot
	for i := range others {
		if err := s.Go(func(tk Task) { others[i].park(tk, "other") }); err != nil {
			t.Fatal(err)
		}
	}
	awaitSched(t, s, "the locked G's M parks in stoplockedm", func() bool {
		s.glob.Lock()
		defer s.glob.Unlock()
		return s.nmidlelocked == 1
	})
	for i := range others { // readied Gs have goroutines: carriers hand Ms to them
		awaitSched(t, s, "a G parks", func() bool { return others[i].get() != nil })
		if err := s.Ready(others[i].get()); err != nil {
			t.Fatal(err)
		}
	}
	s.Shutdown()
	s.glob.Lock()
	nmidle, nmidlelocked := s.nmidle, s.nmidlelocked
	s.glob.Unlock()
	s.cmu.Lock()
	carried := s.carried
	s.cmu.Unlock()
	if nmidle != 0 || nmidlelocked != 0 || carried != 0 {
		t.Errorf("after Shutdown: nmidle %d, nmidlelocked %d, carried %d; want all 0", nmidle, nmidlelocked, carried)
	}
}

// allMsIdle reports, under sched.lock, whether every M is idle (parked in
// stopm or stoplockedm, or gone): the state in which checkdead decides.
func allMsIdle(s *Sched) bool {
	s.glob.Lock()
	defer s.glob.Unlock()
	return s.allMsIdleLocked()
}

// TestMutationKillSchedCheckdeadNoLiveG kills impl/proc.go:351:49,
// checkdead's 'nlive == 0 || det' -> '&&' (seed 1137's full run): once
// every G has exited, the last M going idle is no deadlock. The mutant
// records one anyway; Wait, which looks at nlive first, hides it, until a
// later Go makes nlive 1 and a Wait in the window before the new G's M
// starts (and clears the verdict) returns a deadlock that is not there.
// So the test looks at the verdict itself once every M is idle.
func TestMutationKillSchedCheckdeadNoLiveG(t *testing.T) {
	s := newTestSched(t, Config{Procs: 2})
	for i := 0; i < 3; i++ {
		if err := s.Go(func(Task) {}); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
	awaitSched(t, s, "every M idle", func() bool { return allMsIdle(s) })
	s.waitMu.Lock()
	err := s.deadErr
	s.waitMu.Unlock()
	if s.dead.Load() || err != nil {
		t.Fatalf("no G alive, every M idle: deadlock verdict %v (%v); want none", s.dead.Load(), err)
	}
}

// TestMutationKillSchedCheckdeadWhileSysmonHolds kills impl/proc.go:351:58,
// checkdead's 'det || sysmonHeld != 0' -> '&&' (seed 1137's full run):
// while sysmon holds a P it retook from a syscall (between its Retake and
// its RetakeHandoff), every M may be idle with a G runnable, and that is no
// lost wakeup, since the hand-off is still to come. Sysmon is off and the
// test takes its two steps itself: the Retake of p0 from a G in a syscall,
// the syscall's end without a P (the G queued globally, its M idle), then,
// after the verdict is looked at, the RetakeHandoff, which starts an M for
// the G.
func TestMutationKillSchedCheckdeadWhileSysmonHolds(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1, NoSysmon: true})
	release := make(chan struct{})
	var inSyscall atomic.Bool
	if err := s.Go(func(tk Task) {
		tk.Syscall(func() { inSyscall.Store(true); <-release })
	}); err != nil {
		t.Fatal(err)
	}
	awaitSched(t, s, "the G enters its syscall", inSyscall.Load)
	p0 := s.ps().allp[0]
	if !s.retakeTakeP(p0, func(bool) bool { return true }) {
		t.Fatal("retake of p0 from the syscall refused")
	}
	close(release)
	awaitSched(t, s, "the syscall ends without a P and its M goes idle", func() bool {
		return allMsIdle(s) && s.globNonEmpty()
	})
	dead := s.dead.Load()
	s.retakeHandoff(p0)
	if dead {
		t.Errorf("deadlock verdict while sysmon held p0; want none until its hand-off")
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait after the hand-off: %v, %v", ok, err)
	}
}

// TestMutationKillSchedHoldInSyscallUndo kills impl/syscall.go:212:23,
// holdInSyscall's undo 'casStatus(Gsyscall|gscan, Gsyscall)' ->
// 'Gsyscall&gscan' (seed 1137's full run). Sysmon and a stop-the-world
// both take a syscall's P this way, and one can read pp.m just before the
// other takes the P: the M then no longer holds pp when the scan bit is
// won. That state is built here directly (pp.m names the M, the M's p is
// nil, its G in a syscall): holdInSyscall must refuse and leave the G as
// it found it. With the scan bit left set, the G's exitsyscall, which
// waits for the bit to clear, would never return.
func TestMutationKillSchedHoldInSyscallUndo(t *testing.T) {
	g := &G{}
	g.SetStatus(Gsyscall)
	m := &M{}
	m.curg.Store(g)
	pp := &P{}
	pp.m.Store(m)
	if hm, hg, ok := holdInSyscall(pp); ok || hm != nil || hg != nil {
		t.Fatalf("holdInSyscall of a P its M has left: %v, %v, %v; want a refusal", hm, hg, ok)
	}
	if st := g.Status(); st != Gsyscall {
		t.Fatalf("the G is %v after the refusal; want %v, as it was", st, Gsyscall)
	}
}

// TestMutationKillSchedRetakeGraceTick kills impl/sysmon.go:134:64,
// retake's first-sight test 'pd.syscalltick != t' -> '==' (seed 1137's
// full run): the first time sysmon sees a syscall (its P's syscalltick
// moved since the last look) it gives it one tick; it may take the P only
// on a later look that sees the same syscall. The mutant takes it at first
// sight and then, while the syscall lasts, never. As in
// TestMutationKillSchedRetakeAfterForcePreempt the passes are played on
// the Driver with chosen times, the time slice long enough that no
// preemption request decides instead: a pass in g1's second syscall must
// not take p0, and one 20 ms later (a long syscall by sysmonLongNS) must.
func TestMutationKillSchedRetakeGraceTick(t *testing.T) {
	d := syscallSysmonMissed(t, Config{ForcePreempt: time.Hour})
	s := d.Sched()
	if err := d.EnterSyscall(0); err != nil {
		t.Fatal(err)
	}
	now := time.Minute
	if n := s.retake(now); n != 0 {
		t.Fatalf("sysmon's first sight of the syscall took %d Ps; want none (a tick's grace)", n)
	}
	if n := s.retake(now + 2*sysmonLongNS); n != 1 {
		t.Fatalf("sysmon's second sight of the syscall, %v later, took %d Ps; want p0", 2*sysmonLongNS, n)
	}
}

// TestMutationKillSchedSysmonDeepSleeps kills impl/sysmon.go:24:28,
// 'sysmonDeepSleep = 60 * time.Second' -> '60 / time.Second' (seed 1137's
// full run): with every P idle and nothing to wake it, sysmon sleeps deep
// (sysmonOn set) for up to a minute. The mutant's deep sleep is 0, so
// sysmon goes on polling while the scheduler is idle, leaving the deep
// sleep at once each round. The window watched (100 ms) only bounds how
// long the mutant has to show itself: the deep sleep outlasts it 600
// times, and nothing in the test wakes sysmon.
func TestMutationKillSchedSysmonDeepSleeps(t *testing.T) {
	s := newTestSched(t, Config{Procs: 2})
	if err := s.Go(func(Task) {}); err != nil {
		t.Fatal(err)
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("wait: %v, %v", ok, err)
	}
	awaitSched(t, s, "sysmon's deep sleep", s.sysmonOn.Load)
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
		if !s.sysmonOn.Load() {
			t.Fatal("sysmon left its deep sleep with every P idle and nothing to wake it")
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// TestMutationKillMechPollerSleepsUntilTimer kills impl/netpollblock.go:159:33
// (ARITHMETIC_BASE and INVERT_NEGATIVES, both 'pollUntil - nanotime()' ->
// '+', seed 1137's full run): the M blocked in the poller for a sleeping
// G's timer sleeps until the timer is due, measured from now. The mutant
// sleeps for the due time plus the scheduler's age, which the tests'
// young schedulers keep to milliseconds; here the scheduler is made an
// hour old first (its clock's origin moved back before any G runs), so
// the mutant's poller sleeps for hours past a 1 ms sleep and the wait hits
// its bound. One P and no sysmon: only the poller's own timeout can run
// the G again.
func TestMutationKillMechPollerSleepsUntilTimer(t *testing.T) {
	s := newTestSched(t, Config{Procs: 1, NoSysmon: true})
	s.start = s.start.Add(-time.Hour)
	if err := s.Go(func(tk Task) { tk.(TimerTask).Sleep(time.Millisecond) }); err != nil {
		t.Fatal(err)
	}
	if ok, err := waitWithin(s, stwLimit); !ok || err != nil {
		t.Fatalf("a 1 ms sleep did not end within %v (%v, %v)", stwLimit, ok, err)
	}
}
