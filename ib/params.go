package ib

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures the HCAs and the fabric. Start from DefaultParams; Validate before
// use.
type Params struct {
	PCIeLatency   actors.Duration  `param:"pcie_latency" help:"one-way PCIe latency between host and HCA (a doorbell write, the first byte of a DMA)" source:"assumed: 300 ns, a PCIe Gen2 root complex round trip of ~600 ns"`
	PCIeBandwidth actors.Bandwidth `param:"pcie_bandwidth" help:"PCIe data rate per direction" source:"assumed: 3.2 GB/s, PCIe Gen2 x8 after protocol overhead"`
	WQE           actors.Duration  `param:"wqe" help:"HCA time to process one work request (fetch it, look up the QP, start the transfer)" source:"assumed: 100 ns"`
	Recv          actors.Duration  `param:"recv" help:"HCA time to take an arriving message (QP lookup, SRQ buffer, completion)" source:"assumed: 100 ns"`
	CQEBytes      actors.Bytes     `param:"cqe_bytes" help:"size of a completion queue entry written to host memory" source:"InfiniBand verbs: a 64-byte CQE"`
	WQEBytes      actors.Bytes     `param:"wqe_bytes" help:"size of a work request written to the HCA's doorbell page, inline data besides" source:"assumed: 64 B"`
	InlineMax     actors.Bytes     `param:"inline_max" help:"largest payload a send work request carries inline (no DMA read)" source:"assumed: 256 B, a common max_inline_data"`
	MTU           actors.Bytes     `param:"mtu" help:"path MTU: payload bytes per packet" source:"InfiniBand: 2048 B"`
	PacketHeader  actors.Bytes     `param:"packet_header" help:"per-packet headers and CRCs on the wire (LRH, BTH, ICRC, VCRC)" source:"InfiniBand: 8 + 12 + 4 + 2 = 26 B"`
	LinkBandwidth actors.Bandwidth `param:"link_bandwidth" help:"data rate of a link, per direction" source:"assumed: 4x QDR, 4 GB/s after 8b/10b"`
	HopLatency    actors.Duration  `param:"hop_latency" help:"switch cut-through latency, port to port" source:"assumed: 100 ns, a QDR crossbar switch"`
	CableLatency  actors.Duration  `param:"cable_latency" help:"propagation on one cable" source:"assumed: 10 ns, 2 m of copper"`
	Radix         int              `param:"radix" help:"ports per switch; a leaf uses half for nodes, half up to the spines" source:"assumed: 36, a common QDR crossbar"`
	RNRDelay      actors.Duration  `param:"rnr_delay" help:"wait before a send that found no receive buffer is retried (RNR NAK timer)" source:"assumed: 10 us, a short rnr_timer"`
	SRQDepth      int              `param:"srq_depth" help:"receive buffers a process keeps posted on its shared receive queue" source:"assumed: 256"`
	Connect       actors.Duration  `param:"connect" help:"host time to set up a reliable connection to a peer (rdma_cm and QP state changes), besides the exchange on the fabric" source:"assumed: 20 us"`
}

// DefaultParams returns the defaults.
func DefaultParams() Params {
	return Params{PCIeLatency: 300 * actors.Nanosecond, PCIeBandwidth: 3200 * actors.MBPerSecond, WQE: 100 * actors.Nanosecond,
		Recv: 100 * actors.Nanosecond, CQEBytes: 64, WQEBytes: 64, InlineMax: 256, MTU: 2048, PacketHeader: 26,
		LinkBandwidth: 4000 * actors.MBPerSecond, HopLatency: 100 * actors.Nanosecond, CableLatency: 10 * actors.Nanosecond,
		Radix: 36, RNRDelay: 10 * actors.Microsecond, SRQDepth: 256, Connect: 20 * actors.Microsecond}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.PCIeLatency <= 0 || p.CableLatency <= 0:
		return fmt.Errorf("pcie_latency and cable_latency must be > 0: they are the links between partitions")
	case p.PCIeBandwidth <= 0 || p.LinkBandwidth <= 0:
		return fmt.Errorf("pcie_bandwidth and link_bandwidth must be > 0")
	case p.WQE < 0 || p.Recv < 0 || p.HopLatency < 0 || p.RNRDelay <= 0 || p.Connect < 0:
		return fmt.Errorf("wqe, recv, hop_latency and connect must be >= 0, rnr_delay > 0")
	case p.CQEBytes <= 0 || p.WQEBytes <= 0 || p.InlineMax < 0 || p.MTU <= 0 || p.PacketHeader < 0:
		return fmt.Errorf("cqe_bytes, wqe_bytes and mtu must be > 0, inline_max and packet_header >= 0")
	case p.Radix < 4 || p.Radix%2 != 0:
		return fmt.Errorf("radix must be even and >= 4 (got %d)", p.Radix)
	case p.SRQDepth < 1:
		return fmt.Errorf("srq_depth must be >= 1 (got %d)", p.SRQDepth)
	}
	return nil
}

// wire is the time a message of n payload bytes occupies a link: its packets' payload
// and headers at the link rate.
func (p Params) wire(n int64) actors.Duration {
	packets := max((n+int64(p.MTU)-1)/int64(p.MTU), 1)
	return p.LinkBandwidth.TransferTime(actors.Bytes(n + packets*int64(p.PacketHeader)))
}
