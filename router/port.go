package router

import (
	"reflect"

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
//
// Its tables are sized for MaxVCs virtual channels and ordered by channel, so that a
// network of fewer channels uses their first entries only; the (channel, direction)
// table comes last and the port's events read its struct up to the end of the
// channels in use (PrefetchBytes): at four channels 432 of its 600 bytes, 7 lines of
// the 10 its allocation spans. TestPortLayout checks the order.
type Port struct {
	cfg       *config
	in        []inSlot    // the rings of the input buffers (queues.go)
	out       []*Packet   // the rings of the output queues
	busyUntil actors.Time // the link transmits (or waits to retry) until then
	stallFrom actors.Time // start of the current credit stall, -1 if none
	retry     *Packet     // a packet whose transmission failed its CRC
	node      NodeID
	extOut    actors.Port // the outgoing external port: the link, or eject
	coord     [3]int32    // the node's coordinates, for routing
	dir       Dir
	rrVC      uint8 // round-robin cursor over VCs
	wakeSet   bool  // a wake is scheduled at busyUntil
	connected bool  // the external link exists (false on a mesh edge)
	crc       bool  // its link has CRC errors (crc_error_rate, on every link or crc_node's)
	down      bool  // its link is the one fault injection takes down (down_node, down_dir)

	vc [MaxVCs]vcState // by virtual channel
	// counters are the statistics the port counts (PortStats has the rest).
	counters PortCounters
	// buffered is the count of packets inside the port restored from the process that
	// ran it (multi-process runs, see codec.go); -1 in the process that ran it.
	buffered int
	// x holds, by virtual channel v and crossbar direction j (xIndex), the output queue
	// of crossbar input j and this port's crossbar credits for output j.
	x [MaxVCs * numDirs]xState
}

// vcState is what a port keeps of one virtual channel.
type vcState struct {
	in      qstate // the input buffer
	waiting int16  // packets in the output queues
	credits int16  // free slots downstream
	hop     Hop    // the route of the input buffer's head, if it has one
	rrIn    uint8  // round-robin cursor over crossbar inputs
}

// xState is what a port keeps of one virtual channel and crossbar direction j: the
// output queue of packets from input j, and the crossbar credits, the free slots of
// this input's share of output j's queue.
type xState struct {
	out   qstate
	xcred int16
}

// PrefetchBytes implements actors.PrefetchSizer: the port's events read its struct up
// to the (channel, direction) entries of the channels the network has.
func (p *Port) PrefetchBytes() uintptr {
	return portXOffset + uintptr(p.cfg.vcs)*uintptr(numDirs)*portXSize
}

// The offset of Port.x and the size of its entries.
var (
	portXOffset = func() uintptr { f, _ := reflect.TypeOf(Port{}).FieldByName("x"); return f.Offset }()
	portXSize   = reflect.TypeOf(xState{}).Size()
)

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
	c := cfg.topo.Coord(node)
	p := &Port{cfg: cfg, node: node, coord: [3]int32{int32(c[0]), int32(c[1]), int32(c[2])}, dir: d, extOut: actors.Port(d),
		connected: connected, stallFrom: -1, buffered: -1}
	p.crc = cfg.crc && d != NIC && (cfg.p.CRCNode < 0 || node == NodeID(cfg.p.CRCNode) && dirNames[d] == cfg.p.CRCDir)
	p.down = cfg.downTo > 0 && node == NodeID(cfg.p.DownNode) && dirNames[d] == cfg.p.DownDir
	p.in, p.out = make([]inSlot, cfg.vcs*cfg.p.InputBufferPackets), make([]*Packet, cfg.vcs*int(numDirs)*cfg.p.OutputQueuePackets)
	if d == NIC {
		p.extOut = actors.Port(numDirs)
	}
	downstream := p.capacityDownstream()
	for v := range cfg.vcs {
		p.vc[v].credits = int16(downstream)
		for j := range numDirs {
			p.x[xIndex(v, j)].xcred = int16(cfg.p.OutputQueuePackets)
		}
	}
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
		if int(p.vc[v].credits) >= p.capacityDownstream() {
			ctx.Fatalf("router: %v on %s exceeds the downstream buffer (%d)", c, ctx.Name(), p.capacityDownstream())
		}
		p.vc[v].credits++
		p.transmit(ctx)
	case from >= 0 && from < actors.Port(numDirs) && from != actors.Port(p.dir):
		p.x[xIndex(v, Dir(from))].xcred++
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
	s := &p.vc[v].in
	if int(s.n) == p.cfg.p.InputBufferPackets {
		ctx.Fatalf("router: %v overflows the input buffer of vc%d (%d packets): the sender ignored credits",
			pk, v, p.cfg.p.InputBufferPackets)
	}
	if p.cfg.inWindow(ctx.Now()) {
		p.counters.Received++
	}
	pk.Entered = ctx.Now()
	r, h := p.inRing(v), p.cfg.topo.routeAt(p.coords(), pk.Dst, p.dir, pk.Class, pk.VC, p.cfg.dateline)
	r[s.add(len(r))] = inSlot{pk: pk, hop: h}
	if s.n == 1 {
		p.vc[v].hop = h
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
	c, r := &p.vc[v], p.inRing(v)
	for c.in.n > 0 {
		h := c.hop
		x := &p.x[xIndex(int(h.VC), h.Out)]
		if x.xcred == 0 {
			return
		}
		x.xcred--
		i := c.in.take(len(r))
		pk := r[i].pk
		r[i] = inSlot{}
		if c.in.n > 0 {
			c.hop = r[c.in.head].hop
		}
		pk.VC = h.VC
		ctx.Send(actors.Port(p.dir), Credit(v), 0) // the slot is free: tell the sender
		if h.Out == p.dir {
			ctx.SendSelf(pk, p.cfg.hop) // NIC to NIC of the same node
		} else {
			ctx.Send(actors.Port(h.Out), pk, 0)
		}
	}
}

// coords returns the node's coordinates.
func (p *Port) coords() [3]int { return [3]int{int(p.coord[0]), int(p.coord[1]), int(p.coord[2])} }

// enqueue puts a packet from crossbar input j into this port's output queue.
func (p *Port) enqueue(ctx actors.Context, j Dir, pk *Packet) {
	k := xIndex(int(pk.VC), j)
	s := &p.x[k].out
	if int(s.n) == p.cfg.p.OutputQueuePackets {
		ctx.Fatalf("router: %v from %s overflows the output queue (%d packets): crossbar credits broken", pk, j, p.cfg.p.OutputQueuePackets)
	}
	r := p.outRing(k)
	r[s.add(len(r))] = pk
	p.vc[pk.VC].waiting++
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
	for v := range p.cfg.vcs {
		n += int64(p.vc[v].waiting)
	}
	g.Gauge(actors.Gauge{Actor: ctx.Self(), Name: "out_queue_packets", At: ctx.Now(), Value: n})
}

// Start implements actors.Starter: it names the first lines of the port's rings
// (actors.Prefetch) for the engine to prefetch with its struct.
func (p *Port) Start(ctx actors.Context) {
	actors.Prefetch(ctx, &p.in[0], &p.out[0])
}
