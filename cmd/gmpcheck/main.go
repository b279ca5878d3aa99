// Command gmpcheck runs gmpcheck's reference scheduler and its checkers.
//
//	gmpcheck verify            run every check at a bounded budget, print a summary
//	gmpcheck help <command>    usage of one command (or gmpcheck <command> -h)
//	gmpcheck version           the module version and the Go toolchain
//
// Exit codes are the same for every command: 0 pass, 1 a check failed,
// 2 usage error, 3 inconclusive (a check ran out of time or budget before it
// could decide, or was interrupted; never reported as a pass). SIGINT and
// SIGTERM cancel the command's one context: it stops its checks and child
// processes, prints what it had, removes its temporary files and exits 3.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"
)

// Exit codes shared by every command.
const (
	exitPass         = 0
	exitFail         = 1
	exitUsage        = 2
	exitInconclusive = 3
)

// A command is one gmpcheck subcommand. run gets the command's context
// (cancelled on SIGINT/SIGTERM), the arguments after the command's name, and
// returns the exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

// registerCommand is called from init functions, one file per command.
func registerCommand(c command) {
	if _, dup := commands[c.name]; dup {
		panic("gmpcheck: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: gmpcheck <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "  %-12s %s\n", "help", "usage of one command: gmpcheck help <command>")
	fmt.Fprintf(w, "  %-12s %s\n", "version", "print the module version and the Go toolchain")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gmpcheck help <command>' or 'gmpcheck <command> -h' for a command's flags.")
	fmt.Fprintln(w, "Every check command takes -json (one JSON object per result row on stdout),")
	fmt.Fprintln(w, "-timeout (0: no limit) and, where it selects, -run (a regular expression).")
	fmt.Fprintln(w, "Exit status: 0 pass, 1 fail, 2 usage error, 3 inconclusive (time limit or interrupt).")
}

// errInterrupted is the cause of a context cancelled by a signal.
var errInterrupted = errors.New("interrupted")

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		// A second signal kills at once (the default action again).
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		fmt.Fprintf(os.Stderr, "gmpcheck: %v: stopping the checks and cleaning up (a second one kills at once)\n", sig)
		cancel(errInterrupted)
	}()
	code := runContext(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if context.Cause(ctx) == errInterrupted && code != exitUsage {
		// Whatever the check saw before the signal, it did not finish.
		code = exitInconclusive
	}
	os.Exit(code)
}

// run is runContext without a signal: the tests' entry point.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitPass
	case "help":
		if len(args) == 1 {
			usage(stdout)
			return exitPass
		}
		c, ok := commands[args[1]]
		if !ok || len(args) > 2 {
			fmt.Fprintf(stderr, "gmpcheck help: unknown command %q\n\n", args[1])
			usage(stderr)
			return exitUsage
		}
		return c.run(ctx, []string{"-h"}, stdout, stdout)
	case "version", "-version", "--version":
		if len(args) > 1 {
			fmt.Fprintln(stderr, "gmpcheck version: takes no arguments")
			return exitUsage
		}
		fmt.Fprintln(stdout, versionLine())
		return exitPass
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "gmpcheck: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	for _, a := range args[1:] {
		if a == "-h" || a == "-help" || a == "--help" {
			// Usage is asked for: it goes to stdout, whichever stream a
			// command's flag set prints it on.
			stderr = stdout
		}
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

// versionLine is the module's version (a tag, a pseudo-version, or
// "(devel)" for a build from a checkout, with its VCS revision), and the Go
// toolchain that built the binary.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "gmpcheck (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified, tags string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		case "-tags":
			tags = s.Value
		}
	}
	line := "gmpcheck " + v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		line += " " + rev + modified
	}
	line += " " + bi.GoVersion
	if tags != "" {
		line += " -tags " + tags
	}
	return line
}
