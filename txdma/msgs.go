package txdma

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// Kind is a TX command kind.
type Kind uint8

// Command kinds (Dillow & Atchley 2011, s.II).
const (
	// LoadDest resets the engine for a new message to Dst: the next packet carries
	// Start-Of-Message and the CRC restarts.
	LoadDest Kind = iota
	// Transmit DMAs Bytes from host memory at Addr into the message.
	Transmit
	// EndPacket ends the current packet, optionally appending a CRC.
	EndPacket
	// EndMessage ends the message: its last packet carries End-Of-Message; optional CRC
	// and notification of the PPC.
	EndMessage
)

var kindNames = [...]string{"load-dest", "transmit", "end-packet", "end-message"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind%d", uint8(k))
}

// Command is one entry of the TX command FIFO.
type Command struct {
	Kind   Kind
	Class  uint8         // LoadDest: traffic class of the message's packets
	CRC    bool          // EndPacket, EndMessage: append the end-to-end CRC
	Notify bool          // EndMessage: send Done to the PPC when the last packet has left
	Dst    router.NodeID // LoadDest
	Bytes  int64         // Transmit: length
	Addr   uint64        // Transmit: host address
	Tag    uint64        // EndMessage: echoed in Done
	Data   any           // LoadDest: the message descriptor every packet carries (router.Packet.Data)

	actors.PoolMark // from NewCommand: the engine recycles it once it has taken it in
}

// commandPool recycles the commands of NewCommand once the engine has copied them into
// its FIFO (one pool for all partitions: actors.Pool is safe across the engine's
// workers).
var commandPool actors.Pool[Command, *Command]

// NewCommand returns a copy of c that the engine recycles once it has taken it into its
// FIFO (its last holder): a command then costs no heap allocation. A command built
// otherwise (a host's MMIO command, a test's) is left to the garbage collector.
func NewCommand(c Command) *Command { return commandPool.New(c) }

// release recycles c if it came from NewCommand.
func (c *Command) release() { commandPool.Release(c) }

func (c *Command) String() string {
	switch c.Kind {
	case LoadDest:
		return fmt.Sprintf("txdma.Command(load-dest node%d class%d)", c.Dst, c.Class)
	case Transmit:
		return fmt.Sprintf("txdma.Command(transmit %dB @%#x)", c.Bytes, c.Addr)
	}
	s := fmt.Sprintf("txdma.Command(%s", c.Kind)
	if c.CRC {
		s += " crc"
	}
	if c.Notify {
		s += fmt.Sprintf(" notify#%d", c.Tag)
	}
	return s + ")"
}

// PIO is a short message written by the PPC straight into the PIO buffer and sent
// without DMA (Dillow & Atchley 2011, s.II).
type PIO struct {
	Dst    router.NodeID
	Class  uint8
	Data   any
	Bytes  int64 // payload, at most the PIO buffer
	Notify bool
	Tag    uint64
	actors.PoolMark
}

// pioPool recycles PIO messages: the engine releases one once it has read it.
var pioPool actors.Pool[PIO, *PIO]

// NewPIO returns p recycled, which the engine releases once it has read it (a *PIO
// made otherwise also works, and is left to the garbage collector).
func NewPIO(p PIO) *PIO { return pioPool.New(p) }

func (p *PIO) String() string { return fmt.Sprintf("txdma.PIO(node%d %dB)", p.Dst, p.Bytes) }

// Done tells the PPC that the last packet of a message (DMA or PIO) sent with Notify
// has left the engine. The engine sends a *Done from NewDone, which the PPC recycles
// (Release) once the firmware's handler has run: handlers take it by value.
type Done struct {
	Tag uint64
	PIO bool
	actors.PoolMark
}

func (d Done) String() string { return fmt.Sprintf("txdma.Done(%d)", d.Tag) }

// donePool recycles Dones (actors.Pool is safe across the engine's workers).
var donePool actors.Pool[Done, *Done]

// NewDone returns a Done that Release recycles.
func NewDone(tag uint64, pio bool) *Done { return donePool.New(Done{Tag: tag, PIO: pio}) }

// Release recycles d if it came from NewDone; the caller must be its last holder.
func (d *Done) Release() { donePool.Release(d) }

// Retired reports how many DMA commands have left the command FIFO in total, so that
// the writer knows how much room there is (the FIFO head pointer of Pedretti & Hudson
// 2005, s.5.3).
// It travels by pointer from a pool (a count converted to an interface value would be a
// heap allocation each time): the PPC recycles it after the firmware's handler, which
// reads Total.
type Retired struct {
	Total uint64
	actors.PoolMark
}

var retiredPool actors.Pool[Retired, *Retired]

// newRetired returns a Retired that Release recycles.
func newRetired(total uint64) *Retired { return retiredPool.New(Retired{Total: total}) }

// Release recycles r if it came from the engine; the caller must be its last holder.
func (r *Retired) Release() { retiredPool.Release(r) }

func (r *Retired) String() string { return fmt.Sprintf("txdma.Retired(%d)", r.Total) }

// tick wakes the engine when its data path is free for the next packet.
type tick struct{}

func (tick) String() string { return "txdma.tick" }
