package spec

// GID names a goroutine in the model. The zero GID means "no G", as a nil *g
// does in the runtime (an empty runnext, an empty result).
type GID int32

// NoG is the zero GID: no goroutine.
const NoG GID = 0
