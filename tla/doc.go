// Package tla holds gmpcheck's TLA+ specifications and the test that
// model-checks them: RunQueue.tla (the lock-free P-local run queue at the
// granularity of its atomic steps) and GMP.tla (the scheduler at the
// abstraction of package spec, with spec's action names).
//
// Every Module.cfg / Module_variant.cfg beside a module is checked by
// 'go test ./tla' with the wasm model checker tla-checker (pinned in
// package.json; install with 'npm ci --prefix tla'), and also with TLC when
// TLA2TOOLS_JAR names a tla2tools.jar. Seeded-bug cfgs (Module_bug_name.cfg)
// must fail with the invariant or property their "\* expect:" line names.
// See docs/tla.md.
package tla
