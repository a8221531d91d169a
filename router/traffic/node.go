package traffic

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// shared is what every Node of a run reads: the configuration and derived values.
type shared struct {
	cfg     Config
	slot    actors.Duration // one packet time: the unit of the injection process
	slots   int64           // packet slots before the end of the run
	from    actors.Time     // measurement window
	to      actors.Time
	payload int32
}

// packet is a router.Packet with its creation time. Its Data points back at it, so
// the sink finds the creation time without a second allocation.
type packet struct {
	router.Packet
	created actors.Time
	// The traffic pool's mark (packets): it shadows the router's, in Packet, which
	// stays unset, so the router's pool never takes a traffic packet (Crossed).
	actors.PoolMark
}

// packets recycles the traffic packets: a generator makes them (createMessage, and
// the decoder for one that crossed from another process) and the sink that records
// one is its last holder (onPacket), so a packet's trip costs no heap allocation.
var packets actors.Pool[packet, *packet]

// Node is a traffic generator and sink standing in for one node's NIC, an actor
// named "node[x,y,z].traffic" with ports "tx" (to the router's inject port) and "rx"
// (from its eject port).
//
//	message          arrives on   effect
//	*router.Packet   rx           recorded; a Credit for its VC goes back on rx
//	router.Credit    tx           one more injection credit; inject if packets wait
//	generate         self         create a message (if the source queue has room),
//	                              draw the next creation time
//	injectWake       self         the injection link is free again
//
// Emitted: *router.Packet on tx (one per injection credit, at link rate) and
// router.Credit on rx.
type Node struct {
	sh      *shared
	id      router.NodeID
	inj     router.Injector
	queue   ring
	wakeSet bool
	seq     int32

	stats    NodeStats
	lat      Histogram // latency of measured packets: ejection - creation
	injected uint64    // packets injected, for the run report
}

// NodeStats are one node's counts over the measurement window.
type NodeStats struct {
	Created     uint64          // packets created by messages started in the window
	Refused     uint64          // packets of messages refused because the source queue was full
	Measured    uint64          // packets created in the window and delivered (in Histogram)
	EjectedPkts uint64          // packets delivered in the window, whenever created
	EjectedB    uint64          // their payload bytes
	NetLatency  actors.Duration // sum over measured packets of ejection - injection
}

type generate struct{}

func (generate) String() string { return "traffic.generate" }

type injectWake struct{}

func (injectWake) String() string { return "traffic.injectWake" }

// Ports of a Node.
const (
	portTX actors.Port = iota
	portRX
)

// Ports implements actors.Ported.
func (n *Node) Ports() []string { return []string{"tx", "rx"} }

// PacketsInjected implements actors.PacketCounter.
func (n *Node) PacketsInjected() uint64 { return n.injected }

// Start schedules the first message.
func (n *Node) Start(ctx actors.Context) { n.scheduleNext(ctx, 0) }

// Receive implements actors.Actor.
func (n *Node) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *router.Packet:
		n.onPacket(ctx, m)
	case router.Credit:
		n.inj.Return(ctx, m)
		n.inject(ctx)
	case generate:
		n.onGenerate(ctx)
	case injectWake:
		n.wakeSet = false
		n.inject(ctx)
	default:
		ctx.Fatalf("traffic: unexpected %T %v", m, m)
	}
}

// scheduleNext draws the next packet slot, from slot s on, in which a message starts:
// a Bernoulli trial per slot with probability Load/MsgPackets, so inter-arrival
// times are geometric. There is none if load is 0 or the run ends first.
func (n *Node) scheduleNext(ctx actors.Context, s int64) {
	c := &n.sh.cfg
	if c.Load == (actors.Prob{}) {
		return
	}
	r := ctx.Rand()
	for ; s < n.sh.slots; s++ {
		if c.Load.Sample(r.Uint64()) && (c.MsgPackets == 1 || r.IntN(c.MsgPackets) == 0) {
			at := actors.Time(s) * actors.Time(n.sh.slot)
			ctx.SendSelf(generate{}, at.Sub(ctx.Now()))
			return
		}
	}
}

func (n *Node) onGenerate(ctx actors.Context) {
	now := ctx.Now()
	c := &n.sh.cfg
	mp := c.MsgPackets
	inWindow := now >= n.sh.from && now < n.sh.to
	if n.queue.free() < mp {
		if inWindow {
			n.stats.Refused += uint64(mp)
		}
	} else {
		n.createMessage(ctx, c.destination(n.id, ctx.Rand()), inWindow)
	}
	n.scheduleNext(ctx, int64(now)/int64(n.sh.slot)+1)
	n.inject(ctx)
}

// createMessage queues the packets of one message to dst.
func (n *Node) createMessage(ctx actors.Context, dst router.NodeID, inWindow bool) {
	mp := n.sh.cfg.MsgPackets
	for i := range mp {
		pk := packets.New(packet{created: ctx.Now(), Packet: router.Packet{Src: n.id, Dst: dst, Payload: n.sh.payload,
			SOM: i == 0, EOM: i == mp-1, Seq: int32(i)}})
		pk.Data = pk
		n.queue.push(pk)
	}
	if inWindow {
		n.stats.Created += uint64(mp)
	}
}

// inject hands queued packets to the router while the link is free and credits last.
func (n *Node) inject(ctx actors.Context) {
	now := ctx.Now()
	for n.queue.len() > 0 {
		if !n.inj.Ready(now, 0) {
			if now < n.inj.FreeAt() && !n.wakeSet {
				n.wakeSet = true
				ctx.SendSelf(injectWake{}, n.inj.FreeAt().Sub(now))
			}
			return
		}
		n.inj.Inject(ctx, portTX, &n.queue.pop().Packet)
		n.injected++
	}
}

// onPacket is the sink: it frees the receive slot at once and records the packet.
func (n *Node) onPacket(ctx actors.Context, p *router.Packet) {
	now := ctx.Now()
	if p.Dst != n.id {
		ctx.Fatalf("traffic: %v delivered to node %d", p, n.id)
	}
	ctx.Send(portRX, router.Credit(p.VC), 0)
	pk, ok := p.Data.(*packet)
	if !ok {
		ctx.Fatalf("traffic: %v was not created by a traffic generator", p)
	}
	if now >= n.sh.from && now < n.sh.to {
		n.stats.EjectedPkts++
		n.stats.EjectedB += uint64(p.Payload)
	}
	if pk.created >= n.sh.from && pk.created < n.sh.to {
		n.stats.Measured++
		n.lat.Add(now.Sub(pk.created))
		n.stats.NetLatency += now.Sub(p.Injected)
	}
	packets.Release(pk) // the router is done with it (ejected), and so is this sink
}

// ring is the bounded source queue; it grows on demand up to its bound.
type ring struct {
	buf     []*packet
	head, n int
	limit   int
}

func (q *ring) len() int  { return q.n }
func (q *ring) free() int { return q.limit - q.n }

func (q *ring) push(p *packet) {
	if q.n == len(q.buf) {
		q.grow()
	}
	i := q.head + q.n
	if i >= len(q.buf) {
		i -= len(q.buf)
	}
	q.buf[i] = p
	q.n++
}

func (q *ring) pop() *packet {
	p := q.buf[q.head]
	q.buf[q.head] = nil
	q.head++
	if q.head == len(q.buf) {
		q.head = 0
	}
	q.n--
	return p
}

func (q *ring) grow() {
	nb := make([]*packet, min(q.limit, max(8, 2*len(q.buf))))
	for i := range q.n {
		nb[i] = q.buf[(q.head+i)%len(q.buf)]
	}
	q.buf, q.head = nb, 0
}
