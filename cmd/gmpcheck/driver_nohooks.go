//go:build !gmpcheck_hooks

package main

import (
	"fmt"

	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// checkTrace runs one driver trace against the spec. The default build has
// no seeded scheduler bugs: runDriver re-executes the instrumented build for
// them, so a bug reaching here is a programming error, and it is reported as
// one rather than counted as caught.
func checkTrace(c impl.Chooser, bug spec.Bug, steps int) error {
	if bug != spec.BugNone {
		panic(fmt.Sprintf("driver: seeded bug %v in the default build", bug))
	}
	return impl.CheckAgainstSpec(c, steps)
}
