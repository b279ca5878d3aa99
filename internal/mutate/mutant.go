package mutate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// An Area is the part of the project a mutant lives in; kill rates are
// reported per area.
type Area string

const (
	AreaRunq  Area = "impl/runq"  // impl's run queues: runq.go, globrunq.go, gqueue.go
	AreaSched Area = "impl/sched" // the G/M/P scheduler in impl/
	AreaGM    Area = "impl/gm"    // the GM baseline, impl/gm.go
	AreaSpec  Area = "spec"       // spec/'s model: queues, actions, invariants
	AreaTLA   Area = "tla"        // the TLA+ modules
)

// Areas in report order.
var Areas = []Area{AreaRunq, AreaSched, AreaGM, AreaSpec, AreaTLA}

// ParseArea returns the area named s.
func ParseArea(s string) (Area, error) {
	for _, a := range Areas {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown area %q (want one of %v)", s, Areas)
}

// Kind says where a mutant came from.
type Kind string

const (
	KindOperator Kind = "operator" // listed by go-gremlins
	KindSemantic Kind = "semantic" // from Catalog
)

// A Mutant is one change to one file.
type Mutant struct {
	ID   string // unique and stable while the code it targets does not move
	Kind Kind
	Area Area
	File string // slash path relative to the module root
	// Operator mutants: the position of the token and gremlins' type.
	Line, Col int
	Type      string
	// Semantic mutants: the exact original text and its replacement.
	Orig, Repl string
	What       string // one line: the bug this mutant is
}

// Apply returns the mutated content of m.File, read from root. A semantic
// mutant whose original text is missing or not unique, or an operator
// mutant whose token is not at its position, is ErrStale.
func (m Mutant) Apply(root string) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%w: %s: no such file", ErrStale, m.File)
		}
		return nil, err
	}
	switch m.Kind {
	case KindSemantic:
		switch n := strings.Count(string(src), m.Orig); n {
		case 1:
			return []byte(strings.Replace(string(src), m.Orig, m.Repl, 1)), nil
		case 0:
			return nil, fmt.Errorf("%w: %s: the original text is not in the file", ErrStale, m.File)
		default:
			return nil, fmt.Errorf("%w: %s: the original text occurs %d times", ErrStale, m.File, n)
		}
	case KindOperator:
		return applyOperator(src, m)
	}
	return nil, fmt.Errorf("mutant %s: unknown kind %q", m.ID, m.Kind)
}

// ErrStale marks a mutant whose target is no longer in the code.
var ErrStale = staleError{}

type staleError struct{}

func (staleError) Error() string { return "stale mutant" }
