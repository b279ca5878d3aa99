package mutate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/internal/procgroup"
)

// GremlinsModule is the pinned mutation tool. Its packages are internal
// (github.com/go-gremlins/gremlins/internal/...), so it runs as a program:
// 'go run GremlinsModule unleash --dry-run -o FILE ./dir' lists the
// mutations of dir's files as JSON.
const GremlinsModule = "github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0"

// gremlinsTypes are the operators switched on besides gremlins' defaults
// (arithmetic, conditional boundaries and negations, increment/decrement,
// inverted negatives).
var gremlinsTypes = []string{"--invert-logical", "--invert-loopctrl", "--invert-assignments", "--remove-self-assignments", "--invert-bitwise", "--invert-bwassign"}

// TokenSwaps is gremlins' table of what each mutation type turns a token
// into (internal/engine/mappings.go at v0.6.0, tokenMutations), which the
// harness applies itself at the positions gremlins lists.
var TokenSwaps = map[string]map[token.Token]token.Token{
	"ARITHMETIC_BASE":       {token.ADD: token.SUB, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL, token.SUB: token.ADD},
	"CONDITIONALS_BOUNDARY": {token.GEQ: token.GTR, token.GTR: token.GEQ, token.LEQ: token.LSS, token.LSS: token.LEQ},
	"CONDITIONALS_NEGATION": {token.EQL: token.NEQ, token.GEQ: token.LSS, token.GTR: token.LEQ, token.LEQ: token.GTR,
		token.LSS: token.GEQ, token.NEQ: token.EQL},
	"INCREMENT_DECREMENT": {token.DEC: token.INC, token.INC: token.DEC},
	"INVERT_ASSIGNMENTS": {token.ADD_ASSIGN: token.SUB_ASSIGN, token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN,
		token.REM_ASSIGN: token.REM_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN},
	"INVERT_BITWISE": {token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND, token.AND_NOT: token.AND,
		token.SHL: token.SHR, token.SHR: token.SHL},
	"INVERT_BWASSIGN": {token.AND_ASSIGN: token.OR_ASSIGN, token.OR_ASSIGN: token.AND_ASSIGN, token.XOR_ASSIGN: token.AND_ASSIGN,
		token.AND_NOT_ASSIGN: token.AND_ASSIGN, token.SHL_ASSIGN: token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN},
	"INVERT_LOGICAL":   {token.LAND: token.LOR, token.LOR: token.LAND},
	"INVERT_LOOPCTRL":  {token.BREAK: token.CONTINUE, token.CONTINUE: token.BREAK},
	"INVERT_NEGATIVES": {token.SUB: token.ADD},
	"REMOVE_SELF_ASSIGNMENTS": {token.ADD_ASSIGN: token.ASSIGN, token.AND_ASSIGN: token.ASSIGN, token.AND_NOT_ASSIGN: token.ASSIGN,
		token.MUL_ASSIGN: token.ASSIGN, token.OR_ASSIGN: token.ASSIGN, token.QUO_ASSIGN: token.ASSIGN, token.REM_ASSIGN: token.ASSIGN,
		token.SHL_ASSIGN: token.ASSIGN, token.SHR_ASSIGN: token.ASSIGN, token.SUB_ASSIGN: token.ASSIGN, token.XOR_ASSIGN: token.ASSIGN},
}

// applyOperator swaps the token at m.Line:m.Col (a byte column, 1-based, as
// go/token counts) as TokenSwaps[m.Type] says.
func applyOperator(src []byte, m Mutant) ([]byte, error) {
	swaps, ok := TokenSwaps[m.Type]
	if !ok {
		return nil, fmt.Errorf("mutant %s: unknown operator type %q", m.ID, m.Type)
	}
	fset := token.NewFileSet()
	f := fset.AddFile(m.File, -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, nil, 0)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		p := fset.Position(pos)
		if p.Line < m.Line || (p.Line == m.Line && p.Column < m.Col) {
			continue
		}
		if p.Line != m.Line || p.Column != m.Col {
			break
		}
		to, ok := swaps[tok]
		if !ok {
			return nil, fmt.Errorf("%w: %s:%d:%d: %s %q is not a %s token", ErrStale, m.File, m.Line, m.Col, tok, lit, m.Type)
		}
		off := f.Offset(pos)
		text := tok.String()
		var out bytes.Buffer
		out.Write(src[:off])
		out.WriteString(to.String())
		out.Write(src[off+len(text):])
		return out.Bytes(), nil
	}
	return nil, fmt.Errorf("%w: %s:%d:%d: no token there", ErrStale, m.File, m.Line, m.Col)
}

// operatorID is an operator mutant's ID: its position and type,
// file:line:col/TYPE. It is stable only while the code above it does not
// move (mutate.Equivalents' keys are such IDs: TestEquivalentsNameMutants).
func operatorID(m Mutant) string { return fmt.Sprintf("%s:%d:%d/%s", m.File, m.Line, m.Col, m.Type) }

// parseOperatorID is operatorID's inverse; ok is false for any other ID
// (a catalog mutant's name).
func parseOperatorID(id string) (m Mutant, ok bool) {
	slash := strings.LastIndex(id, "/")
	parts := strings.Split(id[:max(slash, 0)], ":")
	if len(parts) != 3 {
		return Mutant{}, false
	}
	line, err1 := strconv.Atoi(parts[1])
	col, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil {
		return Mutant{}, false
	}
	m = Mutant{ID: id, Kind: KindOperator, File: parts[0], Line: line, Col: col, Type: id[slash+1:]}
	return m, operatorID(m) == id
}

// operatorFiles maps the Go files whose operator mutants are measured to
// their areas. The rest of impl/ and spec/ is the checkers' own machinery
// (the deterministic driver, the spec comparison, events and schedtrace,
// workloads, hooks; the explorer, liveness, symmetry, the visited set):
// mutating a check measures nothing about the checks.
var operatorFiles = map[string]Area{
	"impl/runq.go":         AreaRunq,
	"impl/globrunq.go":     AreaRunq,
	"impl/gqueue.go":       AreaRunq,
	"impl/carrier.go":      AreaSched,
	"impl/g.go":            AreaSched,
	"impl/m.go":            AreaSched,
	"impl/p.go":            AreaSched,
	"impl/proc.go":         AreaSched,
	"impl/sched.go":        AreaSched,
	"impl/schedule.go":     AreaSched,
	"impl/shell.go":        AreaSched,
	"impl/steal.go":        AreaSched,
	"impl/syscall.go":      AreaSched,
	"impl/sysmon.go":       AreaSched,
	"impl/task.go":         AreaSched,
	"impl/netpoll.go":      AreaSched,
	"impl/netpollblock.go": AreaSched,
	"impl/timers.go":       AreaSched,
	"impl/stw.go":          AreaSched,
	"impl/locked.go":       AreaSched,
	"impl/procresize.go":   AreaSched,
	"impl/procs.go":        AreaSched,
	"impl/gm.go":           AreaGM,
	"spec/actions.go":      AreaSpec,
	"spec/check.go":        AreaSpec,
	"spec/g.go":            AreaSpec,
	"spec/globalqueue.go":  AreaSpec,
	"spec/localqueue.go":   AreaSpec,
	"spec/model.go":        AreaSpec,
	"spec/runq.go":         AreaSpec,
	"spec/state.go":        AreaSpec,
	"spec/poller.go":       AreaSpec,
	"spec/timers.go":       AreaSpec,
}

// gremlinsOutput is the part of gremlins' -o JSON the harness reads.
type gremlinsOutput struct {
	Files []struct {
		Name      string `json:"file_name"`
		Mutations []struct {
			Type   string `json:"type"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"mutations"`
	} `json:"files"`
}

// Operators runs gremlins' dry run on impl/ and spec/ under root and
// returns the operator mutants of the files in operatorFiles, in file and
// position order, less those in a seeded bug's body (seededBody). The dry
// run gathers coverage with 'go test -cover'; the harness gives it
// GOFLAGS=-run=^$ so that step compiles the packages and runs no test:
// which tests cover a mutant is the harness's business (techniques per
// area), not gremlins'.
func Operators(ctx context.Context, root string) ([]Mutant, error) {
	var out []Mutant
	for _, dir := range []string{"impl", "spec"} {
		ms, err := gremlinsDir(ctx, root, dir)
		if err != nil {
			return nil, err
		}
		if ms, err = dropSeededBodies(root, ms); err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

func gremlinsDir(ctx context.Context, root, dir string) ([]Mutant, error) {
	tmp, err := os.MkdirTemp("", "gmpcheck-gremlins-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	outFile := filepath.Join(tmp, "out.json")
	args := append([]string{"run", GremlinsModule, "unleash", "--dry-run", "-o", outFile}, gremlinsTypes...)
	args = append(args, "./"+dir)
	cmd := exec.CommandContext(ctx, "go", args...)
	procgroup.KillOnCancel(cmd)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -run=^$"), "TMPDIR="+tmp)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, lastLines(string(msg), 15))
	}
	data, err := os.ReadFile(outFile)
	if err != nil {
		return nil, fmt.Errorf("gremlins wrote no report: %v\n%s", err, lastLines(string(msg), 15))
	}
	return parseGremlins(data, dir)
}

func parseGremlins(data []byte, dir string) ([]Mutant, error) {
	var g gremlinsOutput
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("gremlins report: %v", err)
	}
	var out []Mutant
	for _, f := range g.Files {
		file := path.Join(dir, filepath.ToSlash(f.Name))
		area, ok := operatorFiles[file]
		if !ok {
			continue
		}
		for _, mu := range f.Mutations {
			if _, ok := TokenSwaps[mu.Type]; !ok {
				return nil, fmt.Errorf("gremlins report: unknown mutation type %q at %s:%d:%d", mu.Type, file, mu.Line, mu.Column)
			}
			m := Mutant{Kind: KindOperator, Area: area, File: file, Line: mu.Line, Col: mu.Column, Type: mu.Type}
			m.ID = operatorID(m)
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Type < b.Type
	})
	return out, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
