package tlacheck

// LongCfgs are the cfgs whose tla-checker run takes minutes: GMP_np3, the
// smallest three-P model at the runtime's granularity (79056 states, at a
// few hundred states a second), and GMP_go121, the smallest bounds on which
// the Go 1.21 scheduler loses a wakeup (6472 states; the default tier has
// enough cfgs of that size). The default test tier and gmpcheck verify
// check their bounds with the Go explorer (and TLC when present) instead;
// go test ./tla -long, GMPCHECK_LONG=1 and gmpcheck tla -run run
// tla-checker and the graph cross-check on them.
var LongCfgs = map[string]bool{"GMP_np3": true, "GMP_go121": true}
