package impl

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/spec"
	"go.uber.org/goleak"
)

// The runtime-style tests of LockOSThread and entersyscallblock, in the
// spirit of the runtime's TestLockOSThread*: on the real concurrent
// scheduler, in each shell.

// lockShells are the configurations a locked G must behave the same in:
// the carrier shell, the hand-off shell, and the hand-off shell with each
// M pinned to an OS thread.
var lockShells = []struct {
	name string
	cfg  Config
}{
	{"carrier", Config{}},
	{"handoff", Config{HandoffShell: true}},
	{"pinned", Config{PinThreads: true}},
}

// curM is the M the calling G runs on (only the G itself may ask).
func curM(tk Task) *M { return tk.(*G).x.m }

// lockedSet records which Ms are locked to a G right now, so that the
// other Gs can check that none of them ever runs on one.
type lockedSet struct {
	mu  sync.Mutex
	ms  map[*M]*G
	err error
}

func newLockedSet() *lockedSet { return &lockedSet{ms: map[*M]*G{}} }

func (l *lockedSet) fail(format string, args ...any) {
	l.mu.Lock()
	if l.err == nil {
		l.err = fmt.Errorf(format, args...)
	}
	l.mu.Unlock()
}

// lock locks tk to its M and records it.
func (l *lockedSet) lock(tk Task) *M {
	tk.(ThreadTask).LockOSThread()
	m := curM(tk)
	l.mu.Lock()
	if g := l.ms[m]; g != nil {
		l.err = fmt.Errorf("%v locked to m%d, which %v holds locked", tk, m.id, g)
	}
	l.ms[m] = tk.(*G)
	l.mu.Unlock()
	return m
}

// unlock forgets tk's lock and unlocks it.
func (l *lockedSet) unlock(tk Task) {
	l.mu.Lock()
	delete(l.ms, curM(tk))
	l.mu.Unlock()
	tk.(ThreadTask).UnlockOSThread()
}

// onM checks that the locked G tk still runs on m, and that m runs it.
func (l *lockedSet) onM(tk Task, m *M, where string) {
	if got := curM(tk); got != m || m.curg.Load() != tk.(*G) {
		l.fail("%v locked to m%d runs on m%d after %s", tk, m.id, got.id, where)
	}
}

// unlocked checks that the unlocked G tk does not run on a locked M.
func (l *lockedSet) unlocked(tk Task, where string) {
	m := curM(tk)
	l.mu.Lock()
	if g := l.ms[m]; g != nil {
		if l.err == nil {
			l.err = fmt.Errorf("%v runs on m%d, locked to %v, after %s", tk, m.id, g, where)
		}
	}
	l.mu.Unlock()
}

// TestLockOSThreadStaysOnItsM: a locked G comes back to its own M after
// every way of leaving it (Gosched, a park and another G's Ready, a park
// and an outside Ready, a syscall, a blocking syscall, a preemption), and
// no other G runs on that M meanwhile, while unlocked Gs keep every P
// busy.
func TestLockOSThreadStaysOnItsM(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells {
		for _, procs := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%s/procs=%d", sh.name, procs), func(t *testing.T) {
				cfg := sh.cfg
				cfg.Procs = procs
				cfg.ForcePreempt = 50 * time.Microsecond
				s := newTestSched(t, cfg)
				ls := newLockedSet()
				var stop atomic.Bool
				const locked, rounds = 4, 30
				outs := make([]parkSlot, locked)
				for i := 0; i < locked; i++ {
					out := &outs[i]
					s.Go(func(tk Task) {
						m := ls.lock(tk)
						for r := 0; r < rounds; r++ {
							tk.Gosched()
							ls.onM(tk, m, "Gosched")
							partner := &parkSlot{}
							tk.Go(func(h Task) {
								ls.unlocked(h, "start")
								h.Ready(partner.await(h))
							})
							partner.park(tk, "partner")
							ls.onM(tk, m, "Park and Ready")
							tk.Syscall(func() { time.Sleep(10 * time.Microsecond) })
							ls.onM(tk, m, "Syscall")
							tk.(ThreadTask).SyscallBlock(func() { time.Sleep(10 * time.Microsecond) })
							ls.onM(tk, m, "SyscallBlock")
							// Run long enough for sysmon to preempt it.
							for start := time.Now(); time.Since(start) < 200*time.Microsecond; {
								tk.Checkpoint()
							}
							ls.onM(tk, m, "Checkpoint")
						}
						// The last round: parked until the test readies it
						// from outside the scheduler.
						out.park(tk, "outside")
						ls.onM(tk, m, "an outside Ready")
						ls.unlock(tk)
					})
				}
				for i := 0; i < 2*procs; i++ {
					s.Go(func(tk Task) {
						for !stop.Load() {
							ls.unlocked(tk, "Gosched")
							tk.Gosched()
						}
					})
				}
				// Ready each locked G from outside once it has parked there
				// (ParkUnlock: it is waiting once the slot shows it).
				for i := range outs {
					for outs[i].get() == nil {
						time.Sleep(50 * time.Microsecond)
					}
					if err := s.Ready(outs[i].get()); err != nil {
						t.Fatal(err)
					}
				}
				for s.Live() > int64(2*procs) {
					time.Sleep(100 * time.Microsecond)
				}
				stop.Store(true)
				if err := s.Wait(); err != nil {
					t.Fatal(err)
				}
				if ls.err != nil {
					t.Fatal(ls.err)
				}
			})
		}
	}
}

// TestLockOSThreadNested: locks nest as the runtime's do, and UnlockOSThread
// without a lock does nothing.
func TestLockOSThreadNested(t *testing.T) {
	var acts []spec.ActionKind
	var mu sync.Mutex
	s := newTestSched(t, Config{Procs: 1, Trace: func(e Event) {
		if e.Kind == EvAction && (e.Action == spec.ActLockOSThread || e.Action == spec.ActUnlockOSThread) {
			mu.Lock()
			acts = append(acts, e.Action)
			mu.Unlock()
		}
	}})
	var got []bool
	s.Go(func(tk Task) {
		g := tk.(ThreadTask)
		m := curM(tk)
		g.UnlockOSThread() // not locked: nothing
		g.LockOSThread()
		g.LockOSThread()
		got = append(got, m.lockedg == tk)
		g.UnlockOSThread()
		got = append(got, m.lockedg == tk)
		g.UnlockOSThread()
		got = append(got, m.lockedg == tk)
	})
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[true true false]" {
		t.Fatalf("locked after lock, lock, unlock, unlock: %v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(acts) != 2 || acts[0] != spec.ActLockOSThread || acts[1] != spec.ActUnlockOSThread {
		t.Fatalf("events %v, want one LockOSThread and one UnlockOSThread", acts)
	}
}

// TestLockedGExitEndsItsM: a G that exits locked takes its M with it (the
// M is gone, its P handed off), and the scheduler goes on running the
// other Gs; Ms that end this way leave their slots to new Ms, so a
// thousand locked exits do not make a thousand Ms.
func TestLockedGExitEndsItsM(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/procs=%d", sh.name, procs), func(t *testing.T) {
				cfg := sh.cfg
				cfg.Procs = procs
				var exits atomic.Int64
				cfg.Trace = func(e Event) {
					if e.Kind == EvAction && e.Action == spec.ActGoExit {
						exits.Add(1)
					}
				}
				s := newTestSched(t, cfg)
				var mu sync.Mutex
				var gone []*M
				var ran atomic.Int64
				const n = 300
				// A chain of locked Gs, each starting the next before it
				// exits, so that few Ms live at a time.
				var link func(i int) func(Task)
				link = func(i int) func(Task) {
					return func(tk Task) {
						tk.(ThreadTask).LockOSThread()
						m := curM(tk)
						tk.Gosched()
						mu.Lock()
						gone = append(gone, m)
						mu.Unlock()
						tk.Go(func(h Task) { ran.Add(1) })
						if i+1 < n {
							tk.Go(link(i + 1))
						}
						// Exits locked: m ends. Its children run elsewhere.
					}
				}
				s.Go(link(0))
				if err := s.Wait(); err != nil {
					t.Fatal(err)
				}
				// The last locked G's M may still be in mexit when its
				// child's exit ends Wait.
				alive := func() (n int, nm int) {
					s.glob.Lock()
					defer s.glob.Unlock()
					for _, m := range gone {
						if !m.dead {
							n++
						}
					}
					return n, len(s.allm)
				}
				n0, nm := alive()
				for deadline := time.Now().Add(10 * time.Second); n0 > 0 && time.Now().Before(deadline); n0, nm = alive() {
					time.Sleep(100 * time.Microsecond)
				}
				if n0 > 0 {
					t.Errorf("%d Ms whose locked G exited are still there", n0)
				}
				if ran.Load() != n || exits.Load() != 2*n {
					t.Fatalf("%d of %d children ran, %d exits", ran.Load(), n, exits.Load())
				}
				// Without the reuse of free slots there would be an M per
				// locked G.
				if nm > 8*procs {
					t.Fatalf("%d Ms for %d locked exits on %d Ps: slots not reused", nm, n, procs)
				}
				// The scheduler goes on.
				for i := 0; i < 50; i++ {
					s.Go(func(tk Task) { tk.Gosched(); ran.Add(1) })
				}
				if err := s.Wait(); err != nil || ran.Load() != n+50 {
					t.Fatalf("after the exits: Wait=%v, %d ran", err, ran.Load())
				}
			})
		}
	}
}

// TestLockOSThreadUnderLoad: many Gs lock and unlock (nested), park each
// other, yield and make syscalls, while as many unlocked Gs do the same;
// no G ever runs on an M locked to another, and everything finishes.
func TestLockOSThreadUnderLoad(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells {
		t.Run(sh.name, func(t *testing.T) {
			cfg := sh.cfg
			cfg.Procs = 4
			cfg.ForcePreempt = 100 * time.Microsecond
			var count [64]atomic.Int64
			cfg.Trace = func(e Event) {
				if e.Kind == EvAction {
					count[e.Action].Add(1)
				}
			}
			s := newTestSched(t, cfg)
			ls := newLockedSet()
			const pairs, rounds = 40, 20
			for i := 0; i < pairs; i++ {
				lockedToo := i%2 == 0
				s.Go(func(tk Task) {
					var slot parkSlot
					tk.Go(func(h Task) {
						for r := 0; r < rounds; r++ {
							g := slot.await(h)
							slot.mu.Lock()
							slot.g = nil // before the Ready: g parks here again
							slot.mu.Unlock()
							h.Ready(g)
							ls.unlocked(h, "Ready")
							if r%5 == 0 {
								h.(ThreadTask).SyscallBlock(func() {})
								ls.unlocked(h, "SyscallBlock")
							}
						}
					})
					for r := 0; r < rounds; r++ {
						lock := lockedToo || r%3 == 0
						var m *M
						if lock {
							m = ls.lock(tk)
							tk.(ThreadTask).LockOSThread() // nested
						}
						slot.park(tk, "pair")
						if lock {
							ls.onM(tk, m, "Park")
							tk.Syscall(func() {})
							ls.onM(tk, m, "Syscall")
							tk.Gosched()
							ls.onM(tk, m, "Gosched")
							tk.(ThreadTask).UnlockOSThread()
							ls.onM(tk, m, "inner UnlockOSThread")
							ls.unlock(tk)
						} else {
							ls.unlocked(tk, "Park")
						}
					}
				})
			}
			if ok, err := waitWithin(s, 60*time.Second); !ok {
				t.Fatalf("not done after 60s: %s", s.SchedTrace())
			} else if err != nil {
				t.Fatal(err)
			}
			if ls.err != nil {
				t.Fatal(ls.err)
			}
			for _, k := range []spec.ActionKind{spec.ActLockOSThread, spec.ActUnlockOSThread, spec.ActStopLockedM, spec.ActStartLockedM, spec.ActEnterSyscallBlock} {
				if count[k].Load() == 0 {
					t.Errorf("no %v", k)
				}
			}
		})
	}
}

// TestLockedDeadlock: checkdead counts an M parked in stoplockedm as idle,
// so a locked G parked for ever is a deadlock like any other; an outside
// Ready revives it, on its M.
func TestLockedDeadlock(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newTestSched(t, Config{Procs: 2})
	var slot parkSlot
	var m0, m1 *M
	s.Go(func(tk Task) {
		tk.(ThreadTask).LockOSThread()
		m0 = curM(tk)
		slot.park(tk, "forever")
		m1 = curM(tk)
	})
	if err := s.Wait(); !errors.Is(err, ErrDeadlock) {
		t.Fatalf("Wait = %v, want %v", err, ErrDeadlock)
	}
	if err := s.Ready(slot.get()); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	s.Shutdown()
	if m0 != m1 {
		t.Fatalf("the locked G parked on m%d and came back on m%d", m0.id, m1.id)
	}
}

// TestSyscallBlockHandsOffP: with one P and no sysmon (nobody retakes a P
// from a syscall), a G in SyscallBlock has already given its P away: the
// other Gs run, and it is they that end the syscall. With Syscall instead
// the same program would hang.
func TestSyscallBlockHandsOffP(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, sh := range lockShells {
		t.Run(sh.name, func(t *testing.T) {
			cfg := sh.cfg
			cfg.Procs = 1
			cfg.NoSysmon = true
			s := newTestSched(t, cfg)
			release := make(chan struct{})
			var once sync.Once
			var others atomic.Int64
			var after atomic.Bool
			s.Go(func(tk Task) {
				for i := 0; i < 20; i++ {
					tk.Go(func(h Task) {
						h.Gosched()
						if others.Add(1) == 20 {
							once.Do(func() { close(release) })
						}
					})
				}
				// The children are on this P's queue; only a handoff lets
				// them run while this G blocks.
				tk.(ThreadTask).SyscallBlock(func() { <-release })
				after.Store(others.Load() == 20)
			})
			if ok, err := waitWithin(s, 20*time.Second); !ok {
				once.Do(func() { close(release) }) // let it end, then report
				t.Fatalf("the blocking syscall kept its P: %d of 20 others ran", others.Load())
			} else if err != nil {
				t.Fatal(err)
			}
			if !after.Load() {
				t.Fatal("the G returned from its syscall before the others ran")
			}
		})
	}
}

// TestSyscallBlockDriver: entersyscallblock in the driver hands the P off
// in the same step (here to a new M, since the P has work), and the G,
// back from the call with no idle P, takes exitsyscall's slow path.
func TestSyscallBlockDriver(t *testing.T) {
	d, err := NewDriver(Config{Procs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.NewProc(0); err != nil {
		t.Fatal(err)
	}
	d.Actions()
	if err := d.EnterSyscallBlock(0); err != nil {
		t.Fatal(err)
	}
	acts := d.Actions()
	if len(acts) != 1 || acts[0].Action != spec.ActEnterSyscallBlock {
		t.Fatalf("actions %v, want EnterSyscallBlock", acts)
	}
	sn := d.Sched().Snapshot()
	if sn.Ms[0].P != -1 || d.Main().Status() != Gsyscall || len(sn.Ms) != 2 || sn.Ms[1].P != 0 || sn.Ms[1].PC != spec.MSched {
		t.Fatalf("want g1 in its syscall without a P and p0 handed to m1: %+v", sn.Ms)
	}
	if err := d.ExitSyscall(0); err != nil {
		t.Fatal(err)
	}
	if acts := d.Actions(); len(acts) != 1 || acts[0].Action != spec.ActExitSyscallNoP {
		t.Fatalf("actions %v, want ExitSyscallNoP", acts)
	}
}
