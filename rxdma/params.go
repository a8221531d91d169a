package rxdma

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures an Engine. Start from DefaultParams; Validate before use.
type Params struct {
	FIFOPackets       int              `param:"fifo_packets" help:"RX FIFO capacity in packets, shared by the traffic classes (a class ejects on one VC)" source:"assumed (calibrated: with the network's buffers it hides the host's header processing in a large put)"`
	DMABandwidth      actors.Bandwidth `param:"dma_bandwidth" help:"sustained rate of the engine's data path, per-packet costs included" source:"docs/design.md s.3.1: SeaStar 1.2 ~1.1 GB/s per direction (redstorm), 2.0 GB/s on SeaStar 2+ (xt5); 1.11 GB/s calibrated to the 1108 MB/s PortalPerf asymptote"`
	PacketOverhead    actors.Duration  `param:"packet_overhead" help:"fixed engine time per packet on top of the data rate" source:"assumed: 0, the sustained rate includes per-packet costs"`
	OutstandingWrites int              `param:"outstanding_writes" help:"DMA writes to host memory in flight on the HT link" source:"assumed"`
	// DropRate is the probability that a message arriving from the network is lost at
	// this NIC: all its packets are dropped on arrival (their FIFO slots returned at
	// once) and the PPC never hears of it. It injects end-to-end loss for the recovery
	// of reliable protocols; the links themselves recover from CRC errors. Default 0.
	DropRate actors.Prob `param:"drop_rate" help:"probability that an arriving message is lost at the NIC (every packet dropped): end-to-end loss injection" source:"assumed: 0, the network is reliable; for recovery tests"`
	// DropNode confines the losses to one node's NIC; -1 (the default): every NIC.
	DropNode int `param:"drop_node" help:"fault injection: the node whose NIC loses messages (drop_rate), -1 for every node" source:"fault injection, default every node"`
}

// DefaultParams returns the Red Storm (SeaStar 1.2) engine.
func DefaultParams() Params {
	return Params{FIFOPackets: 128, DMABandwidth: 1400 * actors.MBPerSecond, PacketOverhead: 0, OutstandingWrites: 8, DropNode: -1}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.FIFOPackets < 1:
		return fmt.Errorf("fifo_packets must be >= 1 (got %d)", p.FIFOPackets)
	case p.DMABandwidth <= 0:
		return fmt.Errorf("dma_bandwidth must be > 0 (got %s)", p.DMABandwidth)
	case p.PacketOverhead < 0:
		return fmt.Errorf("packet_overhead must be >= 0 (got %s)", p.PacketOverhead)
	case p.OutstandingWrites < 1:
		return fmt.Errorf("outstanding_writes must be >= 1 (got %d)", p.OutstandingWrites)
	case p.DropNode < -1:
		return fmt.Errorf("drop_node must be >= -1 (got %d)", p.DropNode)
	}
	return nil
}

// Credits is the number of FIFO slots announced to the router per VC: the FIFO split
// over the traffic classes (vcs/2), since the router ejects a class on a single VC
// (the other, dateline, VC of a class is never used at ejection).
func (p Params) Credits(vcs int) int { return max(1, p.FIFOPackets/max(1, vcs/2)) }
