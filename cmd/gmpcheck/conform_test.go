package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	rtrace "runtime/trace"
	"strings"
	"sync"
	"testing"
)

func TestConformUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-bogus"}, {"-procs", "0"}, {"-procs", "x"}, {"-impl", "-1"}, {"-impl-procs", "9"},
		{"-timeout", "-1s"}, {"-run", "("}, {"-run", "nosuchprogram"}, {"-procs", "2", "a.trace"},
	} {
		var out, errb bytes.Buffer
		if code := runConform(context.Background(), args, &out, &errb); code != exitUsage {
			t.Errorf("conform %v: exit %d, want %d (usage)\n%s", args, code, exitUsage, errb.String())
		}
	}
}

// TestConformFiles: 'gmpcheck conform FILE' accepts a trace of this
// process and is inconclusive on a file that is not a trace.
func TestConformFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.trace")
	f, err := os.Create(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := rtrace.Start(f); err != nil {
		t.Skipf("tracer busy: %v", err)
	}
	var wg sync.WaitGroup
	ch := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); ch <- 1 }()
	}
	for range 4 {
		<-ch
	}
	wg.Wait()
	rtrace.Stop()
	f.Close()
	var out, errb bytes.Buffer
	if code := runConform(context.Background(), []string{"-json", good}, &out, &errb); code != exitPass {
		t.Fatalf("exit %d, want 0\n%s%s", code, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last["kind"] != "result" || last["verdict"] != "PASS" {
		t.Errorf("last JSON row %q (%v)", lines[len(lines)-1], err)
	}
	bad := filepath.Join(dir, "bad.trace")
	os.WriteFile(bad, []byte("not a trace"), 0o644)
	out.Reset()
	if code := runConform(context.Background(), []string{bad}, &out, &errb); code != exitInconclusive {
		t.Errorf("bad trace: exit %d, want 3\n%s", code, out.String())
	}
}

// TestConformCorpusPart runs a short part of the corpus and a few impl
// runs through the command: every row accepted, exit 0.
func TestConformCorpusPart(t *testing.T) {
	var out, errb bytes.Buffer
	// No -impl runs here: about one concurrent impl run in fifty hits a
	// known spec gap (docs/conformance.md) and is rejected, so a command
	// test that required them accepted would fail at random; package
	// conform checks them with that tolerance stated.
	code := runConform(context.Background(), []string{"-run", "^(pingpong|syscall)$", "-procs", "1,2"}, &out, &errb)
	t.Log(out.String())
	if code != exitPass {
		t.Fatalf("exit %d, want 0\n%s", code, errb.String())
	}
	for _, want := range []string{"pingpong", "syscall", "conform: PASS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// A run cut short is inconclusive, never a pass.
func TestConformTimeoutInconclusive(t *testing.T) {
	var out, errb bytes.Buffer
	code := runConform(context.Background(), []string{"-timeout", "1ms"}, &out, &errb)
	if code != exitInconclusive {
		t.Fatalf("exit %d, want 3\n%s%s", code, out.String(), errb.String())
	}
}
