package rxdma

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// traceSOM notes when a sampled message's first packet entered the RX FIFO.
func (e *Engine) traceSOM(ctx actors.Context, t actors.Tracer, p *router.Packet) {
	id := actors.SampledTrace(t, p.Data)
	if id == 0 {
		return
	}
	if e.traced == nil {
		e.traced = map[uint64]actors.Time{}
	}
	e.traced[id] = ctx.Now()
}

// traceEOM reports the rxdma/message span of a sampled message when its last packet
// leaves the FIFO: from the first packet's arrival until the data path is done with
// the last one.
func (e *Engine) traceEOM(ctx actors.Context, t actors.Tracer, p *router.Packet) {
	id := actors.SampledTrace(t, p.Data)
	if id == 0 {
		return
	}
	start, ok := e.traced[id]
	if !ok {
		return
	}
	delete(e.traced, id)
	t.Span(actors.Span{Trace: id, Name: "rxdma/message", Actor: ctx.Self(), Start: start, End: max(ctx.Now(), e.freeAt), Attrs: []actors.Attr{
		actors.IntAttr("src", int64(p.Src)),
		actors.IntAttr("packets", int64(p.Seq)+1),
	}})
}
