package tlacheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/procgroup"
)

// Outcome classifies what a checker reported.
type Outcome string

const (
	Pass      Outcome = "pass"      // every invariant and property held
	Invariant Outcome = "invariant" // an invariant failed (Result.Name says which)
	Property  Outcome = "property"  // a temporal property failed
	Deadlock  Outcome = "deadlock"  // a reachable state has no successor
	Error     Outcome = "error"     // the checker could not evaluate the model
	Limit     Outcome = "limit"     // a state or depth bound cut the search short
	Timeout   Outcome = "timeout"   // the time limit cut the search short
)

// A Result is one checker's verdict on one cfg.
type Result struct {
	Tool    string // "tla-checker" or "TLC"
	Outcome Outcome
	Name    string // the violated invariant or property, when known
	States  int    // distinct states found
	Message string // the checker's own summary line
	Trace   string // the counterexample, as the checker printed it
	Elapsed time.Duration
	// Coverage is TLC's coverage report, with TLCOptions.Coverage.
	Coverage Coverage
}

func (r Result) String() string {
	s := fmt.Sprintf("%s: %s", r.Tool, r.Outcome)
	if r.Name != "" {
		s += " " + r.Name
	}
	return s + fmt.Sprintf(" (%d states, %s)", r.States, r.Elapsed.Round(time.Millisecond))
}

// ErrNotInstalled is returned when tla-checker's npm package or node is
// missing; it says how to install it.
var ErrNotInstalled = errors.New("tla-checker is not installed: run 'npm ci --prefix tla' in the repository root (needs node and npm)")

// CheckInstalled reports ErrNotInstalled (wrapped with the detail) unless
// node and the pinned tla-checker package are present under dir.
func CheckInstalled(dir string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("%w: node not found in PATH", ErrNotInstalled)
	}
	wasm := filepath.Join(dir, "node_modules", "tla-checker", "tla_checker_bg.wasm")
	if !fileExists(wasm) {
		return fmt.Errorf("%w: %s is missing", ErrNotInstalled, wasm)
	}
	return nil
}

// checkerJSON is the object tla-checker's check_spec_with_options returns
// (see run.mjs), plus run.mjs's elapsed_ms.
type checkerJSON struct {
	Success        bool     `json:"success"`
	ErrorType      *string  `json:"error_type"`
	ErrorMessage   *string  `json:"error_message"`
	StatesExplored int      `json:"states_explored"`
	Trace          []string `json:"trace"`
	Warnings       []string `json:"warnings"`
	ElapsedMS      int64    `json:"elapsed_ms"`
}

// RunOptions select what RunChecker asks of tla-checker besides the check.
type RunOptions struct {
	// DOT, if not empty, receives the full state graph in DOT.
	DOT string
	// SafetySpec, if not empty, checks a copy of the cfg without its
	// PROPERTY lines and with SPECIFICATION SafetySpec (SafetyCfg):
	// tla-checker 0.9.0 evaluates temporal properties unsoundly (it ignores
	// fairness) and rejects fairness that is not WF/SF, so for a temporal
	// cfg only its exploration, invariants and deadlock check are used
	// (see golive.go).
	SafetySpec string
}

// RunChecker model-checks c with tla-checker under node. A time-out is a
// Result with Outcome Timeout, not an error; errors are reserved for
// failures to run.
func RunChecker(ctx context.Context, dir string, c Cfg, opt RunOptions) (Result, error) {
	if err := CheckInstalled(dir); err != nil {
		return Result{}, err
	}
	cfgPath := c.Path
	if opt.SafetySpec != "" {
		text, err := os.ReadFile(c.Path)
		if err != nil {
			return Result{}, err
		}
		tmp, err := os.MkdirTemp("", "gmpcheck-cfg-")
		if err != nil {
			return Result{}, err
		}
		defer os.RemoveAll(tmp)
		cfgPath = filepath.Join(tmp, filepath.Base(c.Path))
		if err := os.WriteFile(cfgPath, []byte(SafetyCfg(string(text), opt.SafetySpec)), 0o644); err != nil {
			return Result{}, err
		}
		c.Properties = nil
	}
	args := []string{filepath.Join(dir, "run.mjs"), c.ModulePath(), cfgPath}
	if opt.DOT != "" {
		args = append(args, "--dot", opt.DOT)
	}
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	procgroup.KillOnCancel(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := Result{Tool: "tla-checker", Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		res.Outcome = Timeout
		res.Message = "time limit reached: " + ctx.Err().Error()
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("node run.mjs %s: %v\n%s", c.Name, err, stderr.String())
	}
	return parseChecker(stdout.Bytes(), c, res)
}

func parseChecker(out []byte, c Cfg, res Result) (Result, error) {
	var j checkerJSON
	if err := json.Unmarshal(bytes.TrimSpace(out), &j); err != nil {
		return res, fmt.Errorf("%s: cannot parse tla-checker output: %v\n%s", c.Name, err, out)
	}
	res.States = j.StatesExplored
	res.Trace = strings.Join(j.Trace, "--- cycle ---\n")
	if j.ElapsedMS > 0 {
		res.Elapsed = time.Duration(j.ElapsedMS) * time.Millisecond
	}
	if j.Success {
		res.Outcome = Pass
		res.Message = "no error found"
		return res, nil
	}
	kind, msg := "", ""
	if j.ErrorType != nil {
		kind = *j.ErrorType
	}
	if j.ErrorMessage != nil {
		msg = *j.ErrorMessage
	}
	res.Message = kind + ": " + msg
	switch kind {
	case "InvariantViolation":
		res.Outcome = Invariant
		res.Name = invariantName(msg, c.Invariants)
	case "LivenessViolation":
		res.Outcome = Property
		// tla-checker prints the property's syntax tree, not its name: name it
		// only when the cfg has a single property.
		if len(c.Properties) == 1 {
			res.Name = c.Properties[0]
		}
	case "Deadlock":
		res.Outcome = Deadlock
		res.Name = "Deadlock"
	case "MaxStatesExceeded", "MaxDepthExceeded", "MaxTimeExceeded":
		res.Outcome = Limit
	default:
		res.Outcome = Error
	}
	if len(j.Warnings) > 0 {
		res.Message += " (warnings: " + strings.Join(j.Warnings, "; ") + ")"
	}
	return res, nil
}

var invariantIndex = regexp.MustCompile(`^Invariant (\S+) violated`)

// invariantName maps tla-checker's "Invariant <i> violated" (i counts the
// cfg's INVARIANT list from 0) back to the name.
func invariantName(msg string, invs []string) string {
	m := invariantIndex.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	if i, err := strconv.Atoi(m[1]); err == nil {
		if i >= 0 && i < len(invs) {
			return invs[i]
		}
		return ""
	}
	return m[1]
}

var (
	tlcDistinct  = regexp.MustCompile(`([\d,]+) distinct states found`)
	tlcInvariant = regexp.MustCompile(`(?m)^Error: Invariant (\S+) is violated`)
	// TLC has said a violated temporal property two ways: "Temporal
	// properties were violated." (1.7, 1.8) and "Temporal property <Name>
	// was violated." (later builds, with the name).
	tlcProperty = regexp.MustCompile(`(?m)^Error: Temporal propert(?:ies were|y (\S+) was) violated`)
	tlcDeadlock = regexp.MustCompile(`(?m)^Error: Deadlock reached`)
	tlcNoError  = regexp.MustCompile(`(?m)^Model checking completed\. No error has been found`)
	// The counterexample: "The following behavior constitutes a
	// counter-example:" (temporal properties) or "The behavior up to this
	// point is:" (invariants, deadlock).
	tlcTrace = regexp.MustCompile(`(?m)^Error: The (?:following behaviou?r constitutes a counter-example|behaviou?r up to this point is):`)
)

// TLC's exit statuses (tlc2.output.EC.ExitStatus).
const (
	tlcExitSuccess   = 0
	tlcExitAssume    = 10
	tlcExitDeadlock  = 11
	tlcExitSafety    = 12
	tlcExitLiveness  = 13
	tlcExitAssert    = 14
	tlcExitUnknown   = -1 // not known (a test parses text alone)
	tlcExitEvalFirst = 75 // 75..77: the spec, an invariant or a property could not be evaluated
	tlcExitEvalLast  = 77
)

// RunTLC model-checks c with TLC from the tla2tools.jar at jar, with one
// worker so that runs are repeatable, and temporal properties checked once,
// on the complete state graph (-lncheck final): by default TLC also checks
// them on the part found so far, at intervals that depend on the machine's
// speed, and stops at the first violation, so a failing temporal cfg's
// distinct-state count (and counterexample) varied with the load. With
// "final" the count of every temporal cfg is the whole graph's, which the
// tests compare with the Go explorer's. TLC runs on copies of the modules and
// the cfg in a temporary directory, never in the source tree: besides its
// states directory (-metadir), TLC 1.8 writes a trace-explorer module
// Module_TTrace_<time>.tla beside the module on every violation, which
// would land in tla/ and be picked up as a module of the project.
//
// The verdict comes from TLC's exit status, confirmed by its output: a
// status and an output that disagree (or an output with no verdict) is an
// error that quotes TLC's "Error:" lines.
func RunTLC(ctx context.Context, jar string, c Cfg) (Result, error) {
	return RunTLCDump(ctx, jar, c, "")
}

// RunTLCDump is RunTLC that, when dot is not empty, also has TLC write its
// state graph there (-dump dot,actionlabels; CompareTLCGraph reads it).
func RunTLCDump(ctx context.Context, jar string, c Cfg, dot string) (Result, error) {
	return RunTLCWith(ctx, jar, c, TLCOptions{DOT: dot})
}

// TLCOptions tune RunTLCWith. The zero value is RunTLC.
type TLCOptions struct {
	// DOT, if not empty, receives TLC's state graph (-dump
	// dot,actionlabels).
	DOT string
	// Workers is TLC's number of workers (0: 1). With more than one the
	// order of the search depends on the scheduling, so a counterexample
	// (and the distinct-state count at a violation) can change from run to
	// run; the verdict and the count of a complete search cannot.
	Workers int
	// QuickStart runs the JVM with its first-tier compiler only
	// (-XX:TieredStopAtLevel=1). On a cfg of a few thousand states TLC
	// spends most of its CPU time starting up (parsing GMP.tla, compiling
	// its own code), and the optimizing tier costs more than it saves: it
	// halves TLC's CPU time on the small cfgs. It changes nothing TLC
	// computes.
	QuickStart bool
	// Coverage has TLC report how often it evaluated each expression
	// (-coverage) and fills Result.Coverage. It slows TLC (timers_sleep's
	// 39,332 states: 36 s against 22 s), so it is for one run whose
	// report is kept, such as the mutation harness's baseline.
	Coverage bool
}

// RunTLCWith is RunTLC with options.
func RunTLCWith(ctx context.Context, jar string, c Cfg, opt TLCOptions) (Result, error) {
	dot := opt.DOT
	if !fileExists(jar) {
		return Result{}, fmt.Errorf("TLA2TOOLS_JAR=%s: no such file", jar)
	}
	work, err := os.MkdirTemp("", "gmpcheck-tlc-")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(work)
	modules, err := filepath.Glob(filepath.Join(filepath.Dir(c.Path), "*.tla"))
	if err != nil {
		return Result{}, err
	}
	for _, f := range append(modules, c.Path) {
		if err := copyFile(f, filepath.Join(work, filepath.Base(f))); err != nil {
			return Result{}, err
		}
	}
	meta := filepath.Join(work, "states")
	workers := max(opt.Workers, 1)
	args := []string{"-XX:+UseParallelGC"}
	if opt.QuickStart {
		args = append(args, "-XX:TieredStopAtLevel=1")
	}
	args = append(args, "-cp", jar, "tlc2.TLC", "-workers", strconv.Itoa(workers), "-lncheck", "final", "-metadir", meta)
	if opt.Coverage {
		// The interval in minutes; TLC also reports at the end, and
		// ParseCoverage reads the last report.
		args = append(args, "-coverage", "60")
	}
	if dot != "" {
		abs, err := filepath.Abs(dot)
		if err != nil {
			return Result{}, err
		}
		args = append(args, "-dump", "dot,actionlabels", abs)
	}
	args = append(args, "-config", filepath.Base(c.Path), c.Module+".tla")
	cmd := exec.CommandContext(ctx, "java", args...)
	cmd.Dir = work
	procgroup.KillOnCancel(cmd)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	runErr := cmd.Run()
	res := Result{Tool: "TLC", Elapsed: time.Since(start)}
	if ctx.Err() != nil {
		res.Outcome = Timeout
		res.Message = "time limit reached: " + ctx.Err().Error()
		return res, nil
	}
	status := 0
	if runErr != nil {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) || ee.ExitCode() < 0 {
			return res, fmt.Errorf("%s: java: %v\n%s", c.Name, runErr, lastLines(out.String(), 10))
		}
		status = ee.ExitCode()
	}
	if opt.Coverage {
		res.Coverage = ParseCoverage(out.String())
	}
	return parseTLCStatus(out.String(), status, c, res)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// parseTLC reads TLC's verdict from its output alone.
func parseTLC(text string, c Cfg, res Result) (Result, error) {
	return parseTLCStatus(text, tlcExitUnknown, c, res)
}

// parseTLCStatus reads TLC's verdict from its exit status and its output,
// which must agree. Message is TLC's error line ("Error: Invariant Safe is
// violated."), Trace the counterexample from TLC's "behavior constitutes a
// counter-example" line on.
func parseTLCStatus(text string, status int, c Cfg, res Result) (Result, error) {
	if m := tlcDistinct.FindAllStringSubmatch(text, -1); m != nil {
		n, _ := strconv.Atoi(strings.ReplaceAll(m[len(m)-1][1], ",", ""))
		res.States = n
	}
	// The outcome the text says and the exit status it needs.
	var want int
	switch {
	case tlcInvariant.MatchString(text):
		res.Outcome, want = Invariant, tlcExitSafety
		res.Name = tlcInvariant.FindStringSubmatch(text)[1]
		res.Message = tlcInvariant.FindString(text)
	case tlcProperty.MatchString(text):
		res.Outcome, want = Property, tlcExitLiveness
		m := tlcProperty.FindStringSubmatch(text)
		res.Message = m[0]
		switch {
		case m[1] != "":
			res.Name = strings.TrimSuffix(m[1], ".")
		case len(c.Properties) == 1:
			res.Name = c.Properties[0]
		}
	case tlcDeadlock.MatchString(text):
		res.Outcome, want = Deadlock, tlcExitDeadlock
		res.Name = "Deadlock"
		res.Message = tlcDeadlock.FindString(text)
	case tlcNoError.MatchString(text):
		res.Outcome, want = Pass, tlcExitSuccess
		res.Message = tlcNoError.FindString(text)
	default:
		res.Outcome = Error
		res.Message = tlcErrorLines(text, status)
		return res, fmt.Errorf("%s: TLC reported no verdict (exit status %d):\n%s", c.Name, status, res.Message)
	}
	if status != tlcExitUnknown && status != want {
		out := res.Outcome
		res.Outcome, res.Name = Error, ""
		res.Message = tlcErrorLines(text, status)
		return res, fmt.Errorf("%s: TLC's output says %s but its exit status is %d (%s):\n%s", c.Name, out, status, tlcStatusName(status), res.Message)
	}
	if res.Outcome != Pass {
		if loc := tlcTrace.FindStringIndex(text); loc != nil {
			res.Trace = strings.TrimRight(text[loc[0]:], "\n")
		} else {
			res.Trace = text
		}
	}
	return res, nil
}

// tlcErrorLines is what a failed TLC run said: its "Error:" lines (and the
// line after each, where TLC continues the message), else its last lines.
func tlcErrorLines(text string, status int) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i, l := range lines {
		if strings.HasPrefix(l, "Error:") || strings.Contains(l, "Exception") {
			out = append(out, l)
			if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && !strings.HasPrefix(lines[i+1], "Error:") {
				out = append(out, lines[i+1])
			}
		}
	}
	if len(out) == 0 {
		return lastLines(text, 15)
	}
	if len(out) > 20 {
		out = out[:20]
	}
	return strings.Join(out, "\n")
}

func tlcStatusName(status int) string {
	switch {
	case status == tlcExitSuccess:
		return "success"
	case status == tlcExitAssume:
		return "assumption violated"
	case status == tlcExitDeadlock:
		return "deadlock"
	case status == tlcExitSafety:
		return "safety violation"
	case status == tlcExitLiveness:
		return "liveness violation"
	case status == tlcExitAssert:
		return "assertion failed"
	case status >= tlcExitEvalFirst && status <= tlcExitEvalLast:
		return "evaluation failure"
	case status >= 150 && status <= 153:
		return "parse, config or system error"
	}
	return "error"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Verdict is how a Result measures against its cfg's expectation.
type Verdict int

const (
	OK           Verdict = iota // what the cfg expects happened
	Wrong                       // a different verdict, or a wrong state count
	Inconclusive                // the search was cut short (time or bound)
)

func (v Verdict) String() string {
	switch v {
	case OK:
		return "ok"
	case Wrong:
		return "WRONG"
	default:
		return "inconclusive"
	}
}

// Judge compares r with what c expects and explains a mismatch.
func Judge(c Cfg, r Result) (Verdict, string) {
	switch r.Outcome {
	case Timeout, Limit:
		return Inconclusive, r.Message
	case Error:
		return Wrong, "the checker failed: " + r.Message
	}
	if c.ExpectPass() {
		if r.Outcome != Pass {
			return Wrong, fmt.Sprintf("expected pass, got %s %s", r.Outcome, r.Name)
		}
		if c.States != 0 && r.States != c.States {
			return Wrong, fmt.Sprintf("expected %d distinct states (the cfg's states line), got %d", c.States, r.States)
		}
		return OK, fmt.Sprintf("pass, %d states", r.States)
	}
	want := Outcome(c.ExpectKind())
	if r.Outcome != want || r.Name != c.Expect {
		return Wrong, fmt.Sprintf("expected %s %s to fail, got %s %s", want, c.Expect, r.Outcome, r.Name)
	}
	return OK, fmt.Sprintf("fails as expected: %s %s", r.Outcome, r.Name)
}

// LabelTrace prints a counterexample of c, as tla-checker or TLC printed it
// (Result.Trace), step by step with the name of the action of each step, as
// the Go explorer prints its traces: the first state in full, then per step
// "k. Action" and the variables it changed. The names come from
// tla-checker's state graph (each edge labelled with the top-level
// disjunct of Next), exported by a second run (--dot) that LabelTrace
// makes; a step with no edge in that graph is named "?". It returns an
// error when the trace cannot be read or a state is not in the graph.
func LabelTrace(ctx context.Context, dir string, c Cfg, trace string) (string, error) {
	states, err := traceStates(trace)
	if err != nil {
		return "", err
	}
	if len(states) == 0 {
		return "", errors.New("no states in the trace")
	}
	tmp, err := os.MkdirTemp("", "gmpcheck-label-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	dot := filepath.Join(tmp, c.Name+".dot")
	opt := RunOptions{DOT: dot}
	if c.Temporal() {
		opt.SafetySpec = "Spec"
	}
	if _, err := RunChecker(ctx, dir, c, opt); err != nil {
		return "", err
	}
	nodes, edges, err := readDOTStates(dot)
	if err != nil {
		return "", err
	}
	index := map[string]int{}
	for i, s := range nodes {
		index[stateKey(s)] = i
	}
	labels := map[[2]int]string{}
	for _, e := range edges {
		if _, ok := labels[[2]int{e.From, e.To}]; !ok || e.Label != "" {
			labels[[2]int{e.From, e.To}] = e.Label
		}
	}
	ids := make([]int, len(states))
	for k, s := range states {
		id, ok := index[stateKey(s)]
		if !ok {
			return "", fmt.Errorf("state %d of the trace is not in tla-checker's graph of %s", k, c.Name)
		}
		ids[k] = id
	}
	var b strings.Builder
	b.WriteString("initial state:\n")
	for _, n := range sortedVars(states[0]) {
		fmt.Fprintf(&b, "      %s = %v\n", n, states[0][n])
	}
	for k := 1; k < len(states); k++ {
		label, ok := labels[[2]int{ids[k-1], ids[k]}]
		switch {
		case !ok && ids[k-1] == ids[k]:
			label = "(stutter)"
		case !ok || label == "":
			label = "?"
		}
		fmt.Fprintf(&b, "%3d. %s\n", k, label)
		for _, n := range sortedVars(states[k]) {
			if states[k][n].String() != states[k-1][n].String() {
				fmt.Fprintf(&b, "      %s = %v\n", n, states[k][n])
			}
		}
	}
	return b.String(), nil
}

// readDOTStates reads the states and edges of a DOT file of run.mjs
// --dot as ReadDOT does, but accepts the states in any order: the graph of
// a run stopped by a violation lists them as the search met them.
func readDOTStates(path string) (map[int]map[string]Value, []Edge, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	nodes := map[int]map[string]Value{}
	var edges []Edge
	for _, line := range strings.Split(string(b), "\n") {
		if m := dotEdgeAttrs.FindStringSubmatch(line); m != nil {
			from, _ := strconv.Atoi(m[1])
			to, _ := strconv.Atoi(m[2])
			edges = append(edges, Edge{from, to, unescapeDOT(m[3])})
			continue
		}
		if m := dotNodeAttrs.FindStringSubmatch(line); m != nil {
			id, _ := strconv.Atoi(m[1])
			vars, err := ParseAssignments(unescapeDOT(m[2]))
			if err != nil {
				return nil, nil, fmt.Errorf("%s: s%d: %w", path, id, err)
			}
			nodes[id] = vars
		}
	}
	if len(nodes) == 0 {
		return nil, nil, fmt.Errorf("%s: no states", path)
	}
	return nodes, edges, nil
}

// traceStates splits a printed trace into its states: tla-checker's
// "State N" blocks of "var = value" lines, or TLC's "State N: <...>" blocks
// of "/\ var = value" conjuncts (a value may continue on the next lines).
// A "Back to state N" line (a lasso) ends the list.
func traceStates(trace string) ([]map[string]Value, error) {
	var out []map[string]Value
	var cur []string
	flush := func() error {
		if cur == nil {
			return nil
		}
		s, err := ParseAssignments(strings.Join(cur, "\n"))
		if err != nil {
			return err
		}
		out = append(out, s)
		cur = nil
		return nil
	}
	for _, line := range strings.Split(trace, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "State "):
			if err := flush(); err != nil {
				return nil, err
			}
			cur = []string{}
		case strings.HasPrefix(t, "Back to state") || strings.HasPrefix(t, "--- cycle"):
			if err := flush(); err != nil {
				return nil, err
			}
			return out, nil
		case cur == nil:
		case t == "":
			// TLC separates its states with a blank line; what follows the
			// last one is its statistics.
			if err := flush(); err != nil {
				return nil, err
			}
		case strings.HasPrefix(t, "/\\ "):
			cur = append(cur, strings.TrimPrefix(t, "/\\ "))
		case strings.Contains(t, " = ") && !strings.HasPrefix(t, "[") && len(cur) == 0:
			cur = append(cur, t)
		case len(cur) > 0 && !tlcVarLine.MatchString(t):
			cur[len(cur)-1] += " " + t // a value continued
		default:
			cur = append(cur, t)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// dotNodeAttrs is a DOT state whose label may be followed by more
// attributes (the violating state is coloured).
var (
	dotNodeAttrs = regexp.MustCompile(`^\s*s(\d+) \[label="((?:[^"\\]|\\.)*)"`)
	dotEdgeAttrs = regexp.MustCompile(`^\s*s(\d+) -> s(\d+)(?: \[label="((?:[^"\\]|\\.)*)")?`)
)

var tlcVarLine = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]* = `)

func stateKey(s map[string]Value) string {
	var b strings.Builder
	for _, n := range sortedVars(s) {
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(s[n].String())
		b.WriteByte('\n')
	}
	return b.String()
}

func sortedVars(s map[string]Value) []string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
