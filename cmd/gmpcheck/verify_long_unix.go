//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the user CPU time of this process and of its children that
// have been waited for (the go builds, node, java and test binaries the
// stages run), for the stage lines' user time next to the wall time.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	return time.Duration(self.Utime.Nano() + children.Utime.Nano())
}
