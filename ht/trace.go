package ht

import "github.com/seastar-sim/seastar/actors"

// traceWrite reports the ht/write span of a store whose payload belongs to a sampled
// message (a mailbox command going down, an event going up): from the store entering
// the link until the payload lands.
func (l *Link) traceWrite(ctx actors.Context, t actors.Tracer, w *Write, src Unit, landed actors.Time) {
	id := actors.SampledTrace(t, w.Payload)
	if id == 0 {
		return
	}
	t.Span(actors.Span{Trace: id, Name: "ht/write", Actor: ctx.Self(), Start: ctx.Now(), End: landed, Attrs: []actors.Attr{
		actors.StrAttr("from", src.String()),
		actors.StrAttr("to", w.To.String()),
		actors.IntAttr("bytes", int64(w.Bytes)),
	}})
}
