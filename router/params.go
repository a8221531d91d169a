package router

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures the routers and links of a network. Start from DefaultParams;
// Validate before use. The defaults are the Red Storm (XT3) SeaStar router.
type Params struct {
	// LinkBandwidth is the payload rate of one direction of a link (router to router,
	// and between the router and the NIC). Default 2.5 GB/s.
	LinkBandwidth actors.Bandwidth `param:"link_bandwidth" help:"payload rate of one link direction" source:"Brightwell et al. 2005 s.2 (XT3); Dillow & Atchley 2011 s.V measured slightly more than 3 GB/s on XT5"`
	// PacketPayload is the payload of a full packet. Every packet occupies a link for
	// the time of a full packet (a partial last packet is padded on the wire).
	// Default 64 B.
	PacketPayload actors.Bytes `param:"packet_payload" help:"payload bytes of a full network packet" source:"Dillow & Atchley 2011 s.II: 64-byte packets"`
	// Clock is the router core clock. Default 500 MHz.
	Clock actors.Freq `param:"clock" help:"router core clock" source:"assumed: an early public SeaStar router model"`
	// HopCycles is the pipeline latency of one router traversal in router cycles:
	// Clock.Cycles(HopCycles) = 50 ns by default. Default 25.
	HopCycles int `param:"hop_cycles" help:"router pipeline latency per hop, in router cycles" source:"assumed: an early public SeaStar router model"`
	// WireLatency is the flight time of a router-to-router cable including the serdes
	// at both ends. Default 5 ns.
	WireLatency actors.Duration `param:"wire_latency" help:"cable and serdes latency of a router-to-router link" source:"assumed: a few metres of cable"`
	// VCs is the number of virtual channels per link: 2 traffic classes (requests,
	// responses) times 2 dateline channels. Must be even. Default 4.
	VCs int `param:"vcs" help:"virtual channels per link: 2 per traffic class (dateline)" source:"assumed: an early public SeaStar router model"`
	// InputBufferPackets is the input buffer depth of every port, per virtual channel:
	// the credits the upstream sender starts with. Default 8.
	InputBufferPackets int `param:"input_buffer_packets" help:"input buffer depth per port and virtual channel, in packets" source:"assumed"`
	// OutputQueuePackets is the depth of an output queue per virtual channel and per
	// crossbar input (each input port owns its share of every output queue, so
	// crossbar credits need no arbitration round trip). Default 2.
	OutputQueuePackets int `param:"output_queue_packets" help:"output queue depth per port, virtual channel and crossbar input, in packets" source:"assumed"`
	// CRCErrorRate is the probability that a packet transmission fails its 16-bit link
	// CRC; the sender then retransmits it (link-level retry). Default 0.
	CRCErrorRate actors.Prob `param:"crc_error_rate" help:"probability that a link transmission fails its CRC and is retried" source:"Dillow & Atchley 2011 s.II: 16-bit CRC per 64-byte packet, link-level retry; rate assumed"`
	// CRCNode and CRCDir confine CRC errors to one link, the outgoing link of node
	// CRCNode's port CRCDir; CRCNode -1 (the default) puts them on every link.
	CRCNode int    `param:"crc_node" help:"fault injection: the node whose outgoing link (on crc_dir) has the CRC errors, -1 for every link" source:"fault injection, default every link"`
	CRCDir  string `param:"crc_dir" enum:"xp|xm|yp|ym|zp|zm" help:"fault injection: the port of the link with CRC errors when crc_node is set" source:"fault injection"`
	// RetryDelay is the time between the end of a failed transmission and the start of
	// its retransmission (error detection and the retry request's round trip); the
	// link stays busy meanwhile. Default 100 ns, about one link round trip.
	RetryDelay actors.Duration `param:"retry_delay" help:"time from a failed transmission to its retransmission (link blocked)" source:"assumed: about one link round trip"`
	// DownNode, DownDir, DownAt and DownFor take one link down for a while (fault
	// injection): the outgoing link of node DownNode's port DownDir sends nothing from
	// DownAt for DownFor (the link-level protocol waits for it to come back: packets are
	// delayed, not lost).
	DownNode int             `param:"down_node" help:"fault injection: the node whose outgoing link goes down, -1 for none" source:"fault injection, default none"`
	DownDir  string          `param:"down_dir" enum:"xp|xm|yp|ym|zp|zm" help:"fault injection: the port of that link" source:"fault injection"`
	DownAt   actors.Duration `param:"down_at" help:"fault injection: simulated time the link goes down" source:"fault injection"`
	DownFor  actors.Duration `param:"down_for" help:"fault injection: how long the link stays down (0: never down)" source:"fault injection, default 0"`
	// Arbitration chooses, among the crossbar inputs with a packet for the same VC of an
	// output, which goes first: "age" takes the packet injected earliest (ties in
	// round-robin order), which shares a congested output fairly between near and far
	// sources; "round_robin" alternates inputs, which favours sources that enter the
	// contended output through a less loaded input (the parking-lot effect). Default age.
	Arbitration string `param:"arbitration" enum:"age|round_robin" help:"output arbitration among crossbar inputs" source:"assumed: age-based, as in Cray's later routers; round_robin available"`
	// NICLatency is the latency of the on-chip links between the router's NIC port
	// and the DMA engines (or a traffic generator), each way. Default 2 ns.
	NICLatency actors.Duration `param:"nic_latency" help:"on-chip latency between the router NIC port and the DMA engines" source:"assumed: one router cycle"`
}

// MaxVCs bounds Params.VCs.
const MaxVCs = 8

// DefaultParams returns the Red Storm SeaStar router: the single source of defaults.
func DefaultParams() Params {
	return Params{
		LinkBandwidth:      2500 * actors.MBPerSecond,
		PacketPayload:      64 * actors.Byte,
		Clock:              500 * actors.Megahertz,
		HopCycles:          25,
		WireLatency:        5 * actors.Nanosecond,
		VCs:                4,
		InputBufferPackets: 8,
		OutputQueuePackets: 2,
		RetryDelay:         100 * actors.Nanosecond,
		DownNode:           -1,
		DownDir:            "xp",
		CRCNode:            -1,
		CRCDir:             "xp",
		NICLatency:         2 * actors.Nanosecond,
		Arbitration:        "age",
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.LinkBandwidth <= 0:
		return fmt.Errorf("link_bandwidth must be > 0 (got %s)", p.LinkBandwidth)
	case p.PacketPayload <= 0 || p.PacketPayload > 1<<20:
		return fmt.Errorf("packet_payload must be in 1B..1MiB (got %s)", p.PacketPayload)
	case p.Clock <= 0:
		return fmt.Errorf("clock must be > 0 (got %s)", p.Clock)
	case p.HopCycles < 1:
		return fmt.Errorf("hop_cycles must be >= 1 (got %d)", p.HopCycles)
	case p.WireLatency < 0:
		return fmt.Errorf("wire_latency must be >= 0 (got %s)", p.WireLatency)
	case p.CableLatency() <= 0:
		return fmt.Errorf("wire_latency %s plus hop_cycles-1 = %d cycles must be > 0: "+
			"the cable latency is the lookahead between nodes", p.WireLatency, p.HopCycles-1)
	case p.VCs < 2 || p.VCs%2 != 0 || p.VCs > MaxVCs:
		return fmt.Errorf("vcs must be even and in 2..%d (got %d)", MaxVCs, p.VCs)
	case p.InputBufferPackets < 1 || p.InputBufferPackets > 1<<15:
		return fmt.Errorf("input_buffer_packets must be in 1..32768 (got %d)", p.InputBufferPackets)
	case p.OutputQueuePackets < 1 || p.OutputQueuePackets > 1<<15:
		return fmt.Errorf("output_queue_packets must be in 1..32768 (got %d)", p.OutputQueuePackets)
	case p.RetryDelay < 0:
		return fmt.Errorf("retry_delay must be >= 0 (got %s)", p.RetryDelay)
	case p.DownNode < -1 || p.DownAt < 0 || p.DownFor < 0:
		return fmt.Errorf("down_node must be >= -1, down_at and down_for >= 0")
	case !isLinkDir(p.DownDir):
		return linkDirError("down_dir", p.DownDir)
	case p.CRCNode < -1:
		return fmt.Errorf("crc_node must be >= -1 (got %d)", p.CRCNode)
	case !isLinkDir(p.CRCDir):
		return linkDirError("crc_dir", p.CRCDir)
	case p.NICLatency <= 0:
		return fmt.Errorf("nic_latency must be > 0 (got %s)", p.NICLatency)
	case p.Arbitration != "age" && p.Arbitration != "round_robin":
		return fmt.Errorf("arbitration must be age or round_robin (got %q)", p.Arbitration)
	}
	return nil
}

// Classes is the number of traffic classes, VCs/2.
func (p Params) Classes() int { return p.VCs / 2 }

// HopLatency is the pipeline latency of one router traversal, Clock.Cycles(HopCycles).
func (p Params) HopLatency() actors.Duration { return p.Clock.Cycles(int64(p.HopCycles)) }

// PacketTime is how long one packet occupies a link: PacketPayload at LinkBandwidth
// (25.6 ns by default), whatever the packet's actual payload.
func (p Params) PacketTime() actors.Duration { return p.LinkBandwidth.TransferTime(p.PacketPayload) }

// CableLatency is the latency of a router-to-router link: WireLatency plus the
// receiving router's pipeline except the one crossbar cycle, which sits on the
// crossbar link (see doc.go).
func (p Params) CableLatency() actors.Duration {
	return p.WireLatency + p.Clock.Cycles(int64(p.HopCycles-1))
}

// CrossbarLatency is the latency of a crossbar link inside a router: one cycle.
func (p Params) CrossbarLatency() actors.Duration { return p.Clock.Cycles(1) }

// isLinkDir reports whether name is a router-to-router port (xp, xm, yp, ym, zp, zm).
func isLinkDir(name string) bool { return slices.Contains(dirNames[:NIC], name) }

// linkDirError is the error of a key that must name a router-to-router port.
func linkDirError(key, got string) error {
	return fmt.Errorf("%s must be one of %s (got %q)", key, strings.Join(dirNames[:NIC], ", "), got)
}
