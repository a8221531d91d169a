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

// gcPercent is the garbage collector's target when GOGC is not set: a model is a large
// graph that lives for the whole run, and collecting when the heap has grown by half
// instead of doubled cuts peak memory by a quarter at no measurable cost in time
// (BENCHMARKS.md: halo3d 12x12x12 peak 681 -> 518 MiB, Red Storm 3.9 -> 2.9 GiB and
// 78.6 -> 73.8 s on one worker). Models estimated above 1 GiB get less (gcPercentFor,
// once their size is known).
const gcPercent = 50

func main() {
	setGCTarget(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
