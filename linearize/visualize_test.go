package linearize

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// The visualization of an Illegal hand-written history labels the lanes
// owner and thief k, marks the first error in its own annotation lane with
// the operations stuck there, and follows porcupine's jump link on opening;
// a legal one says it is linearizable and does not jump.
func TestVisualizeMarksFirstError(t *testing.T) {
	var illegal, legal *Case
	for _, c := range HandWritten() {
		c := c
		if c.Name == "G twice: concurrent get and steal" {
			illegal = &c
		}
		if c.Name == "twin: concurrent get and steal, different Gs" {
			legal = &c
		}
	}
	if illegal == nil || legal == nil {
		t.Fatal("hand-written cases renamed")
	}
	dir := t.TempDir()
	for _, c := range []*Case{illegal, legal} {
		chk, err := NewChecker(c.Capacity)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "v.html")
		res, err := chk.Visualize(c.History, time.Minute, path)
		if err != nil {
			t.Fatal(err)
		}
		if (res == porcupine.Ok) != c.Legal {
			t.Fatalf("%s: %v", c.Name, res)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		for _, want := range []string{`"0":"owner"`, `"1":"thief 1"`, "owner = client 0", "thief 1 = client 1", `"Tag":"` + ErrorTag + `"`, "jump-link"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: the page lacks %q", c.Name, want)
			}
		}
		jumps := !strings.Contains(page, "var last = -1;")
		if c.Legal {
			if !strings.Contains(page, "✓ linearizable") || jumps {
				t.Errorf("%s (legal): want the ✓ annotation and no jump", c.Name)
			}
			continue
		}
		if !strings.Contains(page, "✗ first error") || !jumps {
			t.Errorf("%s (illegal): want the first-error annotation and the jump", c.Name)
		}
		// The stuck operations: the get and the steal that both took g1.
		fe, ok := firstError(chk.Model(), c.History, mustInfo(t, chk, c))
		if !ok || len(fe.Stuck) == 0 {
			t.Fatalf("%s: no first error found: %+v", c.Name, fe)
		}
		if !strings.Contains(page, "none of these can be next") {
			t.Errorf("%s: the annotation lacks its details", c.Name)
		}
	}
}

func mustInfo(t *testing.T, chk *Checker, c *Case) porcupine.LinearizationInfo {
	t.Helper()
	_, info := porcupine.CheckOperationsVerbose(chk.Model(), c.History, time.Minute)
	return info
}

// In a browser (where a Chromium is installed) the page's script has run:
// the lane labels read owner and thief 1, and the first illegal
// linearization point was found and scrolled to.
func TestVisualizeInBrowser(t *testing.T) {
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
		t.Skip("no Chromium on PATH: the page's script is checked as text only (TestVisualizeMarksFirstError)")
	}
	var illegal *Case
	for _, c := range HandWritten() {
		if c.Name == "G twice: concurrent get and steal" {
			c := c
			illegal = &c
		}
	}
	chk, err := NewChecker(illegal.Capacity)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v.html")
	if _, err := chk.Visualize(illegal.History, time.Minute, path); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dom, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
		"--dump-dom", "file://"+filepath.ToSlash(path)).Output()
	if err != nil {
		t.Fatalf("%s --dump-dom: %v", browser, err)
	}
	page := string(dom)
	for _, want := range []string{`data-client="0">owner</text>`, `data-client="1">thief 1</text>`, "data-first-error-x=", "✗ first error"} {
		if !strings.Contains(page, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
}
