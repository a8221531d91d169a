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

// heapFloorBytes is the heap every run starts with (heapFloor): at gcPercent the
// collector's goal is then at least 48 MiB, 16 MiB of garbage between collections
// however small the model (a large model's goal moves by a few percent). A small model
// (PortalPerf's two nodes: a few MiB) at gcPercent would be collected after every
// megabyte or two of garbage, and a collection during a run is dear: while it marks,
// every pointer the event queues move goes through the write barrier. Instructions of
// the whole process (cachegrind), without the floor and with it: cci-stream (147 small
// models, allocating timers) 11.08 G -> 8.97 G; PortalPerf 0:64K:x4 x1000 traced at 1%
// 4.72 G -> 4.48 G (6 collections during the run -> none), untraced 4.25 G -> 4.19 G;
// halo3d 4x4x4 3.50 G -> 3.37 G (BENCHMARKS.md, seventeenth session).
const heapFloorBytes = 32 << 20

// heapFloor is never read or written: the runtime maps it at start-up without touching
// it (fresh memory needs no zeroing) and the collector does not scan it (it holds no
// pointers), so it costs no resident memory and no marking, only its share of the goal.
var heapFloor []byte

func main() {
	heapFloor = make([]byte, heapFloorBytes)
	setGCTarget(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
