// Package mutate is gmpcheck's mutation harness: it makes realistic one-line
// bugs in impl/, spec/ and the TLA+ modules, runs the project's checks on
// each and records which techniques kill it (docs/mutation.md).
//
// Two sources of mutants:
//
//   - operator mutants, listed by the maintained tool go-gremlins
//     (github.com/go-gremlins/gremlins, pinned as GremlinsModule and run
//     with 'go run'; its packages are all internal, so it cannot be
//     imported). Its dry run lists each mutation as (type, file, line,
//     column); the harness applies the token swap gremlins' table names
//     (TokenSwaps) itself, on an overlay;
//   - semantic mutants from Catalog: (file, exact original text,
//     replacement) triples, checked in, that an operator tool cannot make
//     (a dropped wakep call, a missing CAS retry, a TLA+ guard removed...).
//     An entry whose original text is no longer in its file, or is there
//     more than once, is reported stale: neither killed nor survived.
//
// Go mutants run without copying the tree: the mutated file is written to a
// temporary directory and the test binaries are built with
// 'go test -c -overlay', then run with -test.run selecting one technique's
// tests. TLA+ mutants are written with the other modules and cfgs into a
// temporary directory and checked there with tla-checker (and TLC when
// TLA2TOOLS_JAR is set). Before any mutant is judged, every technique is
// run on the unmutated tree (the baseline); a technique that fails there
// is reported and not used.
package mutate
