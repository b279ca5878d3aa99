package tlacheck

// LongCfgs are the cfgs whose tla-checker run takes minutes (GMP_np3: the
// smallest three-P model at the runtime's granularity, 32232 states at a
// few hundred states a second). The default test tier and gmpcheck verify
// check their bounds with the Go explorer (and TLC when present) instead;
// go test ./tla -long, GMPCHECK_LONG=1 and gmpcheck tla -run run
// tla-checker and the graph cross-check on them.
var LongCfgs = map[string]bool{"GMP_np3": true}
