package rawdma

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
)

// TraceID implements actors.Traced: a raw message is traced as one message, its packets
// through the TX DMA engine, the routers and the RX DMA engine included. The id is the
// source node and the per-source sequence number (below 2^40), never 0.
func (m *Msg) TraceID() uint64 { return traceID(m.Src, m.ID) }

func traceID(src router.NodeID, id uint64) uint64 { return uint64(src+1)<<40 | id }

// traceSend reports a sampled message's root span and its host stage: the process's
// stores of the message's TX commands (commands of them), from start.
func (e *Endpoint) traceSend(m *Msg, start actors.Time, commands int) {
	t := e.p.Tracer()
	if t == nil || !t.Sampled(m.TraceID()) {
		return
	}
	id, end := m.TraceID(), e.p.Now()
	t.Span(actors.Span{Trace: id, Name: "rawdma/message", Actor: e.p.Self(), Start: start, End: end, Root: true,
		Attrs: []actors.Attr{actors.IntAttr("src.node", int64(m.Src)), actors.IntAttr("dst.node", int64(m.Dst)),
			actors.IntAttr("size_bytes", m.Len), actors.IntAttr("seq", int64(m.ID))}})
	t.Span(actors.Span{Trace: id, Name: "host/send", Actor: e.p.Self(), Start: start, End: end,
		Attrs: []actors.Attr{actors.IntAttr("commands", int64(commands))}})
}

// traceHandler reports the firmware handler that is working on message id, if sampled,
// as ppc/stage from the handler's start to now; completion marks the sender's side once
// the message has left.
func traceHandler(x *ppc.Exec, id uint64, stage string, completion bool) {
	if t := x.Tracer(); t != nil && t.Sampled(id) {
		t.Span(actors.Span{Trace: id, Name: "ppc/" + stage, Actor: x.Self(), Start: x.Started(), End: x.Now(), Completion: completion})
	}
}
