package ieee1394

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/startjr/wire"
)

// Params configures one bus. Start from DefaultParams; Validate before use.
type Params struct {
	Rate         actors.Bandwidth `param:"rate" help:"data rate on the bus" source:"Hoe & Ehrlich 1996 s.2.1.2: 100 Mbit/s busses (IEEE 1394-1995 S100: 98.304 Mbit/s, 12.288 MB/s)"`
	Arbitration  actors.Duration  `param:"arbitration" help:"arbitration for the bus before each packet (request up the tree, grant down)" source:"assumed: 1 us for a bus of up to 8 nodes"`
	HeaderBytes  actors.Bytes     `param:"header_bytes" help:"asynchronous packet header and its CRC" source:"IEEE 1394-1995 asynchronous block write: 16-byte header + 4-byte header CRC"`
	DataCRCBytes actors.Bytes     `param:"data_crc_bytes" help:"CRC after the data block" source:"IEEE 1394-1995: 4 bytes"`
	AckGap       actors.Duration  `param:"ack_gap" help:"gap between a packet and its link-layer acknowledgement" source:"assumed: 0.1 us"`
	AckBits      int              `param:"ack_bits" help:"bits of the link-layer acknowledgement packet" source:"IEEE 1394-1995: 8-bit ack packet"`
	SubactionGap actors.Duration  `param:"subaction_gap" help:"idle time after a subaction before the next arbitration" source:"assumed: 1.5 us (gap count set for a small bus)"`
	Propagation  actors.Duration  `param:"propagation" help:"cable and PHY repeat delay from a node to the bus (the links between partitions)" source:"assumed: 0.2 us (a few PHY repeaters)"`
	MaxPayload   actors.Bytes     `param:"max_payload" help:"largest data block of an asynchronous packet" source:"IEEE 1394-1995: 512 bytes at S100"`
}

// DefaultParams returns the defaults.
func DefaultParams() Params {
	return Params{Rate: 12288 * actors.KBPerSecond, Arbitration: actors.Microsecond, HeaderBytes: 20, DataCRCBytes: 4,
		AckGap: 100 * actors.Nanosecond, AckBits: 8, SubactionGap: 1500 * actors.Nanosecond, Propagation: 200 * actors.Nanosecond,
		MaxPayload: 512}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.Rate <= 0:
		return fmt.Errorf("rate must be > 0 (got %s)", p.Rate)
	case p.Arbitration < 0 || p.AckGap < 0 || p.SubactionGap < 0:
		return fmt.Errorf("arbitration, ack_gap and subaction_gap must be >= 0")
	case p.Propagation <= 0:
		return fmt.Errorf("propagation must be > 0 (got %s): nodes and buses may run in different partitions", p.Propagation)
	case p.HeaderBytes < 0 || p.DataCRCBytes < 0 || p.AckBits < 0:
		return fmt.Errorf("header_bytes, data_crc_bytes and ack_bits must be >= 0")
	case p.MaxPayload < 4:
		return fmt.Errorf("max_payload must be >= 4 bytes (got %s)", p.MaxPayload)
	}
	return nil
}

// Occupancy is the bus time of a packet of n data bytes (quadlet padded): arbitration,
// framing at the bus rate and, unless broadcast, the acknowledgement; the subaction gap
// follows it.
func (p Params) Occupancy(n int64, broadcast bool) actors.Duration {
	data := (n + 3) / 4 * 4
	d := p.Arbitration + p.Rate.TransferTime(p.HeaderBytes+actors.Bytes(data)+p.DataCRCBytes)
	if !broadcast {
		d += p.AckGap + p.Rate.TransferTime(actors.Bytes((p.AckBits+7)/8))
	}
	return d
}

// Sent tells a node that its packet has left (its transmit FIFO space is free).
type Sent struct{ Prio int }

func (s Sent) String() string { return fmt.Sprintf("ieee1394.Sent(prio %d)", s.Prio) }

// Bus is one IEEE 1394 bus.
type Bus struct {
	p       Params
	name    string
	nodes   int
	waiting []actors.FIFO[entry] // per node, in order
	busy    bool
	last    int // the node granted last (fair arbitration resumes after it)
	Stats   Stats
}

// Stats counts a bus's traffic.
type Stats struct {
	Packets    int64
	Broadcasts int64
	Bytes      int64
	Busy       actors.Duration
	Wait       actors.Duration // time packets waited for the bus
}

// grant is the bus's timer: the bus is free for the next arbitration.
type grant struct{}

func (grant) String() string { return "ieee1394.grant" }

// entry is a waiting packet and when it was queued, for Stats.Wait.
type entry struct {
	p  *wire.Packet
	at actors.Time
}

// New returns a bus joining nodes nodes; name names it in errors. p must be valid.
func New(p Params, name string, nodes int) *Bus {
	return &Bus{p: p, name: name, nodes: nodes, waiting: make([]actors.FIFO[entry], nodes), last: nodes - 1}
}

// Ports implements actors.Ported: n0, n1, ...
func (b *Bus) Ports() []string {
	ps := make([]string, b.nodes)
	for i := range ps {
		ps[i] = fmt.Sprintf("n%d", i)
	}
	return ps
}

// Receive implements actors.Actor.
func (b *Bus) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *wire.Packet:
		src := int(ctx.Port())
		if m.Dst != wire.Broadcast && (m.Dst < 0 || m.Dst >= b.nodes) {
			ctx.Fatalf("%s: packet for node %d, but the bus joins %d nodes", b.name, m.Dst, b.nodes)
			return
		}
		b.waiting[src].Push(entry{p: m, at: ctx.Now()})
		if !b.busy {
			b.busy = true
			ctx.SendSelf(grant{}, 0)
		}
	case grant:
		b.next(ctx)
	default:
		ctx.Fatalf("%s: unexpected %T (%s)", b.name, m, m)
	}
}

// next grants the bus to the next waiting node after the last one granted.
func (b *Bus) next(ctx actors.Context) {
	for k := 1; k <= b.nodes; k++ {
		n := (b.last + k) % b.nodes
		if b.waiting[n].Len() == 0 {
			continue
		}
		e := b.waiting[n].Pop()
		b.last = n
		b.Stats.Wait += ctx.Now().Sub(e.at)
		b.send(ctx, n, e.p)
		return
	}
	b.busy = false
}

// send puts pk from node src on the bus now.
func (b *Bus) send(ctx actors.Context, src int, pk *wire.Packet) {
	now := ctx.Now()
	bc := pk.Dst == wire.Broadcast
	occ := b.p.Occupancy(pk.Bytes, bc)
	// The data has crossed when the packet ends (before its acknowledgement).
	data := b.p.Arbitration + b.p.Rate.TransferTime(b.p.HeaderBytes+actors.Bytes((pk.Bytes+3)/4*4)+b.p.DataCRCBytes)
	b.Stats.Packets++
	b.Stats.Bytes += pk.Bytes
	b.Stats.Busy += occ
	if bc {
		b.Stats.Broadcasts++
		for n := range b.nodes {
			if n != src {
				ctx.Send(actors.Port(n), pk, data)
			}
		}
	} else {
		ctx.Send(actors.Port(pk.Dst), pk, data)
	}
	ctx.Send(actors.Port(src), Sent{Prio: pk.Prio}, occ)
	if t := actors.TracerOf(ctx); t != nil && t.Sampled(pk.ID) {
		t.Span(actors.Span{Trace: pk.ID, Name: b.name + "/packet", Actor: ctx.Self(), Start: now, End: now.Add(occ),
			Attrs: []actors.Attr{actors.IntAttr("src.node", int64(src)), actors.IntAttr("dst.node", int64(pk.Dst)), actors.IntAttr("size_bytes", pk.Bytes)}})
	}
	ctx.SendSelf(grant{}, occ+b.p.SubactionGap)
}
