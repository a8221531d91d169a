// Package ppc models the SeaStar's embedded PowerPC 440 (500 MHz, dual issue, 32 KB
// instruction and data caches that can be disabled, 384 KB of local SRAM) running
// firmware as run-to-completion handlers dispatched from a polling main loop (Pedretti &
// Hudson 2005, s.2, s.4.3).
//
// Firmware is a pure state machine (Firmware): the Core actor queues the events that
// reach the PPC (mailbox stores from the host, DMA notifications, Start-Of-Message, CAM
// stalls) and, one at a time, calls the firmware's handler with an Exec. The handler
// states the work it does (instructions, cached and uncached SRAM accesses, host-memory
// accesses, trace points) and the commands it issues; Exec turns work into time with the
// cost model (caches on or off change the costs) and stamps every command with the
// moment in the handler it was issued. The core is busy until the handler ends; events
// that arrive meanwhile wait. When idle, the main loop notices a new event after
// PollCycles and counts heartbeats.
//
// Firmware data structures are allocated from the SRAM at boot (Boot.Alloc); a firmware
// that does not fit fails the build with a message listing its allocations.
//
//	message          from    effect
//	any              ht      a host store into SRAM carrying a payload (mailbox command)
//	*txdma.Done, *txdma.Retired, rxdma.SOM, *rxdma.Done, *cam.Stalled, a coprocessor's
//	answer (*matchunit.Result): queued for the firmware (an event with a Release
//	method is recycled once its handler has run)
//	wake             self    a firmware timer
//
// Emitted (from handlers): *txdma.Command, *txdma.PIO (txdma), cam programming (cam),
// *rxdma.Discard (rxdma, recycled by the engine), *ht.Write and ht.Interrupt (ht).
package ppc
