package txdma

import "github.com/seastar-sim/seastar/actors"

// traceMessage reports the txdma/message span of a sampled message as its last packet
// enters the router: from the engine taking the message's first command (or the PIO
// command) until the injection link has carried the last packet.
func (e *Engine) traceMessage(ctx actors.Context, t actors.Tracer, op outPacket, pio bool) {
	p := op.p
	id := actors.SampledTrace(t, p.Data)
	if id == 0 {
		return
	}
	path := "dma"
	if pio {
		path = "pio"
	}
	t.Span(actors.Span{Trace: id, Name: "txdma/message", Actor: ctx.Self(), Start: op.start, End: e.inj.FreeAt(), Attrs: []actors.Attr{
		actors.IntAttr("dst", int64(p.Dst)),
		actors.IntAttr("packets", int64(p.Seq)+1),
		actors.StrAttr("path", path),
	}})
}
