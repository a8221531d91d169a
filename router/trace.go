package router

import (
	"strconv"

	"github.com/seastar-sim/seastar/actors"
)

// traceHop reports the router/hop span of a sampled message's head and tail packets
// as they leave a router: from entering its input buffer until the output link has
// carried the packet (end). Its "hops" attribute is the router-to-router links the
// packet crossed before this router (0 at the source router; at the destination, the
// path's hop count). Middle packets of long messages are not traced: they follow the
// head.
func (p *Port) traceHop(ctx actors.Context, t actors.Tracer, pk *Packet, end actors.Time) {
	if !pk.SOM && !pk.EOM {
		return
	}
	id := actors.SampledTrace(t, pk.Data)
	if id == 0 {
		return
	}
	which := "head"
	switch {
	case pk.SOM && pk.EOM:
		which = "only"
	case pk.EOM:
		which = "tail"
	}
	c := p.coords()
	t.Span(actors.Span{Trace: id, Name: "router/hop", Actor: ctx.Self(), Start: pk.Entered, End: end, Attrs: []actors.Attr{
		actors.StrAttr("router", strconv.Itoa(c[0])+","+strconv.Itoa(c[1])+","+strconv.Itoa(c[2])),
		actors.StrAttr("out", p.dir.String()),
		actors.IntAttr("hops", int64(pk.Hops)),
		actors.StrAttr("packet", which),
		actors.IntAttr("seq", int64(pk.Seq)),
		actors.IntAttr("vc", int64(pk.VC)),
	}})
}
