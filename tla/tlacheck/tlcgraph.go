package tlacheck

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// TLC's state graph. With -dump dot,actionlabels TLC writes every
// reachable state as a node named by its fingerprint and every transition
// it generates as an edge, labelled with the action it attributes the
// transition to. GMP.tla's M steps are one IF-dispatched disjunct of Next,
// so TLC labels them all "Next"; only the top-level named disjuncts keep a
// name (InjectGList, TimerTick, Terminated, ...). The comparison with the
// spec is therefore on states and unlabelled edges: it does not check the
// action names or agents that the fairness argument rests on (tla-checker's
// labelled graph does, CompareGMPGraph), but it runs at TLC's speed, which
// is what lets the cfgs too slow for tla-checker have their graph checked
// wherever TLC runs.

var (
	// A node's label is a quoted string with \" escapes; TLC may follow
	// it with a tooltip (the same text) or the initial state's style.
	tlcNodeRE = regexp.MustCompile(`^(-?\d+) \[label="((?:[^"\\]|\\.)*)"`)
	tlcEdgeRE = regexp.MustCompile(`^(-?\d+) -> (-?\d+) \[label="([^"]*)"`)
)

// CompareTLCGraph compares the graph TLC dumped for a GMP cfg (RunTLCDump)
// with spec's graph under b, state for state and edge for edge without
// labels; the only self-loops allowed are Terminated's stutters. A
// difference is an error wrapping ErrGraphsDiffer; other errors mean the
// comparison could not be made. The file is read line by line and each
// state kept only as its canonical key, so a graph of hundreds of
// thousands of states fits in memory.
func CompareTLCGraph(ctx context.Context, dotPath string, b spec.Bounds) (Comparison, error) {
	f, err := os.Open(dotPath)
	if err != nil {
		return Comparison{}, err
	}
	defer f.Close()
	keys := map[int64]string{}
	tlaStates := map[string]bool{}
	type tlcEdge struct {
		from, to int64
		term     bool
	}
	var edges []tlcEdge
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for lineNo := 1; sc.Scan(); lineNo++ {
		if lineNo%100000 == 0 && ctx.Err() != nil {
			return Comparison{}, ctx.Err()
		}
		line := sc.Text()
		if m := tlcEdgeRE.FindStringSubmatch(line); m != nil {
			from, err1 := strconv.ParseInt(m[1], 10, 64)
			to, err2 := strconv.ParseInt(m[2], 10, 64)
			if err1 != nil || err2 != nil {
				return Comparison{}, fmt.Errorf("%s:%d: bad edge %q", dotPath, lineNo, line)
			}
			edges = append(edges, tlcEdge{from, to, m[3] == labelTerm})
			continue
		}
		m := tlcNodeRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		id, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return Comparison{}, fmt.Errorf("%s:%d: bad state name %q", dotPath, lineNo, m[1])
		}
		// GMP.tla has one variable, st; TLC writes a state of one
		// variable as "st = value", the value pretty-printed over lines.
		name, val, ok := strings.Cut(unescapeDOT(m[2]), " = ")
		if !ok || strings.TrimSpace(name) != "st" {
			return Comparison{}, fmt.Errorf("%s:%d: want a state of the one variable st, got %.40q", dotPath, lineNo, m[2])
		}
		v, err := ParseValue(strings.TrimSpace(val))
		if err != nil {
			return Comparison{}, fmt.Errorf("%s:%d: %w", dotPath, lineNo, err)
		}
		k, _, err := tlaState(map[string]Value{"st": v}, b)
		if err != nil {
			return Comparison{}, fmt.Errorf("%s:%d: %v", dotPath, lineNo, err)
		}
		if _, dup := keys[id]; dup {
			return Comparison{}, fmt.Errorf("%s:%d: state %d written twice", dotPath, lineNo, id)
		}
		keys[id] = k
		tlaStates[k] = true
	}
	if err := sc.Err(); err != nil {
		return Comparison{}, err
	}
	if len(keys) == 0 {
		return Comparison{}, fmt.Errorf("%s: no states", dotPath)
	}
	var problems []string
	if len(tlaStates) != len(keys) {
		problems = append(problems, fmt.Sprintf("TLC's graph maps %d states to %d distinct spec states", len(keys), len(tlaStates)))
	}
	tlaEdges := map[edge]bool{}
	for _, e := range edges {
		from, ok1 := keys[e.from]
		to, ok2 := keys[e.to]
		if !ok1 || !ok2 {
			return Comparison{}, fmt.Errorf("%s: edge %d -> %d to a state it does not list", dotPath, e.from, e.to)
		}
		if from == to {
			if !e.term {
				problems = append(problems, fmt.Sprintf("GMP.tla has a self-loop other than Terminated:\n  %s", from))
			}
			continue
		}
		tlaEdges[unlabelledEdge(from, to)] = true
	}
	return compareWithSpec(ctx, b, tlaStates, tlaEdges, false, problems)
}

// unlabelledEdge is an edge as the unlabelled comparison sees it.
func unlabelledEdge(from, to string) edge { return edge{from: from, to: to, agent: -1} }
