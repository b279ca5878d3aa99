// Package web builds and serves the interactive stepper: a static page
// (static/: index.html, app.js, style.css) whose engine is the spec
// compiled to WebAssembly (./wasm, package engine over package spec). The
// page draws what the engine returns; it has no scheduler logic of its own.
//
// Build writes a directory that works from file:// as well as over HTTP:
// the wasm module is inlined as base64 in gmp.wasm.js (a script tag loads
// it, where a fetch of a file: URL would be refused), next to the Go
// toolchain's wasm_exec.js. Nothing is fetched from the network.
package web

import (
	"context"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/hooksbin"
	"github.com/gmpcheck/gmpcheck/internal/procgroup"
)

//go:embed static
var static embed.FS

// Static is the page's own files.
func Static() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err)
	}
	return sub
}

// Files lists what Build writes.
var Files = []string{"index.html", "app.js", "style.css", "wasm_exec.js", "gmp.wasm.js"}

// WasmPackage is the engine's main package, relative to the module root.
const WasmPackage = "./internal/web/wasm"

// Build compiles the engine to WebAssembly (GOOS=js GOARCH=wasm go build,
// in the module's source tree: hooksbin.Source) and writes the page into
// dir, which it creates. The go command's output goes to log.
func Build(ctx context.Context, dir string, log io.Writer) error {
	root, err := hooksbin.Source(ctx)
	if err != nil {
		return err
	}
	return BuildFrom(ctx, root, dir, log)
}

// BuildFrom is Build from the module source tree root.
func BuildFrom(ctx context.Context, root, dir string, log io.Writer) error {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return errors.New("no go command on PATH to compile the spec to WebAssembly")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gmpcheck-web-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	wasm := filepath.Join(tmp, "gmp.wasm")
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-o", wasm, WasmPackage)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOTMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = log, log
	procgroup.KillOnCancel(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("GOOS=js GOARCH=wasm go build %s (in %s): %v", WasmPackage, root, err)
	}
	bin, err := os.ReadFile(wasm)
	if err != nil {
		return err
	}
	js := "// The gmpcheck spec compiled to WebAssembly (GOOS=js GOARCH=wasm), base64.\nwindow.GMP_WASM_B64 = \"" +
		base64.StdEncoding.EncodeToString(bin) + "\";\n"
	if err := os.WriteFile(filepath.Join(dir, "gmp.wasm.js"), []byte(js), 0o644); err != nil {
		return err
	}
	execJS, err := wasmExecJS(ctx, goCmd, root)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "wasm_exec.js"), execJS, 0o644); err != nil {
		return err
	}
	return fs.WalkDir(Static(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Static(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), b, 0o644)
	})
}

// wasmExecJS reads the toolchain's wasm_exec.js ($GOROOT/lib/wasm since Go
// 1.24, misc/wasm before), which must match the compiler that built the
// module.
func wasmExecJS(ctx context.Context, goCmd, root string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, goCmd, "env", "GOROOT")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if b, err := os.ReadFile(filepath.Join(goroot, p)); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("no wasm_exec.js under %s (lib/wasm or misc/wasm)", goroot)
}

// Serve serves dir on addr until ctx is done. ready, if set, is told the
// address it listens on.
func Serve(ctx context.Context, addr, dir string, ready func(string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return nil
	case err := <-errc:
		return err
	}
}
