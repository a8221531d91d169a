package rxdma

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/router"
)

// Ports of an Engine.
const (
	PortRouter actors.Port = iota // packets in from the router's NIC "eject" port, credits out
	PortCAM                       // lookups out, grants in
	PortHT                        // DMA writes out, acknowledgements in
	PortPPC                       // SOM and Done out, Discard in
)

// Engine is the RX DMA engine actor of one node.
type Engine struct {
	p   *Params // shared by the engines of a machine: read-only
	vcs int

	fifo    []*router.Packet // ring
	head    int
	n       int
	used    int64                   // payload bytes of the head packet already disposed of
	discard map[*router.Packet]bool // packets the PPC discards (onDiscard); nil until the first, so that the head check reads no map

	cmds     map[router.NodeID]*active // command in progress per source
	last     *active                   // the command found last (cmds[lastSrc]), nil if none
	actives  actors.FreeList[active]   // records of commands done, for reuse
	lastSrc  router.NodeID
	waiting  bool // a Lookup is outstanding
	ticking  bool
	ackStall bool
	waitAt   actors.Time
	writes   int         // DMA writes not yet acknowledged
	writeOf  []*ht.Write // the engine's writes by size, shared by every packet (see write)
	freeAt   actors.Time
	ackAt    actors.Time
	dropping map[dropKey]bool        // messages being dropped (DropRate), by source and class
	refused  map[dropKey]bool        // messages the PPC refused whole (Discard.Whole) whose first packet has left the head: their later packets are discarded
	whole    map[*router.Packet]bool // first packets of messages refused whole, not yet at the head

	// traced holds the sampled messages in the FIFO: when their SOM packet came.
	traced map[uint64]actors.Time

	Stats Stats
}

type active struct {
	cmd  cam.Command
	left int64
	next []cam.Command // granted after cmd, in CAM order (see onGrant)
}

// Stats counts the engine's work.
type Stats struct {
	Packets     int64
	Bytes       int64 // payload bytes written to host memory
	Discarded   int64 // payload bytes discarded
	Messages    int64 // SOM packets received
	Commands    int64 // RX commands retired
	PeakFIFO    int
	CAMStall    actors.Duration // time the head packet waited for a CAM grant
	Stalls      int64
	WriteStall  actors.Duration // time the head packet waited for HT write slots
	Busy        actors.Duration
	PPCDiscards int64
	Dropped     int64 // messages lost on arrival (DropRate)
	DroppedPkts int64
}

// dropKey names the message a source is sending on a traffic class: its packets arrive
// in order and are not interleaved with another message of the same source and class.
type dropKey struct {
	src   router.NodeID
	class uint8
}

// New returns an engine that announces p.Credits(vcs) credits per VC to the router.
// Its FIFO holds the credits of the VCs the router ejects on, one per traffic class: a
// packet on another VC would overflow it, and the run fails. It reads its parameters
// from *p, which must be valid and must not change while the engine lives: the engines
// of a machine share one copy.
func New(p *Params, vcs int) *Engine {
	return &Engine{p: p, vcs: vcs, fifo: make([]*router.Packet, p.Credits(vcs)*max(1, vcs/2)),
		cmds: map[router.NodeID]*active{}}
}

// Ports implements actors.Ported.
func (e *Engine) Ports() []string { return []string{"router", "cam", "ht", "ppc"} }

// Receive implements actors.Actor.
func (e *Engine) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *router.Packet:
		e.onPacket(ctx, m)
	case *cam.Grant:
		e.onGrant(ctx, *m)
		m.Release() // its command is copied: nothing refers to it any more
	case cam.Grant:
		e.onGrant(ctx, m)
	case ht.WriteDone:
		e.writes--
	case *Discard:
		e.onDiscard(ctx, *m)
		m.Release()
	case Discard:
		e.onDiscard(ctx, m)
	case tick:
		e.ticking = false
	default:
		ctx.Fatalf("rxdma: unexpected %T", m)
	}
	e.drain(ctx)
	if e.n > 0 { // the next drain reads the head's slot and then the packet
		actors.Prefetch(ctx, &e.fifo[e.head], e.fifo[e.head])
	}
}

func (e *Engine) onPacket(ctx actors.Context, p *router.Packet) {
	if e.p.DropRate != (actors.Prob{}) && (e.p.DropNode < 0 || p.Dst == router.NodeID(e.p.DropNode)) && e.drop(ctx, p) {
		return
	}
	if e.n == len(e.fifo) {
		ctx.Fatalf("rxdma: RX FIFO overflow (%d packets): the router sent without a credit (%s)", len(e.fifo), p)
	}
	e.fifo[(e.head+e.n)%len(e.fifo)] = p
	e.n++
	if g := actors.GaugeOf(ctx); g != nil {
		g.Gauge(actors.Gauge{Actor: ctx.Self(), Name: "rx_fifo_packets", At: ctx.Now(), Value: int64(e.n)})
	}
	e.Stats.PeakFIFO = max(e.Stats.PeakFIFO, e.n)
	if p.SOM {
		e.Stats.Messages++
		p.Share(2) // the FIFO until the packet leaves it, the PPC until the firmware has handled SOM
		ctx.Send(PortPPC, SOM{Packet: p}, 0)
		if t := actors.TracerOf(ctx); t != nil {
			e.traceSOM(ctx, t, p)
		}
	}
}

// drop decides at a message's first packet whether the message is lost, and drops
// every packet of a lost message, returning its FIFO slot to the router at once.
func (e *Engine) drop(ctx actors.Context, p *router.Packet) bool {
	k := dropKey{src: p.Src, class: p.Class}
	if p.SOM {
		if !e.p.DropRate.Sample(ctx.Rand().Uint64()) {
			return false
		}
		if e.dropping == nil {
			e.dropping = map[dropKey]bool{}
		}
		e.dropping[k] = true
		e.Stats.Dropped++
	} else if !e.dropping[k] {
		return false
	}
	if p.EOM {
		delete(e.dropping, k)
	}
	e.Stats.DroppedPkts++
	ctx.Send(PortRouter, router.Credit(p.VC), 0)
	p.Release() // lost: nothing refers to it (the PPC is not told of a lost message)
	return true
}

// onGrant installs the command for a source. A grant can arrive after the lookup it
// answered was cancelled; its command is still the source's next one. If the source's
// next packet was looked up again meanwhile, the CAM answers that lookup too, possibly
// while the first command is still in progress: the second command then waits behind
// the first, as it would have in the CAM's queue.
func (e *Engine) onGrant(ctx actors.Context, g cam.Grant) {
	if e.waiting && e.fifo[e.head].Src == g.Src {
		e.waiting = false
		e.Stats.CAMStall += ctx.Now().Sub(e.waitAt)
	}
	if a := e.command(g.Src); a != nil {
		a.next = append(a.next, g.Cmd)
		return
	}
	a := e.actives.Get()
	*a = active{cmd: g.Cmd, left: g.Cmd.Bytes, next: a.next[:0]}
	e.cmds[g.Src] = a
}

// onDiscard marks a packet to drop at the head. If the pipeline is stalled on it
// waiting for a CAM command, the wait ends (Dillow & Atchley 2011, s.II: the PPC reads
// the head packet and discards it, so that it needs no CAM entry).
func (e *Engine) onDiscard(ctx actors.Context, d Discard) {
	if e.discard == nil {
		e.discard = map[*router.Packet]bool{}
	}
	e.discard[d.Packet] = true
	if d.Whole && !d.Packet.EOM {
		// The rest of the message is refused once this packet reaches the head: packets
		// of the source's earlier message may still be ahead of it.
		if e.whole == nil {
			e.whole, e.refused = map[*router.Packet]bool{}, map[dropKey]bool{}
		}
		e.whole[d.Packet] = true
	}
	e.Stats.PPCDiscards++
	if e.waiting && e.fifo[e.head] == d.Packet {
		e.waiting = false
		e.Stats.CAMStall += ctx.Now().Sub(e.waitAt)
		ctx.Send(PortCAM, cam.Cancel{}, 0)
	}
}

// drain disposes of head packets while commands, write slots and the data path allow:
// one packet per data-path slot.
func (e *Engine) drain(ctx actors.Context) {
	for e.n > 0 && !e.waiting {
		now := ctx.Now()
		if e.freeAt > now {
			if !e.ticking {
				e.ticking = true
				ctx.SendSelf(tick{}, e.freeAt.Sub(now))
			}
			return
		}
		p := e.fifo[e.head]
		if e.discard[p] {
			delete(e.discard, p)
			if e.whole[p] {
				delete(e.whole, p)
				e.refused[dropKey{src: p.Src, class: p.Class}] = true
			}
			e.Stats.Discarded += int64(p.Payload) - e.used
			e.pop(ctx, p)
			continue
		}
		if k := (dropKey{src: p.Src, class: p.Class}); !p.SOM && e.refused[k] {
			if p.EOM {
				delete(e.refused, k)
			}
			e.Stats.Discarded += int64(p.Payload) - e.used
			e.pop(ctx, p)
			continue
		}
		if !e.dispose(ctx, p) {
			return
		}
	}
}

// command returns the source's command in progress, nil if none. The packets of a
// message come in a row (98% of the packets of halo3d 8x8x8 follow one of the same
// source), so the command found last is kept beside the engine's state: a lookup reads
// the map's lines only when the source changes.
func (e *Engine) command(src router.NodeID) *active {
	if e.last != nil && e.lastSrc == src {
		return e.last
	}
	a := e.cmds[src]
	if a != nil {
		e.last, e.lastSrc = a, src
	}
	return a
}

// dispose applies the source's command to the rest of the head packet; false if the
// pipeline must wait (for a command or for HT write slots).
func (e *Engine) dispose(ctx actors.Context, p *router.Packet) bool {
	a := e.command(p.Src)
	if a != nil && p.SOM && a.cmd.Cont && e.used == 0 {
		// The source's commands continue a message that is not this one: this packet
		// starts another message (another traffic class) and waits for the PPC, which
		// reads its header (a Discard ends the wait).
		e.waiting, e.waitAt = true, ctx.Now()
		e.Stats.Stalls++
		return false
	}
	if a == nil {
		e.waiting, e.waitAt = true, ctx.Now()
		e.Stats.Stalls++
		ctx.Send(PortCAM, cam.Lookup{Src: p.Src}, 0)
		return false
	}
	if !a.cmd.Discard && e.writes >= e.p.OutstandingWrites {
		if !e.ackStall {
			e.ackStall, e.ackAt = true, ctx.Now()
		}
		return false
	}
	if e.ackStall {
		e.ackStall = false
		e.Stats.WriteStall += ctx.Now().Sub(e.ackAt)
	}
	n := min(int64(p.Payload)-e.used, a.left)
	dt := e.p.DMABandwidth.TransferTime(actors.Bytes(n)) + e.p.PacketOverhead
	e.freeAt = ctx.Now().Add(dt)
	e.Stats.Busy += dt
	if a.cmd.Discard {
		e.Stats.Discarded += n
	} else if n > 0 {
		e.writes++
		e.Stats.Bytes += n
		ctx.Send(PortHT, e.write(n), dt)
	}
	e.used += n
	a.left -= n
	if a.left == 0 {
		e.Stats.Commands++
		if a.cmd.Notify {
			ctx.Send(PortPPC, NewDone(p.Src, a.cmd.Tag, true), dt)
		}
		if len(a.next) > 0 {
			a.cmd, a.left, a.next = a.next[0], a.next[0].Bytes, a.next[1:]
		} else {
			delete(e.cmds, p.Src)
			if e.last == a {
				e.last = nil
			}
			e.actives.Put(a)
		}
	}
	if e.used == int64(p.Payload) {
		e.pop(ctx, p)
	}
	return true
}

// write returns the engine's write of n bytes to host memory. Writes are never changed
// once made (the link only reads them), so one per size serves every packet: no
// allocation per packet.
func (e *Engine) write(n int64) *ht.Write {
	if n >= int64(len(e.writeOf)) {
		e.writeOf = append(e.writeOf, make([]*ht.Write, n+1-int64(len(e.writeOf)))...)
	}
	w := e.writeOf[n]
	if w == nil {
		w = &ht.Write{To: ht.Host, Bytes: actors.Bytes(n), Ack: true}
		e.writeOf[n] = w
	}
	return w
}

// pop removes the head packet and returns its slot to the router.
func (e *Engine) pop(ctx actors.Context, p *router.Packet) {
	e.fifo[e.head] = nil
	e.head = (e.head + 1) % len(e.fifo)
	e.n--
	if g := actors.GaugeOf(ctx); g != nil {
		g.Gauge(actors.Gauge{Actor: ctx.Self(), Name: "rx_fifo_packets", At: ctx.Now(), Value: int64(e.n)})
	}
	e.used = 0
	e.Stats.Packets++
	ctx.Send(PortRouter, router.Credit(p.VC), max(0, e.freeAt.Sub(ctx.Now())))
	if p.EOM {
		if t := actors.TracerOf(ctx); t != nil {
			e.traceEOM(ctx, t, p)
		}
		if c, ok := p.Data.(router.Counted); ok {
			c.Drop() // the NIC's last look at the message
		}
	}
	if p.SOM {
		// The PPC was told of it (SOM) and may still name it (a handler yet to run):
		// the later of the two recycles it.
		p.Unshare()
	} else {
		p.Release() // nothing refers to the packet now: the router and the FIFO are done with it
	}
}
