package conform

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/procgroup"
)

// The corpus: small Go programs that exercise the scheduler's triggers,
// each writing its own runtime/trace to $GMPCHECK_TRACE.
//
//go:embed testdata/programs
var programs embed.FS

// Programs lists the corpus's programs by name.
func Programs() []string {
	ents, err := fs.ReadDir(programs, "testdata/programs")
	if err != nil {
		panic(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}

// Corpus builds the corpus's programs into a temporary directory (Close
// removes it) and runs them with the tracer on.
type Corpus struct {
	dir  string
	bins map[string]string
}

// BuildCorpus builds the named programs (all if names is empty) with the
// go command of the toolchain on PATH.
func BuildCorpus(ctx context.Context, names []string) (*Corpus, error) {
	if len(names) == 0 {
		names = Programs()
	}
	dir, err := os.MkdirTemp("", "gmpcheck-conform-")
	if err != nil {
		return nil, err
	}
	c := &Corpus{dir: dir, bins: map[string]string{}}
	// A module of its own, so that the build needs nothing but the
	// standard library wherever the binary runs.
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module gmpcheckcorpus\n\ngo 1.26\n"), 0o644); err != nil {
		c.Close()
		return nil, err
	}
	for _, name := range names {
		src, err := programs.ReadFile("testdata/programs/" + name + "/main.go")
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("conform: no corpus program %q (have %v)", name, Programs())
		}
		pd := filepath.Join(dir, name)
		if err := os.MkdirAll(pd, 0o755); err != nil {
			c.Close()
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(pd, "main.go"), src, 0o644); err != nil {
			c.Close()
			return nil, err
		}
		bin := filepath.Join(dir, name+".bin")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./"+name)
		procgroup.KillOnCancel(cmd)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			c.Close()
			return nil, fmt.Errorf("conform: building %s: %v\n%s", name, err, out.String())
		}
		c.bins[name] = bin
	}
	return c, nil
}

// Close removes the built programs and their traces.
func (c *Corpus) Close() error { return os.RemoveAll(c.dir) }

// Trace runs program name at GOMAXPROCS procs and returns the path of the
// execution trace it wrote (inside the corpus directory).
func (c *Corpus) Trace(ctx context.Context, name string, procs int) (string, error) {
	bin, ok := c.bins[name]
	if !ok {
		return "", fmt.Errorf("conform: %s not built", name)
	}
	path := filepath.Join(c.dir, name+"-"+strconv.Itoa(procs)+".trace")
	cmd := exec.CommandContext(ctx, bin)
	procgroup.KillOnCancel(cmd)
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs), "GMPCHECK_TRACE="+path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("conform: running %s: %v\n%s", name, err, out.String())
	}
	return path, nil
}

// CorpusRow is one program run and its verdict.
type CorpusRow struct {
	Program string
	Procs   int
	Result  RuntimeResult
	Run     time.Duration // the program's run, tracer on
}

// CheckFile checks one trace file.
func CheckFile(ctx context.Context, path string) (RuntimeResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return RuntimeResult{}, err
	}
	defer f.Close()
	return CheckRuntime(ctx, f), nil
}

// RunCorpus runs every program of c at each GOMAXPROCS in procs and checks
// its trace. row, if set, is told each row as it is done.
func RunCorpus(ctx context.Context, c *Corpus, names []string, procs []int, row func(CorpusRow)) ([]CorpusRow, error) {
	if len(names) == 0 {
		names = Programs()
	}
	var rows []CorpusRow
	for _, name := range names {
		for _, p := range procs {
			t0 := time.Now()
			path, err := c.Trace(ctx, name, p)
			if err != nil {
				return rows, err
			}
			r := CorpusRow{Program: name, Procs: p, Run: time.Since(t0)}
			r.Result, err = CheckFile(ctx, path)
			if err != nil {
				return rows, err
			}
			os.Remove(path)
			rows = append(rows, r)
			if row != nil {
				row(r)
			}
		}
	}
	return rows, nil
}
