package linearize

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
)

// Checker checks run-queue histories of one ring capacity.
type Checker struct {
	capacity int
	model    porcupine.Model
}

// NewChecker returns a checker for queues of the given ring capacity.
func NewChecker(capacity int) (*Checker, error) {
	m, err := NewModel(capacity)
	if err != nil {
		return nil, err
	}
	return &Checker{capacity: capacity, model: m}, nil
}

// Model is the porcupine model the checker uses.
func (c *Checker) Model() porcupine.Model { return c.model }

// Check reports whether history is linearizable: porcupine.Ok, Illegal, or
// Unknown when timeout (0: none) ran out first. A history that is not made
// of this package's Inputs with sane timestamps is an error, not a verdict.
func (c *Checker) Check(history []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, error) {
	if err := ValidateHistory(history); err != nil {
		return porcupine.Unknown, err
	}
	return porcupine.CheckOperationsTimeout(c.model, history, timeout), nil
}

// Visualize checks history keeping the partial linearizations porcupine
// found and writes its HTML visualization to path: porcupine's page, its
// client lanes labelled owner and thief k, a lane of its own that marks the
// first error (annotations), and the page scrolled to that error on
// opening (porcupine's "jump to first error"). It returns the verdict of
// that check, which for a history Check found Illegal is Illegal again: the
// check is deterministic.
func (c *Checker) Visualize(history []porcupine.Operation, timeout time.Duration, path string) (porcupine.CheckResult, error) {
	if err := ValidateHistory(history); err != nil {
		return porcupine.Unknown, err
	}
	res, info := porcupine.CheckOperationsVerbose(c.model, history, timeout)
	if err := writeVisualizationFile(path, c.model, history, res, info); err != nil {
		return res, fmt.Errorf("linearize: writing the visualization: %w", err)
	}
	return res, nil
}

// ValidateHistory checks the shape porcupine relies on: every Input is an
// Input of a known kind, every Output of an operation that returns something
// is an Output, no operation returns before it is called, and client ids are
// not negative (the visualization indexes rows by them).
func ValidateHistory(history []porcupine.Operation) error {
	for i, op := range history {
		in, ok := op.Input.(Input)
		if !ok {
			return fmt.Errorf("linearize: operation %d: input %T is not a linearize.Input", i, op.Input)
		}
		if in.Kind < KindPut || in.Kind > KindGlobGet {
			return fmt.Errorf("linearize: operation %d: unknown kind %v", i, in.Kind)
		}
		if in.Kind != KindPut && in.Kind != KindPutNext {
			if _, ok := op.Output.(Output); !ok {
				return fmt.Errorf("linearize: operation %d (%v): output %T is not a linearize.Output", i, in, op.Output)
			}
		}
		if op.Return < op.Call {
			return fmt.Errorf("linearize: operation %d (%v): returns at %d before its call at %d", i, in, op.Return, op.Call)
		}
		if op.ClientId < 0 {
			return fmt.Errorf("linearize: operation %d (%v): negative client id %d", i, in, op.ClientId)
		}
	}
	return nil
}
