package tlacheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmpcheck/gmpcheck/internal/procgroup"
)

// Distributed TLC: tlc2.tool.distributed.TLCServer holds the state queue,
// the trace and (unless fingerprint servers register) the fingerprint set;
// tlc2.tool.distributed.TLCWorker processes connect to it over Java RMI,
// fetch blocks of states and return their successors. docs/tla.md,
// "Distributed TLC", gives the commands for one machine and for several.

// Java system properties read by TLC's distributed classes.
const (
	// tlcServerPortProp is the port of the server's RMI registry (TLC's
	// default is 10997). The worker's JVM reads the same property to find
	// the server, so both sides must be given it.
	tlcServerPortProp = "tlc2.tool.distributed.TLCServer.port"
	// tlcWorkerThreadsProp is the number of computing threads of a worker
	// (TLC's default is the number of cores).
	tlcWorkerThreadsProp = "tlc2.tool.distributed.TLCWorker.threadCount"
)

// ErrDistributedFPSet is returned (wrapped) when the worker cannot obtain
// the server's fingerprint set: TLC builds in which tlc2.tool.fp.FPSet is
// not a java.rmi.server.UnicastRemoteObject (the shared build at
// tlaplus/tlaplus cc6b616cf7e7 is one) cannot marshal it to a worker and
// fail with java.io.NotSerializableException: tlc2.tool.fp.MultiFPSet.
// Distributed mode does not work with such a build as it comes, with or
// without fingerprint servers (they register the same class with the
// server); DistributedOptions.ExportFPSet works round it.
var ErrDistributedFPSet = errors.New("this TLC build cannot hand its fingerprint set to a worker (tlc2.tool.fp.FPSet is not an RMI remote object): distributed mode does not work with it")

// exportedFPSetSource is a fingerprint set for TLC builds in which
// tlc2.tool.fp.FPSet is not an RMI remote object (ErrDistributedFPSet): TLC's
// in-memory MemFPSet, exported as a remote object as FPSet itself was in
// older TLC (extends UnicastRemoteObject), so that the server hands workers
// a reference to it instead of trying to copy it. TLC loads it through its
// own extension point, the system property tlc2.tool.fp.FPSet.impl; with
// -fpbits 0 it is not nested in a MultiFPSet. The distribution is TLC's.
const exportedFPSetSource = `package gmpcheck;

import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;

import tlc2.tool.fp.FPSetConfiguration;
import tlc2.tool.fp.MemFPSet;

/** TLC's MemFPSet, exported so that RMI passes it to workers by reference. */
public class ExportedFPSet extends MemFPSet {
	public ExportedFPSet(FPSetConfiguration c) throws RemoteException {
		super(c);
		UnicastRemoteObject.exportObject(this, 0);
	}
}
`

// exportedFPSetClass is exportedFPSetSource's class, for tlc2.tool.fp.FPSet.impl.
const exportedFPSetClass = "gmpcheck.ExportedFPSet"

// compileExportedFPSet compiles exportedFPSetSource against jar into
// dir/classes and returns that directory, for the server's class path.
func compileExportedFPSet(ctx context.Context, jar, dir string) (string, error) {
	src := filepath.Join(dir, "ExportedFPSet.java")
	if err := os.WriteFile(src, []byte(exportedFPSetSource), 0o644); err != nil {
		return "", err
	}
	classes := filepath.Join(dir, "classes")
	cmd := exec.CommandContext(ctx, "javac", "-cp", jar, "-d", classes, src)
	procgroup.KillOnCancel(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("javac (needed for DistributedOptions.ExportFPSet): %v\n%s", err, out)
	}
	return classes, nil
}

// DistributedOptions tunes RunTLCDistributed.
type DistributedOptions struct {
	// ExportFPSet makes the server keep its fingerprints in an exported
	// in-memory set (exportedFPSetSource, compiled with javac), a way
	// round ErrDistributedFPSet. The set lives in the server's heap.
	ExportFPSet bool
	// WorkerThreads is the worker's thread count (0: 1, for repeatable
	// runs).
	WorkerThreads int
	// Grace is how long the server may take to finish after the worker
	// has exited (0: 30 s). A server still running then has lost its
	// worker: the run fails with both outputs.
	Grace time.Duration
}

// A DistributedRun is what RunTLCDistributed saw besides the verdict.
type DistributedRun struct {
	Port         int    // the server's RMI registry port on 127.0.0.1
	ServerOutput string // TLCServer's stdout and stderr
	WorkerOutput string // TLCWorker's stdout and stderr
}

// syncBuffer is a bytes.Buffer that a process writes while Go reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// freeLoopbackPort asks the kernel for a free TCP port on 127.0.0.1. TLC
// cannot be told to choose one itself (its registry port is a system
// property, and the worker must know it), so the port is free when
// chosen, not guaranteed when the server binds it; a clash fails the run
// with the server's "Port already in use" message.
func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// RunTLCDistributed model-checks c with TLC's distributed mode on loopback:
// one tlc2.tool.distributed.TLCServer and one TLCWorker, both JVMs with
// java.rmi.server.hostname=127.0.0.1 and the server's registry on a free
// port. As RunTLC, it runs on copies of the modules in a temporary
// directory (which is also both JVMs' java.io.tmpdir, so nothing is left
// behind). Both JVMs lead process groups of their own and are killed, with
// whatever they started, when ctx is done and in any case before
// RunTLCDistributed returns.
//
// The verdict and the distinct-state count are the server's, parsed as
// RunTLC parses TLC's output but from the text alone: the server's exit
// status is not TLC's verdict code. A time limit gives a Timeout result and
// an error quoting both outputs; a worker that exits while the server waits
// for it gives an error at once (ErrDistributedFPSet when the build cannot
// serve its fingerprint set).
//
// The server prints a violated invariant's counterexample but not its name
// (TLCServerThread drops the worker's message). When the cfg lists one
// invariant that is its name; when it lists several, each is checked
// again on its own (a cfg with that INVARIANT alone, no PROPERTY): the name
// is the one invariant that fails alone or else, as TLC checks a state's
// invariants in the cfg's order, the first whose own counterexample ends
// in the same state; failing that, Name stays empty. Message lists those
// that fail alone. These runs share ctx's time limit.
func RunTLCDistributed(ctx context.Context, jar string, c Cfg, opt DistributedOptions) (Result, DistributedRun, error) {
	text, err := os.ReadFile(c.Path)
	if err != nil {
		return Result{}, DistributedRun{}, err
	}
	res, run, err := runDistributed(ctx, jar, c, string(text), opt)
	if err != nil || res.Outcome != Invariant || res.Name != "" {
		return res, run, err
	}
	if len(c.Invariants) == 1 {
		res.Name = c.Invariants[0]
		return res, run, nil
	}
	var failing, sameState []string
	final := lastTraceState(res.Trace)
	for _, inv := range c.Invariants {
		r, _, err := runDistributed(ctx, jar, c, onlyInvariantCfg(string(text), inv), opt)
		if err != nil {
			return res, run, fmt.Errorf("%s: naming the violated invariant (%s alone): %w", c.Name, inv, err)
		}
		switch r.Outcome {
		case Invariant:
			failing = append(failing, inv)
			if final != "" && lastTraceState(r.Trace) == final {
				sameState = append(sameState, inv)
			}
		case Pass:
		default:
			return res, run, fmt.Errorf("%s: naming the violated invariant: %s alone gives %s", c.Name, inv, r.Outcome)
		}
	}
	if len(failing) == 0 {
		res.Outcome = Error
		return res, run, fmt.Errorf("%s: distributed TLC printed a counterexample, but no invariant fails alone:\n%s", c.Name, res.Trace)
	}
	// TLC checks a state's invariants in the cfg's order and reports the
	// first that fails: of those whose own counterexample ends in the same
	// state, the first is the one violated.
	switch {
	case len(failing) == 1:
		res.Name = failing[0]
	case len(sameState) > 0:
		res.Name = sameState[0]
	}
	res.Message = fmt.Sprintf("Error: an invariant is violated (distributed TLC does not say which; failing alone: %s)", strings.Join(failing, ", "))
	return res, run, nil
}

// traceStateLine is the header of a state in a TLC counterexample.
var traceStateLine = regexp.MustCompile(`(?m)^State \d+: .*$`)

// lastTraceState is the last state of a TLC counterexample (its variables'
// lines), or "" when there is none.
func lastTraceState(trace string) string {
	locs := traceStateLine.FindAllStringIndex(trace, -1)
	if locs == nil {
		return ""
	}
	rest := trace[locs[len(locs)-1][1]:]
	state, _, _ := strings.Cut(strings.TrimLeft(rest, "\n"), "\n\n")
	return strings.TrimSpace(state)
}

// onlyInvariantCfg is the cfg text with its INVARIANT(S) and PROPERTY(IES)
// sections dropped and INVARIANT inv appended.
func onlyInvariantCfg(text, inv string) string {
	var out []string
	drop := false
	for _, line := range strings.SplitAfter(text, "\n") {
		code, _, _ := strings.Cut(line, `\*`)
		var kept []string
		for _, word := range strings.Fields(code) {
			if cfgKeywords[word] {
				drop = word == "INVARIANT" || word == "INVARIANTS" || word == "PROPERTY" || word == "PROPERTIES"
			}
			if !drop {
				kept = append(kept, word)
			}
		}
		if len(kept) == len(strings.Fields(code)) {
			out = append(out, line)
		} else if len(kept) > 0 {
			out = append(out, strings.Join(kept, " ")+"\n")
		}
	}
	return strings.TrimRight(strings.Join(out, ""), "\n") + "\nINVARIANT " + inv + "\n"
}

// runDistributed is one RunTLCDistributed run, on cfgText as c's cfg.
func runDistributed(ctx context.Context, jar string, c Cfg, cfgText string, opt DistributedOptions) (Result, DistributedRun, error) {
	var run DistributedRun
	if !fileExists(jar) {
		return Result{}, run, fmt.Errorf("TLA2TOOLS_JAR=%s: no such file", jar)
	}
	if opt.WorkerThreads <= 0 {
		opt.WorkerThreads = 1
	}
	if opt.Grace <= 0 {
		opt.Grace = 30 * time.Second
	}
	work, err := os.MkdirTemp("", "gmpcheck-dtlc-")
	if err != nil {
		return Result{}, run, err
	}
	defer os.RemoveAll(work)
	modules, err := filepath.Glob(filepath.Join(filepath.Dir(c.Path), "*.tla"))
	if err != nil {
		return Result{}, run, err
	}
	for _, f := range modules {
		if err := copyFile(f, filepath.Join(work, filepath.Base(f))); err != nil {
			return Result{}, run, err
		}
	}
	if err := os.WriteFile(filepath.Join(work, filepath.Base(c.Path)), []byte(cfgText), 0o644); err != nil {
		return Result{}, run, err
	}
	tmp := filepath.Join(work, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return Result{}, run, err
	}
	run.Port, err = freeLoopbackPort()
	if err != nil {
		return Result{}, run, err
	}
	common := []string{
		"-Djava.rmi.server.hostname=127.0.0.1",
		"-D" + tlcServerPortProp + "=" + strconv.Itoa(run.Port),
		"-Djava.io.tmpdir=" + tmp,
	}

	// Both JVMs die with runCtx: on the caller's deadline and on return.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var serverOut, workerOut syncBuffer
	serverArgs := append([]string{"-XX:+UseParallelGC"}, common...)
	serverCP, fpbits := jar, []string(nil)
	if opt.ExportFPSet {
		classes, err := compileExportedFPSet(ctx, jar, work)
		if err != nil {
			return Result{}, run, err
		}
		serverArgs = append(serverArgs, "-Dtlc2.tool.fp.FPSet.impl="+exportedFPSetClass)
		serverCP = jar + string(os.PathListSeparator) + classes
		fpbits = []string{"-fpbits", "0"}
	}
	serverArgs = append(serverArgs, "-cp", serverCP, "tlc2.tool.distributed.TLCServer")
	serverArgs = append(append(serverArgs, fpbits...),
		"-metadir", filepath.Join(work, "states"), "-config", filepath.Base(c.Path), c.Module+".tla")
	server := exec.CommandContext(runCtx, "java", serverArgs...)
	server.Dir = work
	server.Stdout, server.Stderr = &serverOut, &serverOut
	procgroup.KillOnCancel(server)
	worker := exec.CommandContext(runCtx, "java", append(append([]string{"-XX:+UseParallelGC"}, common...),
		"-D"+tlcWorkerThreadsProp+"="+strconv.Itoa(opt.WorkerThreads),
		"-cp", jar, "tlc2.tool.distributed.TLCWorker", "127.0.0.1")...)
	worker.Dir = work
	worker.Stdout, worker.Stderr = &workerOut, &workerOut
	procgroup.KillOnCancel(worker)

	start := time.Now()
	res := Result{Tool: "TLC (distributed)"}
	outputs := func() string {
		run.ServerOutput, run.WorkerOutput = serverOut.String(), workerOut.String()
		return fmt.Sprintf("--- TLCServer (127.0.0.1:%d):\n%s\n--- TLCWorker:\n%s",
			run.Port, lastLines(run.ServerOutput, 25), lastLines(run.WorkerOutput, 25))
	}
	if err := server.Start(); err != nil {
		return res, run, fmt.Errorf("%s: java: %v", c.Name, err)
	}
	serverDone := make(chan error, 1)
	go func() { serverDone <- server.Wait() }()
	workerDone := make(chan error, 1)
	workerStarted, serverExited := false, false
	defer func() {
		cancel()
		if workerStarted {
			<-workerDone
		}
		if !serverExited {
			<-serverDone
		}
	}()

	// Start the worker once the server is listening: a worker that finds
	// no server backs off for longer and longer (up to minutes).
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var serverErr error
wait:
	for {
		select {
		case serverErr = <-serverDone:
			serverExited = true
			break wait
		case <-runCtx.Done():
			break wait
		case <-tick.C:
			out := serverOut.String()
			if strings.Contains(out, "is ready") || strings.Contains(out, "Waiting for") {
				break wait
			}
		}
	}
	if !serverExited && runCtx.Err() == nil {
		if err := worker.Start(); err != nil {
			return res, run, fmt.Errorf("%s: java: %v", c.Name, err)
		}
		workerStarted = true
		go func() { workerDone <- worker.Wait() }()
		var grace <-chan time.Time
	loop:
		for {
			select {
			case serverErr = <-serverDone:
				serverExited = true
				break loop
			case <-workerDone:
				workerStarted = false
				if strings.Contains(workerOut.String(), "NotSerializableException: tlc2.tool.fp.") {
					res.Outcome, res.Elapsed = Error, time.Since(start)
					return res, run, fmt.Errorf("%s: %w\n%s", c.Name, ErrDistributedFPSet, outputs())
				}
				grace = time.After(opt.Grace)
			case <-grace:
				res.Outcome, res.Elapsed = Error, time.Since(start)
				return res, run, fmt.Errorf("%s: the worker exited and the server did not finish within %s:\n%s", c.Name, opt.Grace, outputs())
			case <-runCtx.Done():
				break loop
			}
		}
	}
	res.Elapsed = time.Since(start)
	if !serverExited {
		res.Outcome = Timeout
		res.Message = "time limit reached: " + ctx.Err().Error()
		return res, run, fmt.Errorf("%s: distributed TLC did not finish within the time limit:\n%s", c.Name, outputs())
	}
	text := serverOut.String()
	outputs()
	var ee *exec.ExitError
	if serverErr != nil && (!errors.As(serverErr, &ee) || ee.ExitCode() < 0) {
		return res, run, fmt.Errorf("%s: TLCServer: %v\n%s", c.Name, serverErr, outputs())
	}
	if loc := tlcTrace.FindStringIndex(text); loc != nil && !tlcInvariant.MatchString(text) && !tlcProperty.MatchString(text) && !tlcDeadlock.MatchString(text) && len(c.Invariants) > 0 {
		// The server's report of a worker's violation: the trace alone.
		res, _ = parseTLC(text[loc[1]:]+"\nModel checking completed. No error has been found.\n", c, res)
		res.Outcome, res.Name = Invariant, ""
		res.Message = "Error: an invariant is violated (distributed TLC does not say which)"
		res.Trace = strings.TrimRight(text[loc[0]:], "\n")
		return res, run, nil
	}
	r, err := parseTLC(text, c, res)
	if err != nil {
		return r, run, fmt.Errorf("%w\n%s", err, outputs())
	}
	return r, run, nil
}
