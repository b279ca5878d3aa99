package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/hooksbin"
)

// The instrumented binary (-tags gmpcheck_hooks), built on demand by a
// default-build gmpcheck whose check needs yield points or seeded queue
// bugs (package hooksbin). verify builds it once for all its stages.

type hookedKey struct{}

type hookedState struct {
	mu  sync.Mutex
	bin *hooksbin.Binary
	err error
}

// withHooked makes the stages run under ctx share one instrumented build.
func withHooked(ctx context.Context) context.Context {
	if ctx.Value(hookedKey{}) != nil {
		return ctx
	}
	return context.WithValue(ctx, hookedKey{}, &hookedState{})
}

// cleanupHooked removes the shared build, if one was made.
func cleanupHooked(ctx context.Context) {
	if st, ok := ctx.Value(hookedKey{}).(*hookedState); ok {
		st.mu.Lock()
		st.bin.Cleanup()
		st.bin, st.err = nil, nil
		st.mu.Unlock()
	}
}

// hookedBinary returns the instrumented build and a release function: the
// shared one under withHooked (released by cleanupHooked), else a fresh one
// that release removes.
func hookedBinary(ctx context.Context, log io.Writer) (*hooksbin.Binary, func(), error) {
	st, ok := ctx.Value(hookedKey{}).(*hookedState)
	if !ok {
		fmt.Fprintln(log, "building the instrumented binary (go build -tags gmpcheck_hooks ./cmd/gmpcheck)")
		b, err := hooksbin.Build(ctx, log)
		if err != nil {
			return nil, nil, err
		}
		return b, b.Cleanup, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.bin == nil && st.err == nil {
		fmt.Fprintln(log, "building the instrumented binary (go build -tags gmpcheck_hooks ./cmd/gmpcheck)")
		st.bin, st.err = hooksbin.Build(ctx, log)
		if ctx.Err() != nil && st.err != nil {
			err := st.err
			st.err = nil // a cancelled build is not a reason to give up for good
			return nil, nil, err
		}
	}
	return st.bin, func() {}, st.err
}

// runHooked runs 'gmpcheck args...' with the instrumented build, its
// output to stdout/stderr, and returns its exit status (inconclusive when
// it could not be built or did not exit normally).
func runHooked(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	bin, release, err := hookedBinary(ctx, stderr)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "%s: INCONCLUSIVE: %s while building the instrumented binary\n", cmd, interrupted(ctx))
			return exitInconclusive
		}
		fmt.Fprintf(stderr, "%s: this binary has no yield points or seeded bugs, and it cannot build the instrumented one: %v\n%s: INCONCLUSIVE\n", cmd, err, cmd)
		return exitInconclusive
	}
	defer release()
	c := bin.Command(ctx, append([]string{cmd}, args...)...)
	c.Stdout, c.Stderr = stdout, stderr
	code := hooksbin.ExitCode(c.Run())
	if code < exitPass || code > exitInconclusive {
		fmt.Fprintf(stderr, "%s: the instrumented run did not complete (exit %d): INCONCLUSIVE\n", cmd, code)
		return exitInconclusive
	}
	return code
}

// hookedStage runs 'gmpcheck <cmd> -stage -q' with the instrumented
// build for a verify stage's seeded-bug self-test and reads back its
// summary line (stageSummaryPrefix): verdict, summary, seeded/caught.
func hookedStage(ctx context.Context, log io.Writer, cmd string) stageResult {
	bin, release, err := hookedBinary(ctx, log)
	if err != nil {
		if ctx.Err() != nil {
			return stageResult{verdict: inconclusive, summary: "cut short: " + interrupted(ctx)}
		}
		return stageResult{verdict: inconclusive, summary: "seeded bugs not run: " + err.Error()}
	}
	defer release()
	args := []string{cmd, "-stage", "-q"}
	if d, ok := ctx.Deadline(); ok {
		// Let the child stop itself just before the deadline, so that it
		// reports what it did (inconclusive) rather than being killed.
		args = append(args, "-timeout", max(time.Until(d)-time.Second, time.Millisecond).String())
	}
	fmt.Fprintf(log, "running the instrumented build: gmpcheck %s\n", strings.Join(args, " "))
	var out strings.Builder
	c := bin.Command(ctx, args...)
	c.Stdout = io.MultiWriter(log, &out)
	c.Stderr = log
	code := hooksbin.ExitCode(c.Run())
	res, ok := parseStageLine(out.String())
	switch {
	case !ok && ctx.Err() != nil:
		return stageResult{verdict: inconclusive, summary: "cut short: " + interrupted(ctx)}
	case !ok:
		return stageResult{verdict: inconclusive, summary: fmt.Sprintf("the instrumented run exited %d without a result", code)}
	}
	switch code {
	case exitPass:
		res.verdict = pass
	case exitFail:
		res.verdict = fail
	default:
		res.verdict = inconclusive
	}
	return res
}

// stageSummaryPrefix marks the line that carries a re-executed stage's
// result back to the parent: "<prefix><seeded> <caught> <summary>".
const stageSummaryPrefix = "gmpcheck-stage: "

func stageLine(res stageResult) string {
	return fmt.Sprintf("%s%d %d %s", stageSummaryPrefix, res.seeded, res.caught, res.summary)
}

func parseStageLine(out string) (stageResult, bool) {
	var res stageResult
	found := false
	for _, line := range strings.Split(out, "\n") {
		s, ok := strings.CutPrefix(line, stageSummaryPrefix)
		if !ok {
			continue
		}
		var seeded, caught int
		if n, _ := fmt.Sscanf(s, "%d %d", &seeded, &caught); n != 2 {
			continue
		}
		parts := strings.SplitN(s, " ", 3)
		res = stageResult{seeded: seeded, caught: caught}
		if len(parts) == 3 {
			res.summary = parts[2]
		}
		found = true
	}
	return res, found
}
