package bughist

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Verdict of one technique, or of a whole reproduction.
type Verdict string

const (
	Caught       Verdict = "caught"            // the variant fails the check, and go1.26 passes it
	Missed       Verdict = "not caught"        // the variant passed, or go1.26 failed
	Inconclusive Verdict = "inconclusive"      // cut short (time limit, interrupt) or the tool is missing
	NotRun       Verdict = "not run"           // filtered out by Options.Techniques
	Failed       Verdict = "error"             // the check could not run
	Unexpressed  Verdict = "outside the model" // (the whole reproduction of an Outside entry)
)

// Options tune a reproduction.
type Options struct {
	// Techniques selects techniques by name (nil: every applicable one).
	Techniques []string
	// TLADir is the tla directory (empty: tla/ in the working directory or
	// a parent, else the modules built into the binary, unpacked into the
	// user cache directory).
	TLADir string
	// TLCJar, if set, also runs TLC on the variant's cfg and its twin.
	TLCJar string
	// Log, if set, receives progress lines.
	Log io.Writer
}

// TechResult is one technique's outcome on the variant and on go1.26.
type TechResult struct {
	Technique string
	// Engine names what checked the model: "spec.Explore", "impl.Driver",
	// or the tla technique's checkers ("tla-checker graph + Go liveness",
	// "TLC"), in the order they were judged.
	Engine  string
	Verdict Verdict
	Detail  string // what the variant did
	Bounds  string // the model checked
	// The counterexample: its length in actions and the trace as the
	// explorer prints it (for impl, the trace replayed).
	TraceLen int
	Trace    string
	Elapsed  time.Duration
	// Base is go1.26 on the same check: it must pass (for impl: the
	// reference scheduler as go1.26 must leave the trace).
	BasePass    bool
	BaseDetail  string
	BaseElapsed time.Duration
}

// Report is one entry's reproduction.
type Report struct {
	Entry   Entry
	Verdict Verdict
	Results []TechResult
	Elapsed time.Duration
}

// ExitCode is 0 when every applicable technique caught the bug and go1.26
// passed them, 3 when one was cut short, 1 otherwise (an inexpressible
// entry included).
func (r Report) ExitCode() int {
	switch r.Verdict {
	case Caught:
		return 0
	case Inconclusive:
		return 3
	}
	return 1
}

// Summary is one line: the verdict and each technique's.
func (r Report) Summary() string {
	if !r.Entry.Expressible() {
		return fmt.Sprintf("%s (%s): not reproducible: outside the model, which needs %s; nothing was checked, so nothing passed", r.Entry.Name, r.Entry.Link(), r.Entry.Needs)
	}
	var parts []string
	for _, t := range r.Results {
		s := t.Technique + " " + string(t.Verdict)
		if t.Verdict == Caught {
			base := "go1.26 passes"
			if r.Entry.Variant.Open {
				base = "open: no fixed twin"
			}
			s += fmt.Sprintf(" (%d steps, %s; %s)", t.TraceLen, t.Elapsed.Round(time.Millisecond), base)
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("%s (%s, %s): %s: %s", r.Entry.Name, r.Entry.Link(), r.Entry.VariantName(), r.Verdict, strings.Join(parts, "; "))
}

// lockedWriter serializes writes to w (nil stays nil): the techniques of
// a reproduction log from their own goroutines.
func lockedWriter(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	if _, ok := w.(*syncWriter); ok {
		return w
	}
	return &syncWriter{w: w}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (o Options) logf(format string, a ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", a...)
	}
}

func (o Options) wants(tech string) bool {
	if o.Techniques == nil {
		return true
	}
	for _, t := range o.Techniques {
		if t == tech {
			return true
		}
	}
	return false
}

// Reproduce runs every applicable technique on the entry's variant and on
// go1.26. An entry outside the model (Outside) is reported Unexpressed,
// exit 1, with no technique run.
//
// The techniques run at once, each in its own goroutine: explore and impl
// are the Go explorer and the reference scheduler in this process, tla is
// one or more checker processes (tla-checker under node, TLC under java),
// so on two cores the slowest technique sets the wall time instead of the
// sum of all three. Results keep the order of Entry.Applicable, and log
// lines are whole lines.
func Reproduce(ctx context.Context, e Entry, opt Options) Report {
	start := time.Now()
	rep := Report{Entry: e}
	if !e.Expressible() {
		rep.Verdict = Unexpressed
		return rep
	}
	opt.Log = lockedWriter(opt.Log)
	techs := e.Applicable()
	rep.Results = make([]TechResult, len(techs))
	var wg sync.WaitGroup
	for i, tech := range techs {
		if !opt.wants(tech) {
			rep.Results[i] = TechResult{Technique: tech, Verdict: NotRun}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			opt.logf("%s: %s ...", e.Name, tech)
			var tr TechResult
			switch tech {
			case TechExplore:
				tr = runExplore(ctx, e.Variant)
			case TechTLA:
				tr = runTLA(ctx, e.Variant, opt)
			case TechImpl:
				tr = runImpl(ctx, e.Variant)
			}
			tr.Technique = tech
			opt.logf("%s: %s: %s: %s", e.Name, tech, tr.Verdict, tr.Detail)
			rep.Results[i] = tr
		}()
	}
	wg.Wait()
	rep.Verdict = Caught
	ran := 0
	for _, t := range rep.Results {
		switch t.Verdict {
		case NotRun:
			continue
		case Caught:
		case Inconclusive:
			if rep.Verdict == Caught {
				rep.Verdict = Inconclusive
			}
		default:
			rep.Verdict = Missed
		}
		ran++
	}
	if ran == 0 {
		rep.Verdict = Missed
	}
	rep.Elapsed = time.Since(start)
	return rep
}
