package txdma

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures an Engine. Start from DefaultParams; Validate before use.
type Params struct {
	CommandsMax      int              `param:"commands_max" help:"TX command FIFO depth" source:"Dillow & Atchley 2011 s.II"`
	PacketPayload    actors.Bytes     `param:"packet_payload" help:"network packet payload" source:"Dillow & Atchley 2011 s.II"`
	DMABandwidth     actors.Bandwidth `param:"dma_bandwidth" help:"sustained rate of the engine's data path, per-packet costs included" source:"docs/design.md s.3.1: SeaStar 1.2 ~1.1 GB/s per direction (redstorm), 2.0 GB/s on SeaStar 2+ (xt5); 1.11 GB/s calibrated to the 1108 MB/s PortalPerf asymptote"`
	PacketOverhead   actors.Duration  `param:"packet_overhead" help:"fixed engine time per packet on top of the data rate" source:"assumed: 0, the sustained rate includes per-packet costs"`
	CommandCost      actors.Duration  `param:"command_cost" help:"time to decode a command before it takes effect" source:"assumed: two 500 MHz cycles"`
	OutstandingReads int              `param:"outstanding_reads" help:"HT reads of host memory in flight at once" source:"assumed: enough to cover the HT read round trip at 2 GB/s (about 650 B in flight)"`
	ReadBytes        actors.Bytes     `param:"read_bytes" help:"size of each HT read of host memory" source:"assumed: one packet, the HT maximum of 64 B"`
	BufferBytes      actors.Bytes     `param:"buffer_bytes" help:"staging buffer between HT reads and packet injection" source:"assumed"`
	CRCBytes         actors.Bytes     `param:"crc_bytes" help:"bytes of the end-to-end CRC appended by end packet/message" source:"Dillow & Atchley 2011 s.II: 32-bit CRC"`
	PIOBufferBytes   actors.Bytes     `param:"pio_buffer_bytes" help:"PIO message buffer" source:"Dillow & Atchley 2011 s.II"`
	PIOCommandsMax   int              `param:"pio_commands_max" help:"PIO command FIFO depth" source:"Dillow & Atchley 2011 s.II"`
}

// DefaultParams returns the Red Storm (SeaStar 1.2) engine.
func DefaultParams() Params {
	return Params{
		CommandsMax:      31,
		PacketPayload:    64 * actors.Byte,
		DMABandwidth:     1110 * actors.MBPerSecond,
		PacketOverhead:   0,
		CommandCost:      4 * actors.Nanosecond,
		OutstandingReads: 16,
		ReadBytes:        64 * actors.Byte,
		BufferBytes:      2 * actors.KiB,
		CRCBytes:         4 * actors.Byte,
		PIOBufferBytes:   256 * actors.Byte,
		PIOCommandsMax:   4,
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.CommandsMax < 1:
		return fmt.Errorf("commands_max must be >= 1 (got %d)", p.CommandsMax)
	case p.PacketPayload < 1:
		return fmt.Errorf("packet_payload must be >= 1B (got %s)", p.PacketPayload)
	case p.DMABandwidth <= 0:
		return fmt.Errorf("dma_bandwidth must be > 0 (got %s)", p.DMABandwidth)
	case p.PacketOverhead < 0:
		return fmt.Errorf("packet_overhead must be >= 0 (got %s)", p.PacketOverhead)
	case p.CommandCost < 0:
		return fmt.Errorf("command_cost must be >= 0 (got %s)", p.CommandCost)
	case p.OutstandingReads < 1:
		return fmt.Errorf("outstanding_reads must be >= 1 (got %d)", p.OutstandingReads)
	case p.ReadBytes < 1:
		return fmt.Errorf("read_bytes must be >= 1B (got %s)", p.ReadBytes)
	case p.BufferBytes < p.ReadBytes || p.BufferBytes < p.PacketPayload:
		return fmt.Errorf("buffer_bytes (%s) must hold at least one read and one packet", p.BufferBytes)
	case p.CRCBytes < 0:
		return fmt.Errorf("crc_bytes must be >= 0 (got %s)", p.CRCBytes)
	case p.PIOBufferBytes < 0:
		return fmt.Errorf("pio_buffer_bytes must be >= 0 (got %s)", p.PIOBufferBytes)
	case p.PIOCommandsMax < 1:
		return fmt.Errorf("pio_commands_max must be >= 1 (got %d)", p.PIOCommandsMax)
	}
	return nil
}

// packetTime is how long the engine's data path takes to emit a packet of n bytes.
func (p Params) packetTime(n actors.Bytes) actors.Duration {
	return p.DMABandwidth.TransferTime(n) + p.PacketOverhead
}
