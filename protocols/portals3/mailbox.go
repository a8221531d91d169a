package portals3

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// Commands the host posts into the generic mailbox's command FIFO (uncached SeaStar
// SRAM, written with HyperTransport stores; Pedretti & Hudson 2005 s.4.1). The PPC
// polls the FIFO; these commands return no immediate result.

// TxCommand asks the firmware to send a message whose header the host stored in the
// upper pending of TX pending Pending (host-managed pool). Payload is the DMA program:
// one region for physically contiguous memory (Catamount), one per page under Linux,
// precomputed by the host (Pedretti & Hudson 2005 s.4.3.1).
type TxCommand struct {
	Pending int
	Wire    *Wire
	Header  uint64 // host address of the upper pending holding the header
	Payload []Region
	dma     [2]Region // room for Payload
	actors.PoolMark
}

// The kernel's transmit and receive commands are recycled by the firmware, their last
// holder: a transmit command once its handler has copied it into the pending (after
// the handler's trace), a receive command, whose regions the pending uses, when the
// pending is reset.
var (
	txCommands actors.Pool[TxCommand, *TxCommand]
	rxCommands actors.Pool[RxCommand, *RxCommand]
)

func (c *TxCommand) String() string {
	return fmt.Sprintf("portals.TxCommand(p%d %s %d regions)", c.Pending, c.Wire, len(c.Payload))
}

// RxCommand tells the firmware where RX pending Pending's payload goes, after the host
// matched its header: MLength bytes into Regions, the rest of the message (truncated
// bytes) discarded.
type RxCommand struct {
	Pending int
	Regions []Region
	MLength int64
	dma     [2]Region // room for Regions
	actors.PoolMark
}

func (c *RxCommand) String() string {
	return fmt.Sprintf("portals.RxCommand(p%d %dB %d regions)", c.Pending, c.MLength, len(c.Regions))
}

// ReleaseCommand returns an RX pending to the firmware's free list: the host is done
// with its upper half (Pedretti & Hudson 2005 s.4.3.2).
type ReleaseCommand struct{ Pending int }

func (c ReleaseCommand) String() string { return fmt.Sprintf("portals.ReleaseCommand(p%d)", c.Pending) }

// EQConsumed tells the firmware how many generic events the host has taken
// (portals.recovery=gbn: the firmware holds events back rather than overwrite one the
// host has not taken); the host posts it at the end of an interrupt pass.
type EQConsumed struct{ N uint64 }

func (c EQConsumed) String() string { return fmt.Sprintf("portals.EQConsumed(%d)", c.N) }

// EventKind is the kind of an entry of the generic event queue in host memory.
type EventKind uint8

// Generic event queue entries, posted by the firmware.
const (
	NewHeader EventKind = iota // a message arrived: its header is in the upper pending
	RxDone                     // a message's payload is in host memory
	TxDone                     // a message has been sent
)

var eventNames = [...]string{"new-header", "rx-done", "tx-done"}

func (k EventKind) String() string { return eventNames[k] }

// GenericEvent is an entry of the generic event queue, written by the firmware into host
// memory at Slot before it raises the interrupt. The firmware's come from
// newGenericEvent and the kernel recycles them once it has handled them (it takes the
// entry out of host memory first).
type GenericEvent struct {
	Slot    uint64
	Kind    EventKind
	Pending int
	Src     router.NodeID
	Wire    *Wire
	Failed  bool   // TxDone (recovery=gbn): the destination never acknowledged it
	Seq     uint64 // the event's number in the queue (the firmware's count when it wrote it)
	actors.PoolMark
}

// genericPool recycles generic events (actors.Pool is safe across the engine's workers:
// the firmware and the host may run in different partitions).
var genericPool actors.Pool[GenericEvent, *GenericEvent]

// newGenericEvent returns ev from the pool.
func newGenericEvent(ev GenericEvent) *GenericEvent { return genericPool.New(ev) }

// release recycles e if it came from newGenericEvent; the caller must be its last holder.
func (e *GenericEvent) release() { genericPool.Release(e) }

func (e *GenericEvent) String() string {
	return fmt.Sprintf("portals.%s(p%d %s)", e.Kind, e.Pending, e.Wire)
}

// Address implements host.Addressed.
func (e *GenericEvent) Address() uint64 { return e.Slot }

// Host memory layout used by the simulation (addresses are names, not real memory).
const (
	genericEQBase  = 0x7000_0000 // generic event queue slots
	upperBase      = 0x7100_0000 // upper pendings, one per pending id
	eventSlotBytes = 32          // the slots' spacing; what the firmware writes into one is Params.EventBytes
	upperBytes     = 128
)

// genericSlot is the address of entry i of the generic event queue.
func genericSlot(i uint64, size int) uint64 {
	return genericEQBase + (i%uint64(size))*eventSlotBytes
}

// upperAddr is the host address of pending p's upper half.
func upperAddr(p int) uint64 { return upperBase + uint64(p)*upperBytes }
