package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"
)

// cmdFlags is a command's flag set with the flags every check command
// shares: -json, -timeout (0: no limit, as go test), and the usage text,
// printed on stdout for -h and 'gmpcheck help <command>'.
type cmdFlags struct {
	*flag.FlagSet
	synopsis string
	doc      string
	json     bool
	timeout  time.Duration
	hasTime  bool
}

// newFlags makes the flag set of command name. synopsis follows
// "usage: gmpcheck name"; doc is the paragraph after it.
func newFlags(name, synopsis, doc string) *cmdFlags {
	f := &cmdFlags{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), synopsis: synopsis, doc: doc}
	f.Usage = func() {} // parse prints the usage itself, on the right stream
	f.BoolVar(&f.json, "json", false, "print one JSON object per result row on stdout (docs/cli.md); the human-readable report goes to stderr")
	return f
}

// addTimeout adds -timeout with its one meaning: 0 no limit, > 0 a limit
// past which the check stops and says inconclusive, < 0 a usage error.
func (f *cmdFlags) addTimeout(def time.Duration, what string) {
	f.hasTime = true
	f.DurationVar(&f.timeout, "timeout", def, what+" (0: no limit; a check cut short is inconclusive)")
}

func (f *cmdFlags) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: gmpcheck %s %s\n", f.Name(), f.synopsis)
	if f.doc != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.TrimRight(f.doc, "\n"))
	}
	fmt.Fprintln(w, "\nExit: 0 pass, 1 fail, 2 usage error, 3 inconclusive (time limit or interrupt).")
	fmt.Fprintln(w, "\nflags:")
	f.SetOutput(w)
	f.PrintDefaults()
}

// parse parses args, rejecting positional arguments (no command takes
// any) and a negative -timeout. When it reports !ok the command returns
// code: 0 after -h (usage on stdout), 2 on a usage error (on stderr).
func (f *cmdFlags) parse(args []string, stdout, stderr io.Writer) (code int, ok bool) {
	f.SetOutput(stderr)
	err := f.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		f.printUsage(stdout)
		return exitPass, false
	case err != nil:
		fmt.Fprintf(stderr, "run 'gmpcheck help %s' for usage\n", f.Name())
		return exitUsage, false
	case f.NArg() > 0:
		return usageError(stderr, f.Name(), "unexpected arguments %q", f.Args()), false
	case f.hasTime && f.timeout < 0:
		return usageError(stderr, f.Name(), "-timeout %v: want 0 (no limit) or a positive duration", f.timeout), false
	}
	return exitPass, true
}

// set reports whether the flag name was given on the command line.
func (f *cmdFlags) set(name string) bool {
	found := false
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == name {
			found = true
		}
	})
	return found
}

// usageError prints "cmd: message" on stderr and returns exitUsage.
func usageError(stderr io.Writer, cmd, format string, a ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n", cmd, fmt.Sprintf(format, a...))
	return exitUsage
}

// intFlag checks an integer flag against its range [lo, hi].
func intFlag(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("-%s %d: want %d..%d", name, v, lo, hi)
	}
	return nil
}

// compileRun compiles a -run regular expression ("" selects everything).
func compileRun(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("-run %q: %v", expr, err)
	}
	return re, nil
}

// withTimeout is ctx limited to d; d == 0 is no limit.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// interrupted says why a check stopped early, for its INCONCLUSIVE line.
func interrupted(ctx context.Context) string {
	switch {
	case ctx.Err() == context.Canceled:
		return "interrupted"
	case ctx.Err() != nil:
		return "time limit reached"
	}
	return ""
}

// output is where a command writes: the human-readable report (stdout, or
// stderr with -json) and, with -json, one JSON object per result row on
// stdout. Rows carry "command" and "kind"; the last is kind "result".
type output struct {
	cmd   string
	human io.Writer
	mu    sync.Mutex
	enc   *json.Encoder
}

func newOutput(f *cmdFlags, stdout, stderr io.Writer) *output {
	o := &output{cmd: f.Name(), human: stdout}
	if f.json {
		o.human = stderr
		o.enc = json.NewEncoder(stdout)
	}
	return o
}

// row writes one JSON row of kind with fields (nothing without -json).
func (o *output) row(kind string, fields map[string]any) {
	if o == nil || o.enc == nil {
		return
	}
	m := map[string]any{"command": o.cmd, "kind": kind}
	for k, v := range fields {
		m[k] = v
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.enc.Encode(m)
}

// result writes the final row and returns the verdict's exit code.
func (o *output) result(v verdict, summary string, fields map[string]any) int {
	m := map[string]any{"verdict": v.String(), "exit": v.exitCode(), "summary": summary}
	for k, val := range fields {
		m[k] = val
	}
	o.row("result", m)
	return v.exitCode()
}

// heartbeat writes "name: still running (12s)" to w whenever nothing else
// was written through the returned writer for every seconds, so that a
// long stage is never silent; stop ends it.
func heartbeat(w io.Writer, name string, every time.Duration) (io.Writer, func()) {
	h := &beatWriter{w: w, last: time.Now()}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	start := time.Now()
	go func() {
		defer wg.Done()
		t := time.NewTicker(every / 4)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				h.mu.Lock()
				if now.Sub(h.last) >= every {
					fmt.Fprintf(h.w, "%s: still running (%s)\n", name, now.Sub(start).Round(time.Second))
					h.last = now
				}
				h.mu.Unlock()
			}
		}
	}()
	return h, func() { close(done); wg.Wait() }
}

type beatWriter struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Time
}

func (h *beatWriter) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = time.Now()
	return h.w.Write(b)
}
