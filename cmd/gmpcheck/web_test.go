package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/web"
)

// web -out compiles the spec to WebAssembly and writes the stepper's
// directory: every file the page loads, the module inlined as base64 (a
// wasm binary: its magic number), the toolchain's wasm_exec.js. Where a
// Chromium is installed, the page is loaded headless from file:// with the
// nmspinning-no-dec preset: the spec in the page finds the counterexample,
// steps to it and flags invariant 5.
func TestWebOut(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH: the stepper's wasm cannot be built")
	}
	dir := filepath.Join(t.TempDir(), "page")
	code, out := runCmd("web", "-out", dir)
	if code != exitPass || !strings.Contains(out, "file://") {
		t.Fatalf("exit %d, want 0 naming the page:\n%s", code, out)
	}
	for _, f := range web.Files {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	js, err := os.ReadFile(filepath.Join(dir, "gmp.wasm.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`window\.GMP_WASM_B64 = "([A-Za-z0-9+/=]+)";`).FindSubmatch(js)
	if m == nil {
		t.Fatal("gmp.wasm.js does not define GMP_WASM_B64")
	}
	bin, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil || !bytes.HasPrefix(bin, []byte("\x00asm")) {
		t.Fatalf("GMP_WASM_B64 is not a wasm module (%v)", err)
	}
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("GMPCHECK_BROWSER") == "1" {
			t.Fatal("GMPCHECK_BROWSER=1 but no Chromium on PATH: the browser stage cannot pass without one")
		}
		t.Skip("no Chromium on PATH: the files were checked, the page was not loaded in a browser (CI's browser stage sets GMPCHECK_BROWSER=1)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := "file://" + filepath.ToSlash(filepath.Join(dir, "index.html")) + "#preset=nmspinning&explore=1"
	dom, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--virtual-time-budget=30000", "--dump-dom", url).Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v", browser, err)
	}
	body := regexp.MustCompile(`<body[^>]*>`).Find(dom)
	if !bytes.Contains(body, []byte(`data-ready="1"`)) || !bytes.Contains(body, []byte(`data-invariant="invariant 5:`)) ||
		bytes.Contains(body, []byte(`data-step="0"`)) {
		t.Errorf("the page did not step to the violation: %s", body)
	}
}

func TestWebUsage(t *testing.T) {
	checkCmdCases(t, []cmdCase{
		{[]string{"web", "-addr", "127.0.0.1:0", "-out", "x"}, exitUsage, "do not go together"},
		{[]string{"web", "extra"}, exitUsage, "unexpected arguments"},
	})
}

// web (no -out) serves the page over HTTP until its context ends, then
// stops, removes its directory and exits 0.
func TestWebServe(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH: the stepper's wasm cannot be built")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan int, 1)
	go func() { done <- runWeb(ctx, []string{"-addr", "127.0.0.1:0"}, &out, &out) }()
	re := regexp.MustCompile(`serving the stepper on (http://[0-9.:]+/)`)
	var url string
	for deadline := time.Now().Add(3 * time.Minute); url == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("web exited %d before serving:\n%s", code, out.String())
		default:
		}
	}
	if url == "" {
		t.Fatalf("web did not serve:\n%s", out.String())
	}
	for _, f := range []string{"", "app.js", "gmp.wasm.js", "wasm_exec.js"} {
		resp, err := http.Get(url + f)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /%s: %s", f, resp.Status)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != exitPass || !strings.Contains(out.String(), "web: stopped") {
			t.Errorf("exit %d after the context ended:\n%s", code, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("web did not stop")
	}
}
