package rxdma

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// SOM tells the PPC that a packet with Start-Of-Message entered the RX FIFO. Packet is
// the FIFO entry: the firmware may read its header (Packet.Data) and Discard it. The
// engine shares the packet with the PPC (router.Packet.Share): each lets go of it
// (Unshare) when done, the engine when the packet leaves the FIFO, the PPC after the
// firmware's handler, and the later recycles it.
type SOM struct{ Packet *router.Packet }

func (s SOM) String() string { return fmt.Sprintf("rxdma.SOM(%s)", s.Packet) }

// Done tells the PPC that an RX command with Notify has retired: its bytes are on their
// way to host memory (or discarded), ahead of anything the PPC writes to the host next.
// The engine sends a *Done from NewDone, which the PPC recycles (Release) once the
// firmware's handler has run: handlers take it by value. (A value boxed into the
// message interface was an allocation per message.)
type Done struct {
	Src   router.NodeID
	Tag   uint64
	CRCOK bool // the end-to-end CRC check passed (always, when the command did not ask for it)
	actors.PoolMark
}

func (d Done) String() string { return fmt.Sprintf("rxdma.Done(node%d #%d)", d.Src, d.Tag) }

// donePool recycles Dones (one pool for all partitions: actors.Pool is safe across the
// engine's workers).
var donePool actors.Pool[Done, *Done]

// NewDone returns a Done that Release recycles.
func NewDone(src router.NodeID, tag uint64, crcOK bool) *Done {
	return donePool.New(Done{Src: src, Tag: tag, CRCOK: crcOK})
}

// Release recycles d if it came from NewDone; the caller must be its last holder.
func (d *Done) Release() { donePool.Release(d) }

// Discard asks the engine to drop Packet when it reaches the FIFO head, without a CAM
// command: the PPC has read it (a header-only message, Dillow & Atchley 2011, s.II).
type Discard struct {
	Packet *router.Packet
	// Whole discards the rest of the packet's message too (its later packets, from the
	// same source on the same class), without CAM commands: a message the firmware
	// refuses.
	Whole bool
	actors.PoolMark
}

func (d Discard) String() string { return fmt.Sprintf("rxdma.Discard(%s)", d.Packet) }

var discardPool actors.Pool[Discard, *Discard]

// NewDiscard returns d recycled, which the engine releases once it has read it (a
// Discard value sent as it is also works, boxed into an allocation of its own).
func NewDiscard(d Discard) *Discard { return discardPool.New(d) }

// Release recycles d if it came from NewDiscard; the caller must be its last holder.
func (d *Discard) Release() { discardPool.Release(d) }

// tick wakes the engine when its data path is free for the next packet.
type tick struct{}

func (tick) String() string { return "rxdma.tick" }
