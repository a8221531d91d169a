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

// runtimeError marks a failure while running (output not writable, ...): exit status 1.
type runtimeError struct{ err error }

func (e runtimeError) Error() string { return e.err.Error() }
func (e runtimeError) Unwrap() error { return e.err }

// failed marks err as a run-time failure unless it is already classified.
func failed(err error) error {
	var ue usageError
	if err == nil || errors.As(err, &ue) || errors.Is(err, actors.ErrConfig) || errors.Is(err, actors.ErrInterrupted) {
		return err
	}
	return runtimeError{err}
}

// exitCode maps an error to the process exit status. Errors the commands return are
// classified; anything else comes from command-line parsing (unknown command, wrong
// arguments) and is a usage error.
func exitCode(err error) int {
	var re runtimeError
	var se *actors.SimError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, actors.ErrInterrupted):
		return exitInterrupted
	case errors.As(err, &se), errors.As(err, &re):
		return exitSimulation
	}
	return exitUsage
}
