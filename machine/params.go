// Package machine assembles SeaStar nodes and the 3-D torus into a model: the node
// builder wires the blocks of one node (host CPU, HyperTransport, PPC, TX and RX DMA
// engines, CAM) to its router, and the machine builder does it for every node of a
// topology. A machine preset (docs/design.md s.3.1) is only a set of parameter values over the same
// code.
package machine

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/ib"
	"github.com/seastar-sim/seastar/matchunit"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/startjr"
	"github.com/seastar-sim/seastar/txdma"
)

// Params is the configuration of a whole machine: the topology and every block.
type Params struct {
	Machine string `param:"machine" enum:"redstorm|xt5|ib|startjr|startjr-arctic" help:"machine preset the other values started from; ib is an InfiniBand cluster (package ib) for Portals 4 only, whose node count is the product of torus; startjr and startjr-arctic are StarT-JR clusters (package startjr) for the FUNI/JAM benchmarks, sized by startjr.nodes" source:"docs/design.md s.3.1"`
	Torus   string `param:"torus" help:"topology dimensions XxYxZ" source:"docs/design.md s.3: Red Storm 27x16x24"`
	Wrap    string `param:"wrap" help:"torus, mesh, or per dimension e.g. torus,torus,mesh" source:"docs/design.md s.3"`

	OnChipLatency actors.Duration `param:"onchip_latency" help:"latency of the on-chip links between a node's blocks" source:"assumed: one 500 MHz cycle"`

	Host   host.Params   `param:"host"`
	HT     ht.Params     `param:"ht"`
	PPC    ppc.Params    `param:"ppc"`
	TXDMA  txdma.Params  `param:"txdma"`
	RXDMA  rxdma.Params  `param:"rxdma"`
	CAM    cam.Params    `param:"cam"`
	Router router.Params `param:"router"`
	// MatchUnit is the match unit a protocol may add beside the PPC (portals4.nic =
	// matchunit); other protocols build no unit and ignore it.
	MatchUnit matchunit.Params `param:"matchunit"`
	// IB is the InfiniBand family's HCAs and fabric (machine = ib).
	IB ib.Params `param:"ib"`
	// StarTJR is the StarT-JR family's cards and networks (machine = startjr,
	// startjr-arctic).
	StarTJR startjr.Params `param:"startjr"`
}

// Presets lists the machine presets.
var Presets = []string{"redstorm", "xt5", "ib", "startjr", "startjr-arctic"}

// Preset returns the parameters of a named machine.
//   - redstorm: Red Storm / XT3 as measured in 2005 (SeaStar 1.2, DMA ~1.1 GB/s per
//     direction, one 2.0 GHz Opteron core, Catamount, 27x16x24 torus).
//   - xt5: Cray XT5 as measured in 2010 (Dillow & Atchley 2011 s.V: SeaStar 2+, DMA
//     ~2.0 GB/s, links slightly above 3 GB/s of payload, two 2.6 GHz six-core Opterons,
//     Linux).
func Preset(name string) (Params, error) {
	p := Params{
		Machine: "redstorm", Torus: "27x16x24", Wrap: "torus", OnChipLatency: 2 * actors.Nanosecond,
		Host: host.DefaultParams(), HT: ht.DefaultParams(), PPC: ppc.DefaultParams(), TXDMA: txdma.DefaultParams(),
		RXDMA: rxdma.DefaultParams(), CAM: cam.DefaultParams(), Router: router.DefaultParams(),
		MatchUnit: matchunit.DefaultParams(), IB: ib.DefaultParams(), StarTJR: startjr.DefaultParams(),
	}
	switch name {
	case "redstorm":
	case "xt5":
		p.Machine = "xt5"
		p.Torus = "4x6x4" // assumed: one cabinet (chester, Dillow & Atchley 2011 s.V)
		p.TXDMA.DMABandwidth = 2000 * actors.MBPerSecond
		p.RXDMA.DMABandwidth = 2000 * actors.MBPerSecond
		p.Router.LinkBandwidth = 3050 * actors.MBPerSecond
		p.Host.Clock = 2600 * actors.Megahertz
		p.Host.Cores = 12
		p.Host.OS = "linux"
		p.Host.CacheBytes = 512 * actors.KiB // L2 per core of the six-core Opteron
	case "ib":
		// An InfiniBand cluster of the Portals-over-InfiniBand era (papers/002 s.6):
		// QDR HCAs on PCIe Gen2, a fat tree of 36-port switches; assumed node: two
		// 2.6 GHz quad-core processors under Linux.
		p.Machine = "ib"
		p.Torus, p.Wrap = "2x1x1", "mesh"
		p.Host.Clock = 2600 * actors.Megahertz
		p.Host.Cores = 8
		p.Host.OS = "linux"
	case "startjr", "startjr-arctic":
		// StarT-JR (Hoe & Ehrlich 1996 s.2.1.1): 120 MHz Pentium PCs with 256 KB of
		// cache and 32 MB of memory under Linux, one PCI80960 card each; two IEEE 1394
		// buses, or the Arctic fabric.
		p.Machine = name
		p.Torus, p.Wrap = "2x1x1", "mesh" // unused: startjr.nodes sizes the cluster
		p.Host.Clock = 120 * actors.Megahertz
		p.Host.Cores = 1
		p.Host.OS = "linux"
		p.Host.CacheBytes = 256 * actors.KiB
		p.Host.CacheMiss = 250 * actors.Nanosecond       // assumed: a 60 MHz bus and EDO DRAM
		p.Host.MemcpyBandwidth = 60 * actors.MBPerSecond // assumed: a Pentium-era DRAM copy
		p.Host.MMIOWriteCost = 250 * actors.Nanosecond   // assumed: an uncached store to PCI through the write buffer
		p.Host.InterruptCost = 10 * actors.Microsecond   // assumed: Linux on a 120 MHz Pentium
		p.Host.TrapCost = 2 * actors.Microsecond         // assumed: a Linux system call on a 120 MHz Pentium
		if name == "startjr-arctic" {
			p.StarTJR.Network = "arctic"
		}
	default:
		return Params{}, fmt.Errorf("unknown machine preset %q (want redstorm, xt5, ib, startjr or startjr-arctic)", name)
	}
	return p, nil
}

// IsStarTJR reports whether the machine is a StarT-JR cluster.
func (p Params) IsStarTJR() bool { return p.Machine == "startjr" || p.Machine == "startjr-arctic" }

// Default returns the redstorm preset.
func Default() Params {
	p, _ := Preset("redstorm")
	return p
}

// Topology parses Torus and Wrap.
func (p Params) Topology() (router.Topology, error) { return router.ParseTopology(p.Torus, p.Wrap) }

// Validate checks every block and the topology.
func (p Params) Validate() error {
	topo, err := p.Topology()
	if err != nil {
		return err
	}
	if n := topo.Nodes(); p.PPC.StallNode >= n || p.Router.DownNode >= n || p.Router.CRCNode >= n || p.RXDMA.DropNode >= n {
		return fmt.Errorf("ppc.stall_node (%d), router.down_node (%d), router.crc_node (%d) and rxdma.drop_node (%d) must name a node of the %d-node torus",
			p.PPC.StallNode, p.Router.DownNode, p.Router.CRCNode, p.RXDMA.DropNode, n)
	}
	if p.OnChipLatency <= 0 {
		return fmt.Errorf("onchip_latency must be > 0 (got %s): blocks may run in different partitions", p.OnChipLatency)
	}
	for _, b := range []struct {
		key string
		v   interface{ Validate() error }
	}{{"host", p.Host}, {"ht", p.HT}, {"ppc", p.PPC}, {"txdma", p.TXDMA}, {"rxdma", p.RXDMA}, {"cam", p.CAM}, {"router", p.Router}, {"matchunit", p.MatchUnit}, {"ib", p.IB}, {"startjr", p.StarTJR}} {
		if err := b.v.Validate(); err != nil {
			return fmt.Errorf("%s.%w", b.key, err)
		}
	}
	return nil
}
