// Package tla holds gmpcheck's TLA+ specifications and the test that
// model-checks them: RunQueue.tla (the lock-free P-local run queue at the
// granularity of its atomic steps) and GMP.tla (the scheduler at the
// abstraction of package spec, with spec's action names).
//
// 'go test ./tla' parses every module with the community TLA+ grammar
// (tree-sitter-tlaplus, wasm) and checks every Module.cfg /
// Module_variant.cfg beside a module with the wasm model checker
// tla-checker (both pinned in package.json; install with
// 'npm ci --prefix tla'), and also with TLC when TLA2TOOLS_JAR names a
// tla2tools.jar. Seeded-bug cfgs (Module_bug_name.cfg) must fail with the
// invariant or property their "\* expect:" line names.
//
// GMP.tla's state graph, exported by tla-checker, is compared with spec's
// state for state and edge for edge (labelled with action and fairness
// agent). Temporal properties are checked by TLC and, without TLC, by the
// Go explorer's liveness check on that same graph (tlacheck.GoLiveness):
// tla-checker's own liveness verdict ignores fairness and is not used.
// See docs/tla.md.
package tla
