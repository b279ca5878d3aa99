package interleave

import (
	"fmt"
	"math/bits"
	"strings"
)

// Schedule is the actor that takes each step, in order. Its String form,
// one digit per step ("0010110"), is what a failure prints and what Replay
// and 'gmpcheck interleave -replay' accept.
type Schedule []int

func (s Schedule) String() string {
	var b strings.Builder
	for _, a := range s {
		b.WriteByte(byte('0' + a))
	}
	return b.String()
}

// ParseSchedule reads a schedule's String form. Spaces, commas and dots
// are ignored so long schedules can be grouped.
func ParseSchedule(text string) (Schedule, error) {
	var s Schedule
	for i, c := range text {
		switch {
		case c >= '0' && c <= '9':
			s = append(s, int(c-'0'))
		case c == ' ' || c == ',' || c == '.' || c == '\n' || c == '\t':
		default:
			return nil, fmt.Errorf("schedule: character %q at %d is not an actor digit 0-9", c, i)
		}
	}
	return s, nil
}

// keepRunning is the default choice: the actor that took the last step if
// it can still move, else the lowest-numbered runnable one. Preferring the
// running actor gives executions with few context switches first.
func keepRunning(enabled uint16, last int) int {
	if last >= 0 && enabled&(1<<last) != 0 {
		return last
	}
	return bits.TrailingZeros16(enabled)
}

// Follow returns a Chooser that takes the steps of s exactly, an error if s
// names an actor that cannot move, and keepRunning once s is used up (a
// schedule prefix is enough to steer an execution).
func Follow(s Schedule) Chooser {
	return func(pos int, enabled uint16, last int) (int, error) {
		if pos < len(s) {
			if enabled&(1<<s[pos]) == 0 {
				return 0, fmt.Errorf("schedule: step %d names actor %d, which cannot move (runnable: %s)", pos, s[pos], maskString(enabled))
			}
			return s[pos], nil
		}
		return keepRunning(enabled, last), nil
	}
}

// FromBytes returns a Chooser that reads one byte per step and picks the
// (b mod n)-th of the n runnable actors, so that every byte string is a
// valid schedule (what a fuzzer needs); once the bytes run out it keeps
// the running actor.
func FromBytes(data []byte) Chooser {
	return func(pos int, enabled uint16, last int) (int, error) {
		if pos >= len(data) {
			return keepRunning(enabled, last), nil
		}
		k := int(data[pos]) % bits.OnesCount16(enabled)
		for a := range MaxActors {
			if enabled&(1<<a) != 0 {
				if k == 0 {
					return a, nil
				}
				k--
			}
		}
		panic("unreachable")
	}
}

// Replay runs sc under schedule s and checks the execution. A schedule
// shorter than the execution is completed by keepRunning; a longer one is
// an error.
func Replay(sc *Scenario, s Schedule, opt RunOptions) (*Execution, *Violation, error) {
	ex, err := Run(sc, Follow(s), opt)
	if err != nil {
		return ex, nil, err
	}
	if ex.Complete && len(ex.Steps) < len(s) {
		return ex, nil, fmt.Errorf("schedule: %d steps given, but the execution finished after %d (a schedule of another scenario?)", len(s), len(ex.Steps))
	}
	return ex, Check(ex), nil
}
