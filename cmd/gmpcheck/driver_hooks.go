//go:build gmpcheck_hooks

package main

import (
	"github.com/gmpcheck/gmpcheck/impl"
	"github.com/gmpcheck/gmpcheck/spec"
)

// checkTrace runs one driver trace against the spec, with bug seeded into
// the impl (the instrumented build has the seeded scheduler bugs).
func checkTrace(c impl.Chooser, bug spec.Bug, steps int) error {
	return impl.CheckSeededAgainstSpec(c, bug, steps)
}
