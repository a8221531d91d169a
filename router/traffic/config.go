package traffic

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// Pattern chooses the destination of each message.
type Pattern string

// Traffic patterns.
const (
	// Uniform sends each message to a node drawn uniformly among the others.
	Uniform Pattern = "uniform"
	// Transpose sends every message of node (x, y, z) to (y, x, z) when X = Y. In
	// general it transposes each z plane as an X-column, Y-row matrix: the node at
	// index i = x + X*y goes to index i' = y + Y*x, read back with X columns
	// (x' = i' mod X, y' = i' / X), a permutation for any X and Y. Nodes on the
	// diagonal send to themselves, through their router's NIC port.
	Transpose Pattern = "transpose"
	// Hotspot sends a message to the hotspot node with probability
	// Config.HotspotFraction and to a uniformly drawn other node otherwise; the
	// hotspot node itself sends uniform traffic.
	Hotspot Pattern = "hotspot"
)

// ParsePattern parses "uniform", "transpose" or "hotspot".
func ParsePattern(s string) (Pattern, error) {
	switch p := Pattern(s); p {
	case Uniform, Transpose, Hotspot:
		return p, nil
	}
	return "", fmt.Errorf("traffic: unknown pattern %q (want uniform, transpose or hotspot)", s)
}

// Config configures a traffic run. Start from DefaultConfig; Validate before use.
type Config struct {
	// Topo is the network; default an 8x8x8 torus.
	Topo router.Topology `param:"topology" help:"network size and wrap, e.g. 8x8x8 torus" source:"assumed"`
	// Router is the router and link parameters; default router.DefaultParams().
	Router router.Params `param:"router"`
	// Pattern picks destinations; default Uniform.
	Pattern Pattern `param:"pattern" help:"destination pattern: uniform, transpose or hotspot" source:"assumed"`
	// Load is the offered load of every node as a fraction of link_bandwidth: in each
	// packet slot (one PacketTime) a node starts a message with probability
	// Load/MsgPackets. Default 0.5.
	Load actors.Prob `param:"load" help:"offered load per node, fraction of link bandwidth" source:"assumed"`
	// MsgPackets is the size of a message in full packets; default 1.
	MsgPackets int `param:"msg_packets" help:"message size in packets" source:"assumed"`
	// HotspotFraction is the share of messages sent to HotspotNode under the hotspot
	// pattern; default 0.1.
	HotspotFraction actors.Prob `param:"hotspot_fraction" help:"share of messages sent to the hotspot node" source:"assumed"`
	// HotspotNode is the hotspot's node id; default 0, node[0,0,0].
	HotspotNode router.NodeID `param:"hotspot_node" help:"node id of the hotspot" source:"assumed"`
	// Warmup is the simulated time before the measurement window; default 2 us.
	Warmup actors.Duration `param:"warmup" help:"simulated time before measuring" source:"assumed"`
	// Measure is the length of the measurement window; default 10 us.
	Measure actors.Duration `param:"measure" help:"length of the measurement window" source:"assumed"`
	// Drain is how long the run continues after the window, still offering load, so
	// that packets created in the window can arrive and enter the latency statistics;
	// default 2 us.
	Drain actors.Duration `param:"drain" help:"simulated time after the window for measured packets to arrive" source:"assumed"`
	// SourceQueuePackets bounds each node's queue of created packets not yet
	// injected; a message that does not fit is refused and counted. Default 256.
	SourceQueuePackets int `param:"source_queue_packets" help:"bound of each node's source queue, in packets" source:"assumed"`
	// EjectCredits is the receive buffer of each node's sink per virtual channel; the
	// sink frees a slot as soon as a packet arrives. Default 8.
	EjectCredits int `param:"eject_credits" help:"sink receive buffer per virtual channel, in packets" source:"assumed"`
}

// DefaultConfig returns uniform traffic at half load on an 8x8x8 torus of Red Storm
// routers.
func DefaultConfig() Config {
	return Config{
		Topo:               router.Torus(8, 8, 8),
		Router:             router.DefaultParams(),
		Pattern:            Uniform,
		Load:               actors.MustParseProb("0.5"),
		MsgPackets:         1,
		HotspotFraction:    actors.MustParseProb("0.1"),
		Warmup:             2 * actors.Microsecond,
		Measure:            10 * actors.Microsecond,
		Drain:              2 * actors.Microsecond,
		SourceQueuePackets: 256,
		EjectCredits:       8,
	}
}

// Validate reports the first invalid field, naming its key.
func (c Config) Validate() error {
	if err := c.Topo.Validate(); err != nil {
		return err
	}
	if err := c.Router.Validate(); err != nil {
		return fmt.Errorf("router.%w", err)
	}
	if _, err := ParsePattern(string(c.Pattern)); err != nil {
		return err
	}
	n := c.Topo.Nodes()
	switch {
	case c.Pattern != Transpose && n < 2:
		return fmt.Errorf("traffic: pattern %s needs at least 2 nodes (topology %s)", c.Pattern, c.Topo)
	case c.MsgPackets < 1 || c.MsgPackets > 1<<16:
		return fmt.Errorf("traffic: msg_packets must be in 1..65536 (got %d)", c.MsgPackets)
	case c.HotspotNode < 0 || int(c.HotspotNode) >= n:
		return fmt.Errorf("traffic: hotspot_node must be a node id in 0..%d (got %d)", n-1, c.HotspotNode)
	case c.Warmup < 0:
		return fmt.Errorf("traffic: warmup must be >= 0 (got %s)", c.Warmup)
	case c.Measure <= 0:
		return fmt.Errorf("traffic: measure must be > 0 (got %s)", c.Measure)
	case c.Drain < 0:
		return fmt.Errorf("traffic: drain must be >= 0 (got %s)", c.Drain)
	case c.SourceQueuePackets < c.MsgPackets || c.SourceQueuePackets > 1<<24:
		return fmt.Errorf("traffic: source_queue_packets must be in msg_packets..%d (got %d)", 1<<24, c.SourceQueuePackets)
	case c.EjectCredits < 1 || c.EjectCredits > 1<<15:
		return fmt.Errorf("traffic: eject_credits must be in 1..32768 (got %d)", c.EjectCredits)
	}
	return nil
}

// windowStart, windowEnd and end are the measurement window and the end of the run.
func (c Config) windowStart() actors.Time { return actors.Time(0).Add(c.Warmup) }
func (c Config) windowEnd() actors.Time   { return c.windowStart().Add(c.Measure) }
func (c Config) end() actors.Time         { return c.windowEnd().Add(c.Drain) }

// destination returns the destination of a message from src; r draws the random
// choices of the uniform and hotspot patterns.
func (c *Config) destination(src router.NodeID, r *actors.Rand) router.NodeID {
	switch c.Pattern {
	case Transpose:
		return transpose(c.Topo, src)
	case Hotspot:
		if src != c.HotspotNode && c.HotspotFraction.Sample(r.Uint64()) {
			return c.HotspotNode
		}
	}
	d := router.NodeID(r.IntN(c.Topo.Nodes() - 1))
	if d >= src {
		d++
	}
	return d
}

// transpose is the Transpose pattern's permutation.
func transpose(t router.Topology, src router.NodeID) router.NodeID {
	c := t.Coord(src)
	i := c[1] + t.Y*c[0]
	return t.ID(i%t.X, i/t.X, c[2])
}
