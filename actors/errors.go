package actors

import (
	"errors"
	"fmt"
)

// ErrConfig marks errors in a model or a run configuration: a bad graph, a bad option,
// a partitioning the conservative engine cannot run. Test with errors.Is; cmd/run exits
// with status 2 for these.
var ErrConfig = errors.New("configuration error")

type configError struct{ msg string }

func (e *configError) Error() string        { return e.msg }
func (e *configError) Is(target error) bool { return target == ErrConfig }

// configErrorf returns an error that matches ErrConfig.
func configErrorf(format string, args ...any) error {
	return &configError{msg: fmt.Sprintf(format, args...)}
}

// ErrInterrupted is returned (wrapped) when a run is cancelled through its context.
var ErrInterrupted = errors.New("interrupted")

// SimError is a failure inside the simulation: an actor called Fatalf, panicked, or
// broke a kernel rule (an event in its past, a send on an unconnected port). Actor and
// Time locate it; for a given seed and model it is the same for every engine, worker
// count and partitioning, because it is the failure of the first failing event in
// event-key order.
type SimError struct {
	Actor string // hierarchical name of the failing actor
	Time  Time   // simulated time of the failing event
	Msg   string // what went wrong
	// Stack is the Go stack of a panic, empty for Fatalf; it is not part of Error so
	// that error text stays deterministic.
	Stack string

	key eventKey // orders concurrent failures like the serial engine would meet them
}

func (e *SimError) Error() string {
	return fmt.Sprintf("%s at t=%s: %s", e.Actor, e.Time, e.Msg)
}

// fatal is the panic value Context.Fatalf uses to unwind out of an actor.
type fatal struct{ msg string }
