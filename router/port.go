package router

import (
	"github.com/seastar-sim/seastar/actors"
)

// config is what every port of a network shares: read-only while a model runs.
type config struct {
	p            Params
	topo         Topology
	vcs          int
	ejectCredits int
	dateline     bool // false only in tests that demonstrate the deadlock
	age          bool // age-based output arbitration
	crc          bool // CRCErrorRate > 0
	packetTime   actors.Duration
	hop          actors.Duration // pipeline latency, for NIC-to-NIC loopback
	from, to     actors.Time     // statistics window
	downFrom     actors.Time     // fault injection: the link of down_node's port down_dir is down in [downFrom, downTo)
	downTo       actors.Time
}

func newConfig(topo Topology, p Params, ejectCredits int, dateline bool) *config {
	c := &config{p: p, topo: topo, vcs: p.VCs, ejectCredits: ejectCredits, dateline: dateline,
		crc: p.CRCErrorRate != actors.Prob{}, age: p.Arbitration != "round_robin", packetTime: p.PacketTime(), hop: p.HopLatency(), to: actors.MaxTime}
	if p.DownNode >= 0 && p.DownFor > 0 {
		c.downFrom, c.downTo = actors.Time(0).Add(p.DownAt), actors.Time(0).Add(p.DownAt+p.DownFor)
	}
	return c
}

// clip returns the part of [a, b) inside the statistics window.
func (c *config) clip(a, b actors.Time) actors.Duration {
	a, b = max(a, c.from), min(b, c.to)
	if b <= a {
		return 0
	}
	return b.Sub(a)
}

func (c *config) inWindow(t actors.Time) bool { return t >= c.from && t < c.to }

// Port is one of the seven ports of a SeaStar router, an actor named
// "node[x,y,z].router.DIR". It holds the input buffer of its incoming link (a FIFO
// per virtual channel) and the output queues of its outgoing link (a FIFO per
// virtual channel and crossbar input), routes the packets at the heads of its input
// buffers through the crossbar and transmits from its output queues. See doc.go for
// the messages, the ports and the timing.
type Port struct {
	// Fields used by most messages come first, to share cache lines.
	cfg       *config
	in        queues      // input buffer, by VC
	out       queues      // output queues, by (crossbar input j, VC v) at j*vcs+v
	busyUntil actors.Time // the link transmits (or waits to retry) until then
	retry     *Packet     // a packet whose transmission failed its CRC
	node      NodeID
	coord     [3]int      // the node's coordinates, for routing
	extOut    actors.Port // the outgoing external port: the link, or eject
	routed    uint32      // bit v: hop[v] holds the route of in's head of VC v
	dir       Dir
	rrVC      uint8         // round-robin cursor over VCs
	wakeSet   bool          // a wake is scheduled at busyUntil
	connected bool          // the external link exists (false on a mesh edge)
	crc       bool          // its link has CRC errors (crc_error_rate, on every link or crc_node's)
	down      bool          // its link is the one fault injection takes down (down_node, down_dir)
	waiting   [MaxVCs]int16 // packets in out, by VC
	credits   [MaxVCs]int16 // free slots downstream, by VC
	hop       [MaxVCs]Hop   // cached routing decision of each input VC's head
	rrIn      [MaxVCs]uint8 // round-robin cursor over crossbar inputs, per VC
	// xcred are the crossbar credits: free slots of this input's share of output
	// j's queue for VC v, at j*vcs+v.
	xcred     [numDirs * MaxVCs]int16
	stallFrom actors.Time // start of the current credit stall, -1 if none
	// The states (head, length) of the input and output queues, inside the port: in and
	// out point at them.
	inState  [MaxVCs]qstate
	outState [numDirs * MaxVCs]qstate

	stats PortStats
	// buffered is the count of packets inside the port restored from the process that
	// ran it (multi-process runs, see codec.go); -1 in the process that ran it.
	buffered int
}

// portNames lists the actor ports of every kind of router port. Port index j < 7,
// j != dir, is the crossbar link to the port of direction j; index dir is the
// external input: "link" for a torus port (the cable, also its external output),
// "inject" for the NIC port, whose external output is "eject" (index 7).
var portNames = func() (names [numDirs][]string) {
	for d := range numDirs {
		names[d] = make([]string, numDirs, numDirs+1)
		copy(names[d], dirNames[:])
		names[d][d] = "link"
	}
	names[NIC][NIC] = "inject"
	names[NIC] = append(names[NIC], "eject")
	return names
}()

// Ports implements actors.Ported.
func (p *Port) Ports() []string { return portNames[p.dir] }

func newPort(cfg *config, node NodeID, d Dir, connected bool) *Port {
	p := &Port{cfg: cfg, node: node, coord: cfg.topo.Coord(node), dir: d, extOut: actors.Port(d), connected: connected,
		stallFrom: -1, buffered: -1}
	p.crc = cfg.crc && d != NIC && (cfg.p.CRCNode < 0 || node == NodeID(cfg.p.CRCNode) && dirNames[d] == cfg.p.CRCDir)
	p.down = cfg.downTo > 0 && node == NodeID(cfg.p.DownNode) && dirNames[d] == cfg.p.DownDir
	vcs := cfg.vcs
	p.in = newQueues(p.inState[:vcs], cfg.p.InputBufferPackets)
	p.out = newQueues(p.outState[:int(numDirs)*vcs], cfg.p.OutputQueuePackets)
	for i := range int(numDirs) * vcs {
		p.xcred[i] = int16(cfg.p.OutputQueuePackets)
	}
	downstream := cfg.p.InputBufferPackets
	if d == NIC {
		p.extOut = actors.Port(numDirs)
		downstream = cfg.ejectCredits
	}
	for v := range vcs {
		p.credits[v] = int16(downstream)
	}
	p.stats = PortStats{Node: node, Dir: d, Connected: connected}
	return p
}

// Receive implements actors.Actor.
func (p *Port) Receive(ctx actors.Context, m actors.Msg) {
	from := ctx.Port()
	switch m := m.(type) {
	case *Packet:
		p.onPacket(ctx, from, m)
	case Credit:
		p.onCredit(ctx, from, m)
	case wake:
		p.wakeSet = false
		p.transmit(ctx)
	default:
		ctx.Fatalf("router: unexpected %T %v", m, m)
	}
}

func (p *Port) onPacket(ctx actors.Context, from actors.Port, pk *Packet) {
	switch {
	case from == actors.Port(p.dir):
		p.arrive(ctx, pk)
	case from == actors.SelfPort && p.dir == NIC: // loopback: this node to itself
		p.enqueue(ctx, NIC, pk)
	case from >= 0 && from < actors.Port(numDirs):
		p.enqueue(ctx, Dir(from), pk)
	default:
		ctx.Fatalf("router: packet %v on port %d, which does not carry packets in", pk, from)
	}
}

func (p *Port) onCredit(ctx actors.Context, from actors.Port, c Credit) {
	v := int(c)
	if v >= p.cfg.vcs {
		ctx.Fatalf("router: %v for a virtual channel this router does not have (vcs %d)", c, p.cfg.vcs)
	}
	switch {
	case from == p.extOut:
		if int(p.credits[v]) >= p.capacityDownstream() {
			ctx.Fatalf("router: %v on %s exceeds the downstream buffer (%d)", c, ctx.Name(), p.capacityDownstream())
		}
		p.credits[v]++
		p.transmit(ctx)
	case from >= 0 && from < actors.Port(numDirs) && from != actors.Port(p.dir):
		p.xcred[int(from)*p.cfg.vcs+v]++
		p.forwardAll(ctx)
	default:
		ctx.Fatalf("router: %v on port %d, which does not carry credits in", c, from)
	}
}

func (p *Port) capacityDownstream() int {
	if p.dir == NIC {
		return p.cfg.ejectCredits
	}
	return p.cfg.p.InputBufferPackets
}

// arrive puts a packet from the external link (or the NIC) into the input buffer.
// The sender held a credit, so there is room; if not, the sender broke the protocol.
func (p *Port) arrive(ctx actors.Context, pk *Packet) {
	v := int(pk.VC)
	if v >= p.cfg.vcs || int(pk.Class) >= p.cfg.vcs/2 {
		ctx.Fatalf("router: %v has a class or virtual channel this router does not have (vcs %d)", pk, p.cfg.vcs)
	}
	if p.in.full(v) {
		ctx.Fatalf("router: %v overflows the input buffer of vc%d (%d packets): the sender ignored credits",
			pk, v, p.in.cap)
	}
	if p.cfg.inWindow(ctx.Now()) {
		p.stats.Received++
	}
	pk.Entered = ctx.Now()
	p.in.push(v, pk)
	if p.in.len(v) == 1 {
		p.forward(ctx, v)
	}
}

// forwardAll retries the head of every input virtual channel.
func (p *Port) forwardAll(ctx actors.Context) {
	for v := range p.cfg.vcs {
		p.forward(ctx, v)
	}
}

// forward moves packets from the head of input VC v through the crossbar while their
// output queues have room. The head blocks the packets behind it.
func (p *Port) forward(ctx actors.Context, v int) {
	for p.in.len(v) > 0 {
		h := p.headHop(v)
		k := int(h.Out)*p.cfg.vcs + int(h.VC)
		if p.xcred[k] == 0 {
			return
		}
		p.xcred[k]--
		pk := p.in.pop(v)
		p.routed &^= 1 << v
		pk.VC = h.VC
		ctx.Send(actors.Port(p.dir), Credit(v), 0) // the slot is free: tell the sender
		if h.Out == p.dir {
			ctx.SendSelf(pk, p.cfg.hop) // NIC to NIC of the same node
		} else {
			ctx.Send(actors.Port(h.Out), pk, 0)
		}
	}
}

// headHop routes the head of input VC v, once per packet.
func (p *Port) headHop(v int) Hop {
	if p.routed&(1<<v) == 0 {
		pk := p.in.peek(v)
		p.hop[v] = p.cfg.topo.routeAt(p.coord, pk.Dst, p.dir, pk.Class, pk.VC, p.cfg.dateline)
		p.routed |= 1 << v
	}
	return p.hop[v]
}

// enqueue puts a packet from crossbar input j into this port's output queue.
func (p *Port) enqueue(ctx actors.Context, j Dir, pk *Packet) {
	q := int(j)*p.cfg.vcs + int(pk.VC)
	if p.out.full(q) {
		ctx.Fatalf("router: %v from %s overflows the output queue (%d packets): crossbar credits broken", pk, j, p.out.cap)
	}
	p.out.push(q, pk)
	p.waiting[pk.VC]++
	p.gaugeQueue(ctx)
	p.transmit(ctx)
}

// gaugeQueue reports the packets in the output queues to a timeline.
func (p *Port) gaugeQueue(ctx actors.Context) {
	g := actors.GaugeOf(ctx)
	if g == nil {
		return
	}
	n := int64(0)
	for _, w := range p.waiting {
		n += int64(w)
	}
	g.Gauge(actors.Gauge{Actor: ctx.Self(), Name: "out_queue_packets", At: ctx.Now(), Value: n})
}
