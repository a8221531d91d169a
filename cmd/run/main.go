// Command run is the simulator's command-line interface: benchmarks, the PHOLD kernel
// benchmark, parameter listing and sweeps. See docs/design.md section 8 for the contract.
//
// Exit status: 0 success, 1 simulation error (the message names the actor and the
// simulated time), 2 usage or configuration error (the message names the offending
// flag, key or value), 130 interrupted.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
