package viz

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gmpcheck/gmpcheck/spec"
)

type sample struct {
	name   string
	bounds spec.Bounds
	v      *spec.Violation
}

var (
	samplesOnce sync.Once
	samples     []sample
	samplesErr  error
)

// lostWakeup is the go1.19 bound of 'gmpcheck verify': an 11-step lasso.
var lostWakeup = spec.Bounds{Ps: 2, Ms: 3, Gs: 2, Cap: 2, Spawn: 1, SchedTick: 2, Syscalls: true, Netpoll: true, Go: spec.Go119}

// violations explores the go1.19 bound and every seeded bug once.
func violations(t *testing.T) []sample {
	t.Helper()
	// The pages are written by sequential code, which the race detector
	// has nothing to check in; under it only the explorations that make
	// the samples slow down, five-fold (48 s of the test command's -race
	// pass). The README's test command runs this package without -race
	// in its first step, where these tests run; the parallel search is
	// race-checked by spec's TestParallel*.
	if raceEnabled {
		t.Skip("the page tests run in the test command's non-race pass (go test ./internal/viz/)")
	}
	samplesOnce.Do(func() {
		ctx := context.Background()
		r, err := spec.Explore(ctx, lostWakeup, spec.Options{Liveness: true, ThreadLimit: true})
		if err != nil || r.Violation == nil {
			samplesErr = err
			if err == nil {
				samplesErr = os.ErrNotExist
			}
			return
		}
		samples = append(samples, sample{"go119-lost-wakeup", lostWakeup, r.Violation})
		for _, c := range spec.SeededBugCases() {
			r, err := spec.Explore(ctx, c.Bounds, spec.SeededBugOptions)
			if err != nil {
				samplesErr = err
				return
			}
			if err := c.Match(r.Violation); err != nil {
				samplesErr = err
				return
			}
			samples = append(samples, sample{c.Bounds.Bug.String(), c.Bounds, r.Violation})
		}
	})
	if samplesErr != nil {
		t.Fatalf("exploring the samples: %v", samplesErr)
	}
	return samples
}

func render(t *testing.T, p Page) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wellFormed parses the page as XML (it is written to be well-formed: every
// element closed, no '<' or '&' in the script) and returns its text.
func wellFormed(t *testing.T, page string) string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var text strings.Builder
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("page is not well-formed: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			text.Write(x)
			text.WriteByte(' ')
		}
	}
	if depth != 0 {
		t.Fatalf("unbalanced elements: depth %d at the end", depth)
	}
	return text.String()
}

func TestPages(t *testing.T) {
	for _, s := range violations(t) {
		t.Run(s.name, func(t *testing.T) {
			page := render(t, Page{Title: "gmpcheck explore: " + s.name, Bounds: s.bounds, Violation: s.v})
			text := wellFormed(t, page)
			tr := s.v.Trace

			// Every action label, in order (the large views carry them as text).
			at := 0
			for i, st := range tr.Steps {
				label := st.Action.String()
				j := strings.Index(text[at:], label)
				if j < 0 {
					t.Fatalf("action %d %q missing after offset %d", i+1, label, at)
				}
				at += j + len(label)
			}
			// One column and one large view per state.
			if n := strings.Count(page, `<th class="act`); n != tr.Len()+1 {
				t.Errorf("%d step columns, want %d", n, tr.Len()+1)
			}
			if n := strings.Count(page, `<section class="view`); n != tr.Len()+1 {
				t.Errorf("%d large views, want %d", n, tr.Len()+1)
			}
			// The kind and detail at the top, before the strip.
			top := page[:strings.Index(page, `id="strip"`)]
			for _, want := range []string{escape(s.v.Kind.String()), escape(s.v.Detail)} {
				if !strings.Contains(top, want) {
					t.Errorf("header lacks %q", want)
				}
			}
			// The lasso.
			cyc := regexp.MustCompile(`<th class="act [^"]*\bcyc\b`)
			switch {
			case tr.Loop >= 0:
				if n := len(cyc.FindAllString(page, -1)); n != tr.Len()-tr.Loop {
					t.Errorf("%d cycle columns, want %d", n, tr.Len()-tr.Loop)
				}
				if !strings.Contains(page, `class="cycband"`) || !strings.Contains(page, "↩ step "+strconv.Itoa(tr.Loop)) {
					t.Error("the cycle band or the return marker is missing")
				}
				if !strings.Contains(page, `id="h`+strconv.Itoa(tr.Loop)+`" data-c`) || !strings.Contains(page, "cycstart") {
					t.Error("the cycle's return state is not marked")
				}
			default:
				if cyc.MatchString(page) || strings.Contains(page, `class="cycband"`) {
					t.Error("a cycle is marked on a trace without one")
				}
			}
			if tr.Stutter && !strings.Contains(page, "stays here forever") {
				t.Error("the stutter is not marked")
			}
			// The initial focus is on the violation.
			want := tr.Len()
			if tr.Loop >= 0 {
				want = tr.Loop
			}
			if !strings.Contains(page, `data-focus="`+strconv.Itoa(want)+`"`) {
				t.Errorf("initial focus is not column %d", want)
			}
			noExternal(t, page)
			if len(page) > 200_000 {
				t.Errorf("page is %d bytes", len(page))
			}
			if dir := os.Getenv("VIZ_SAMPLE_DIR"); dir != "" {
				if err := os.WriteFile(filepath.Join(dir, s.name+".html"), []byte(page), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func noExternal(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"http://", "https://", "src=", "href=", "url(", "@import", "//cdn", "<link", "<img", "<iframe"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("page contains %q: it must need no network", bad)
		}
	}
}

func TestChangesHighlighted(t *testing.T) {
	s := violations(t)[0] // go1.19: step 1 is m0: Park, step 4 netpoll's InjectGList(g1), which queues g1 globally
	page := render(t, Page{Title: "t", Violation: s.v})
	// The global-queue cell of step 4 is marked changed, and the one of the
	// initial state is not.
	if !regexp.MustCompile(`<td data-c="4" class="[^"]*\bchg\b[^"]*"><span class="g g1 c">g1</span>`).MatchString(page) {
		t.Error("the global queue change of step 4 is not highlighted")
	}
	if regexp.MustCompile(`<td data-c="0" class="[^"]*\bchg\b`).MatchString(page) {
		t.Error("the initial state has highlighted changes")
	}
	// The acting M is marked.
	if !regexp.MustCompile(`<td data-c="1" class="[^"]*\bactor\b`).MatchString(page) {
		t.Error("the acting M of step 1 is not marked")
	}
}

// The lasso's witness is spelled out: what holds in every state of the loop.
func TestWitness(t *testing.T) {
	want := map[string]string{
		"go119-lost-wakeup":              "Throughout the cycle: p0 idle, g2 runnable, no M spinning.",
		"ready-no-wakep":                 "In the last state, forever: p1 idle, g1 runnable, no M spinning.",
		"no-61":                          "Throughout the cycle: g1 in sched.runq.",
		"gosched-local":                  "Throughout the cycle: g1 in sched.runq.",
		"findrunnable-ignores-gcwaiting": "Throughout the cycle: sched.gcwaiting set, p0, p1 not stopped.",
	}
	for _, s := range violations(t) {
		page := render(t, Page{Title: s.name, Violation: s.v})
		w, ok := want[s.name]
		switch {
		case ok && !strings.Contains(page, `<b class="witness">`+w+`</b>`):
			t.Errorf("%s: the witness %q is missing", s.name, w)
		case !ok && strings.Contains(page, `class="witness"`):
			t.Errorf("%s: a witness the test does not expect (a new liveness sample: add it to want)", s.name)
		}
	}
}

func TestHostileTitle(t *testing.T) {
	s := violations(t)[0]
	v := *s.v
	v.Detail = `detail <b>bold</b> & "q"`
	hostile := `</title><script src="https://evil.example/x.js">alert(1)</script><img src=x onerror=alert(2)>`
	page := render(t, Page{Title: hostile, Violation: &v})
	wellFormed(t, page)
	for _, bad := range []string{"<script src", "</title><script", "<img", "<b>bold"} {
		if strings.Contains(page, bad) {
			t.Errorf("unescaped %q in the page", bad)
		}
	}
	if !strings.Contains(page, "&lt;/title&gt;&lt;script") || !strings.Contains(page, "detail &lt;b&gt;bold&lt;/b&gt; &amp; &#34;q&#34;") {
		t.Error("the hostile title or detail is not escaped")
	}
	if n := strings.Count(page, "<script>"); n != 1 {
		t.Errorf("%d script elements, want the one inline script", n)
	}
}

func TestNoViolation(t *testing.T) {
	if err := WriteTraceHTML(io.Discard, "x", nil); err == nil {
		t.Error("no error for a nil violation")
	}
}

func TestWriteTraceHTMLWithoutBounds(t *testing.T) {
	s := violations(t)[0]
	var b bytes.Buffer
	if err := WriteTraceHTML(&b, "no bounds", s.v); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	wellFormed(t, page)
	if strings.Contains(page, `class="bounds"`) {
		t.Error("bounds line without bounds")
	}
}
