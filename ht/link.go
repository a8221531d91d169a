package ht

import (
	"github.com/seastar-sim/seastar/actors"
)

// Direction indices of Link.busy.
const (
	down = 0 // host to NIC
	up   = 1 // NIC to host
)

// Link is the HyperTransport link actor. Its ports, in Unit order, lead to the host
// and to the PPC and DMA engines; links to it should have zero latency, the link
// itself models every delay.
type Link struct {
	p     *Params        // shared by the links of a machine: read-only
	busy  [2]actors.Time // each direction is free from this time on
	Stats Stats
	free  actors.FreeList[readReady] // reads served: the link sends them to itself, so it reuses them (no allocation per read)
}

// Stats counts the link's traffic per direction (index 0 down, 1 up).
type Stats struct {
	Bytes  [2]int64           // payload bytes moved
	Busy   [2]actors.Duration // time each direction spent serializing
	Writes [2]int64
	Reads  [2]int64 // reads whose data travelled in that direction
	Irqs   int64
}

// New returns a link that reads its parameters from *p, which must be valid and must
// not change while the link lives: the links of a machine share one copy, so that a
// link's own struct is the state its events change (two cache lines).
func New(p *Params) *Link { return &Link{p: p} }

// Ports implements actors.Ported: one port per Unit.
func (l *Link) Ports() []string { return unitNames[:] }

// Receive implements actors.Actor.
func (l *Link) Receive(ctx actors.Context, m actors.Msg) {
	switch m := m.(type) {
	case *Write:
		l.onWrite(ctx, m)
		m.Release() // the link was its last holder: the payload has been sent on
	case Read:
		l.onRead(ctx, m, nil)
	case *Read:
		l.onRead(ctx, *m, m)
	case *readReady:
		l.onReadReady(ctx, m)
	case Interrupt:
		l.onInterrupt(ctx, m)
	default:
		ctx.Fatalf("ht: unexpected %T", m)
	}
}

// from is the unit a message arrived from.
func from(ctx actors.Context) Unit {
	p := ctx.Port()
	if p < 0 || p >= actors.Port(numUnits) {
		ctx.Fatalf("ht: message from outside the link's ports")
	}
	return Unit(p)
}

// dir is the direction of a transfer from unit a.
func dir(a Unit) int {
	if a == Host {
		return down
	}
	return up
}

// occupy serializes n bytes on direction d starting no earlier than now and returns
// when the last byte has left.
func (l *Link) occupy(ctx actors.Context, d int, n actors.Bytes) actors.Time {
	start := max(ctx.Now(), l.busy[d])
	wire := l.p.WireTime(n)
	l.busy[d] = start.Add(wire)
	l.Stats.Busy[d] += wire
	l.Stats.Bytes[d] += int64(n)
	return l.busy[d]
}

func (l *Link) onWrite(ctx actors.Context, w *Write) {
	src := from(ctx)
	if w.To >= numUnits || (src == Host) == (w.To == Host) {
		ctx.Fatalf("ht: write from %s to %s does not cross the link", src, w.To)
	}
	d := dir(src)
	done := l.occupy(ctx, d, w.Bytes)
	l.Stats.Writes[d]++
	if w.Ack {
		ctx.Send(actors.Port(src), WriteDone{Tag: w.Tag}, done.Sub(ctx.Now()))
	}
	if w.Payload != nil {
		ctx.Send(actors.Port(w.To), w.Payload, done.Add(l.p.Latency).Sub(ctx.Now()))
		if t := actors.TracerOf(ctx); t != nil {
			l.traceWrite(ctx, t, w, src, done.Add(l.p.Latency))
		}
	}
}

// onRead serves read r; req is the requester's own Read when it was sent by pointer.
func (l *Link) onRead(ctx actors.Context, r Read, req *Read) {
	src := from(ctx)
	sent := l.occupy(ctx, dir(src), l.p.RequestBytes)
	serve := l.p.MemoryLatency
	if src == Host {
		serve = l.p.SRAMLatency
	}
	ready := sent.Add(l.p.Latency).Add(serve)
	ctx.SendSelf(l.free.New(readReady{to: src, bytes: r.Bytes, tag: r.Tag, req: req}), ready.Sub(ctx.Now()))
}

// onReadReady sends the data of a read back across the link once the far side has it.
func (l *Link) onReadReady(ctx actors.Context, rr *readReady) {
	r := l.free.Take(rr)
	d := 1 - dir(r.to)
	done := l.occupy(ctx, d, r.bytes)
	l.Stats.Reads[d]++
	at := done.Add(l.p.Latency).Sub(ctx.Now())
	if r.req != nil {
		r.req.Done = ReadDone{Bytes: r.bytes, Tag: r.tag}
		ctx.Send(actors.Port(r.to), &r.req.Done, at)
	} else {
		ctx.Send(actors.Port(r.to), ReadDone{Bytes: r.bytes, Tag: r.tag}, at)
	}
}

func (l *Link) onInterrupt(ctx actors.Context, i Interrupt) {
	if from(ctx) == Host {
		ctx.Fatalf("ht: the host cannot interrupt itself")
	}
	done := l.occupy(ctx, up, 0)
	l.Stats.Irqs++
	ctx.Send(actors.Port(Host), i, done.Add(l.p.Latency).Sub(ctx.Now()))
}
