package main

import (
	"errors"

	"github.com/seastar-sim/seastar/actors"
)

// Exit statuses.
const (
	exitOK          = 0
	exitSimulation  = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError marks a bad command line or configuration value (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitCode maps an error to the process exit status.
func exitCode(err error) int {
	var ue usageError
	var se *actors.SimError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, actors.ErrInterrupted):
		return exitInterrupted
	case errors.As(err, &ue), errors.Is(err, actors.ErrConfig):
		return exitUsage
	case errors.As(err, &se):
		return exitSimulation
	}
	return exitSimulation
}
