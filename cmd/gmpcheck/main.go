// Command gmpcheck runs gmpcheck's reference scheduler and its checkers.
//
//	gmpcheck verify            run every check at a bounded budget, print a summary
//	gmpcheck <command> -h      usage of one command
//
// Exit codes are the same for every command: 0 pass, 1 a check failed,
// 2 usage error, 3 inconclusive (a check ran out of time or budget before it
// could decide; never reported as a pass).
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Exit codes shared by every command.
const (
	exitPass         = 0
	exitFail         = 1
	exitUsage        = 2
	exitInconclusive = 3
)

// A command is one gmpcheck subcommand. run gets the arguments after the
// command's name and returns the exit code.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
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
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'gmpcheck <command> -h' for a command's flags.")
	fmt.Fprintln(w, "Exit status: 0 pass, 1 fail, 2 usage error, 3 inconclusive.")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return exitPass
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "gmpcheck: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}
