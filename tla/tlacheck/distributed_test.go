package tlacheck

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeDistJava stands in for java in RunTLCDistributed's tests: as the
// server it records its arguments, says it is ready, waits for the
// worker's mark in the shared directory and prints $FAKE_SERVER_OUT (or,
// with FAKE_SERVER_HANG set, sleeps as a server that lost its worker
// does); as the worker it records its arguments, leaves the mark and
// prints $FAKE_WORKER_OUT.
const fakeDistJava = `#!/bin/sh
case "$*" in
*tlc2.tool.distributed.TLCServer\ *)
	printf '%s\n' "$@" > "$FAKE_LOG.server"
	echo "TLC server at fake is ready"
	if [ -n "$FAKE_SERVER_HANG" ]; then sleep 300; fi
	while [ ! -e worker.mark ]; do sleep 0.05; done
	cat "$FAKE_SERVER_OUT"
	exit 0;;
*)
	printf '%s\n' "$@" > "$FAKE_LOG.worker"
	touch worker.mark
	cat "$FAKE_WORKER_OUT"
	exit 0;;
esac
`

// TestRunTLCDistributedFakeJava runs RunTLCDistributed against
// fakeDistJava: the two command lines (loopback, one port for both), the
// parse of the server's verdict, a worker that cannot get the fingerprint
// set (an error at once, not a wait), and a server that never finishes (a
// timeout with its output, within the time limit).
func TestRunTLCDistributedFakeJava(t *testing.T) {
	jar := onPathAsJava(t, fakeDistJava)
	c, err := ParseCfg(writeCfg(t, "M_bug_x.cfg", "\\* expect: Safe\nSPECIFICATION Spec\nINVARIANT Safe\n"))
	if err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(t.TempDir(), "java")
	serverOut := filepath.Join(t.TempDir(), "server.out")
	workerOut := filepath.Join(t.TempDir(), "worker.out")
	t.Setenv("FAKE_LOG", logs)
	t.Setenv("FAKE_SERVER_OUT", serverOut)
	t.Setenv("FAKE_WORKER_OUT", workerOut)
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	write(workerOut, "TLC Worker fake\n")
	write(serverOut, "Error: Invariant Safe is violated.\n17 states generated, 17 distinct states found, 0 states left on queue.\n")
	r, run, err := RunTLCDistributed(context.Background(), jar, c, DistributedOptions{})
	if err != nil || r.Outcome != Invariant || r.Name != "Safe" || r.States != 17 {
		t.Fatalf("violation: %v %q %d states, %v", r.Outcome, r.Name, r.States, err)
	}
	server, _ := os.ReadFile(logs + ".server")
	worker, _ := os.ReadFile(logs + ".worker")
	port := "-Dtlc2.tool.distributed.TLCServer.port=" + strconv.Itoa(run.Port)
	for _, want := range []string{"-Djava.rmi.server.hostname=127.0.0.1", port, "tlc2.tool.distributed.TLCServer", "-config\nM_bug_x.cfg\nM.tla"} {
		if !strings.Contains(string(server), want) {
			t.Errorf("server arguments lack %q:\n%s", want, server)
		}
	}
	for _, want := range []string{"-Djava.rmi.server.hostname=127.0.0.1", port, "-Dtlc2.tool.distributed.TLCWorker.threadCount=1", "tlc2.tool.distributed.TLCWorker\n127.0.0.1"} {
		if !strings.Contains(string(worker), want) {
			t.Errorf("worker arguments lack %q:\n%s", want, worker)
		}
	}

	write(serverOut, "Model checking completed. No error has been found.\n1,200 states generated, 1,111 distinct states found, 0 states left on queue.\n")
	if r, _, err = RunTLCDistributed(context.Background(), jar, c, DistributedOptions{}); err != nil || r.Outcome != Pass || r.States != 1111 {
		t.Fatalf("pass: %v %d states, %v", r.Outcome, r.States, err)
	}

	// The worker fails as with the shared build; the server, as that
	// build's does, waits for ever.
	t.Setenv("FAKE_SERVER_HANG", "1")
	write(workerOut, "Error: Failed to start worker  for server 127.0.0.1.\nerror unmarshalling return; nested exception is: \n\tjava.io.WriteAbortedException: writing aborted; java.io.NotSerializableException: tlc2.tool.fp.MultiFPSet\n")
	// Recognised from the worker's output, not by waiting: with a grace
	// period longer than the run's deadline, waiting would end in the
	// deadline's Timeout instead.
	fpCtx, fpCancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer fpCancel()
	_, _, err = RunTLCDistributed(fpCtx, jar, c, DistributedOptions{Grace: time.Hour})
	if !errors.Is(err, ErrDistributedFPSet) {
		t.Fatalf("broken fingerprint set: %v", err)
	}

	// A worker that exits cleanly but leaves the server hanging: the grace
	// period ends the run.
	write(workerOut, "TLC Worker fake\n")
	_, _, err = RunTLCDistributed(context.Background(), jar, c, DistributedOptions{Grace: time.Second})
	if err == nil || !strings.Contains(err.Error(), "did not finish within 1s") || !strings.Contains(err.Error(), "TLC server at fake is ready") {
		t.Fatalf("lost worker: %v", err)
	}

	// The time limit: a Timeout result and an error quoting the server.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, _, err = RunTLCDistributed(ctx, jar, c, DistributedOptions{Grace: time.Hour})
	if r.Outcome != Timeout || err == nil || !strings.Contains(err.Error(), "TLC server at fake is ready") {
		t.Fatalf("timeout: %v, %v", r.Outcome, err)
	}
}

// TestOnlyInvariantCfg: the cfg keeps its constants and specification,
// loses its invariants and properties, and checks the one invariant given;
// a counterexample's last state is its final block of variables.
func TestOnlyInvariantCfg(t *testing.T) {
	in := "\\* expect: B\nCONSTANTS\n    N = 2\nSPECIFICATION Spec\nINVARIANTS\n    A\n    B \\* the bug\nPROPERTY Live\n"
	got := onlyInvariantCfg(in, "B")
	want := "\\* expect: B\nCONSTANTS\n    N = 2\nSPECIFICATION Spec\nINVARIANT B\n"
	if got != want {
		t.Errorf("onlyInvariantCfg:\n%s\nwant\n%s", got, want)
	}
	trace := "Error: The behavior up to this point is:\nState 1: <Initial predicate>\nx = 0\n\nState 2: <Next line 3, col 1 to line 3, col 9 of module M>\nx = 1\ny = 2\n\nWorker: done\n"
	if s := lastTraceState(trace); s != "x = 1\ny = 2" {
		t.Errorf("lastTraceState = %q", s)
	}
}
