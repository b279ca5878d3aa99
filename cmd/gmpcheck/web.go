package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gmpcheck/gmpcheck/internal/web"
)

// web: the interactive stepper, the spec compiled to WebAssembly in a
// static page (internal/web).

func init() {
	registerCommand(command{
		name:    "web",
		summary: "the interactive stepper: the spec compiled to WebAssembly in a page (serve it, or -out DIR for file://)",
		run:     runWeb,
	})
}

func runWeb(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("web", "[-addr host:port] [-out dir]",
		`Compiles the spec to WebAssembly (GOOS=js GOARCH=wasm go build, from the module's
source: a checkout above the working directory, else the source this binary was built
from, else the module cache) and serves the stepper page: choose bounds and a variant,
see the state drawn, click an enabled action to take it, undo, load a counterexample
(the explorer's, found in the page, or a trace printed by 'gmpcheck explore'), with
the invariants checked after every step. The page needs no network.
With -out the page is written to a directory that works from file:// and nothing is
served. Serving stops at an interrupt (exit 0).`)
	addr := fs.String("addr", "127.0.0.1:8080", "address to serve the page on")
	out := fs.String("out", "", "write the page into this directory (created) and exit, instead of serving it")
	if code, ok := fs.parse(args, stdout, stderr); !ok {
		return code
	}
	if fs.set("addr") && fs.set("out") {
		return usageError(stderr, "web", "-addr and -out do not go together")
	}
	dir := *out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "gmpcheck-web-page-")
		if err != nil {
			fmt.Fprintf(stderr, "web: %v\n", err)
			return exitFail
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	fmt.Fprintln(stdout, "web: compiling the spec to WebAssembly...")
	if err := web.Build(ctx, dir, stderr); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stdout, "web: interrupted\n")
			return exitInconclusive
		}
		fmt.Fprintf(stderr, "web: %v\n", err)
		return exitFail
	}
	if *out != "" {
		abs, err := filepath.Abs(filepath.Join(dir, "index.html"))
		if err != nil {
			abs = filepath.Join(dir, "index.html")
		}
		fmt.Fprintf(stdout, "web: the stepper is in %s: open file://%s\n", dir, filepath.ToSlash(abs))
		return exitPass
	}
	err := web.Serve(ctx, *addr, dir, func(a string) {
		fmt.Fprintf(stdout, "web: serving the stepper on http://%s/ (interrupt to stop)\n", a)
	})
	if err != nil {
		fmt.Fprintf(stderr, "web: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, "web: stopped")
	return exitPass
}
