// Package procgroup starts gmpcheck's child processes (node, java, npm, the
// instrumented re-run of itself) in process groups of their own, so that
// cancelling the context that runs one takes down the child and everything
// it started, and an interrupted gmpcheck leaves no process behind.
package procgroup

import (
	"os/exec"
	"syscall"
	"time"
)

// waitDelay bounds how long Wait waits for a killed child's output pipes.
const waitDelay = 5 * time.Second

// KillOnCancel makes cmd, which must come from exec.CommandContext and not
// have started, lead a process group of its own and be killed with its
// whole group when its context is done.
func KillOnCancel(cmd *exec.Cmd) {
	setGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay
}

// Signal sends sig to cmd's process group (see KillOnCancel).
func Signal(cmd *exec.Cmd, sig syscall.Signal) error {
	return signalGroup(cmd, sig)
}
