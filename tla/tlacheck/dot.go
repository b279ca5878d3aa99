package tlacheck

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// A Graph is the state graph tla-checker exports with --dot (dot_mode
// "full"): every reachable state, numbered as in the file, with its
// variables, and every transition with the action label tla-checker gives it
// (the name of the top-level disjunct of Next, without parameters).
type Graph struct {
	States []map[string]Value
	Edges  []Edge
}

// An Edge is one transition of a Graph.
type Edge struct {
	From, To int
	Label    string
}

var (
	dotNode = regexp.MustCompile(`^\s*s(\d+) \[label="(.*)"\];\s*$`)
	// An edge may come without a label (tla-checker writes none when it
	// cannot name the action); it is kept, with Label "".
	dotEdge = regexp.MustCompile(`^\s*s(\d+) -> s(\d+)(?: \[label="(.*)"\])?;\s*$`)
)

// ReadDOT parses a DOT file written by run.mjs --dot.
func ReadDOT(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	g := &Graph{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		if m := dotEdge.FindStringSubmatch(line); m != nil {
			from, _ := strconv.Atoi(m[1])
			to, _ := strconv.Atoi(m[2])
			g.Edges = append(g.Edges, Edge{from, to, unescapeDOT(m[3])})
			continue
		}
		if m := dotNode.FindStringSubmatch(line); m != nil {
			id, _ := strconv.Atoi(m[1])
			if id != len(g.States) {
				return nil, fmt.Errorf("%s:%d: state s%d out of order", path, lineNo, id)
			}
			vars, err := ParseAssignments(unescapeDOT(m[2]))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, lineNo, err)
			}
			g.States = append(g.States, vars)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, e := range g.Edges {
		if e.From >= len(g.States) || e.To >= len(g.States) {
			return nil, fmt.Errorf("%s: edge s%d -> s%d to an unknown state", path, e.From, e.To)
		}
	}
	if len(g.States) == 0 {
		return nil, fmt.Errorf("%s: no states", path)
	}
	return g, nil
}

func unescapeDOT(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
