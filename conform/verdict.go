package conform

import "fmt"

// Verdict is the outcome of checking one trace.
type Verdict uint8

const (
	// Accepted: some behaviour of the spec produces the observations.
	Accepted Verdict = iota
	// Rejected: no behaviour of the spec produces the observations up to
	// some event.
	Rejected
	// Inconclusive: the check could not decide (too many candidate states,
	// the run left the spec's bounds, or time ran out). Never a pass.
	Inconclusive
)

var verdictNames = [...]string{"accepted", "rejected", "inconclusive"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// ExitCode is the command-line exit status of a verdict: 0 accepted, 1
// rejected, 3 inconclusive (as every gmpcheck command).
func (v Verdict) ExitCode() int {
	switch v {
	case Accepted:
		return 0
	case Rejected:
		return 1
	}
	return 3
}

// Worst combines verdicts: any rejection rejects, else any inconclusive
// result makes the whole inconclusive.
func Worst(vs ...Verdict) Verdict {
	w := Accepted
	for _, v := range vs {
		switch {
		case v == Rejected:
			return Rejected
		case v == Inconclusive:
			w = Inconclusive
		}
	}
	return w
}
