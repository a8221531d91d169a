package arctic

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/fattree"
)

// Params configures the fabric. Start from DefaultParams; Validate before use.
type Params struct {
	LinkBandwidth actors.Bandwidth `param:"link_bandwidth" help:"data rate of a link, per direction" source:"Hoe & Ehrlich 1996 s.2.1.2: 160 MBytes per link"`
	HopLatency    actors.Duration  `param:"hop_latency" help:"router latency, port to port (cut-through)" source:"assumed: 0.15 us"`
	CableLatency  actors.Duration  `param:"cable_latency" help:"propagation on one link" source:"assumed: 20 ns"`
	HeaderBytes   actors.Bytes     `param:"header_bytes" help:"route and framing bytes of a packet on a link" source:"assumed: 8 (route word and CRC)"`
	Radix         int              `param:"radix" help:"ports of a router: half down to nodes or leaves, half up" source:"Boughton 1994: the Arctic router is 4x4"`
}

// DefaultParams returns the defaults.
func DefaultParams() Params {
	return Params{LinkBandwidth: 160 * actors.MBPerSecond, HopLatency: 150 * actors.Nanosecond, CableLatency: 20 * actors.Nanosecond,
		HeaderBytes: 8, Radix: 4}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.LinkBandwidth <= 0:
		return fmt.Errorf("link_bandwidth must be > 0 (got %s)", p.LinkBandwidth)
	case p.CableLatency <= 0:
		return fmt.Errorf("cable_latency must be > 0 (got %s): routers and nodes may run in different partitions", p.CableLatency)
	case p.HopLatency < 0 || p.HeaderBytes < 0:
		return fmt.Errorf("hop_latency and header_bytes must be >= 0")
	case p.Radix < 4 || p.Radix%2 != 0:
		return fmt.Errorf("radix must be even and >= 4 (got %d)", p.Radix)
	}
	return nil
}

// Span is the time a packet of n bytes occupies a link.
func (p Params) Span(n int64) actors.Duration {
	return p.LinkBandwidth.TransferTime(p.HeaderBytes + actors.Bytes(n))
}

// Build adds the routers for nodes nodes and returns the port each node's Squall module
// connects to.
func Build(g *actors.Graph, p Params, nodes int) ([]actors.PortRef, error) {
	at, f, err := fattree.Build(g, fattree.Params{Radix: p.Radix, HopLatency: p.HopLatency, CableLatency: p.CableLatency, Name: "arctic"}, nodes)
	if err != nil {
		return nil, err
	}
	g.Describe("arctic.fabric", fmt.Sprintf("%d leaf and %d spine routers", f.Leaves, f.Spines))
	return at, nil
}
