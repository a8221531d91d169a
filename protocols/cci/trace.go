package cci

import (
	"strconv"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Tracing: every CCI message on the wire (a send, an RMA transfer, a read response, a
// NIC-generated answer) is one trace whose id is the message id (Wire.ID, unique per
// node). The firmware that builds the message emits the root span "cci/TYPE" with its
// attributes and the handler's spans; the hardware blocks find the message through
// actors.Traced (Wire and the completion queue entries that carry one); the receiving
// library reports its processing of the completion entry.

// TraceID implements actors.Traced: the message id.
func (w *Wire) TraceID() uint64 { return w.ID }

// TraceID implements actors.Traced: the message the entry reports, if any.
func (e *CQEntry) TraceID() uint64 {
	if e.Wire == nil {
		return 0
	}
	return e.Wire.ID
}

// traceBuilt reports a message the firmware built: its root span and, for a library
// command (c != nil), the time the command waited in the queue for the main loop
// (ppc/mailbox) and the handler until the message was queued for transmission
// (ppc/cci_command); for a NIC-generated message, the handler that built it
// (ppc/cci_answer).
func (f *Firmware) traceBuilt(x *ppc.Exec, w *Wire, c *Command, cause uint64) {
	t := x.Tracer()
	if t == nil || !t.Sampled(w.ID) {
		return
	}
	attrs := []actors.Attr{
		actors.StrAttr("cci.type", w.Type.String()),
		actors.IntAttr("src.node", int64(w.Src)),
		actors.IntAttr("dst.node", int64(w.Dst)),
		actors.IntAttr("dst.endpoint", int64(w.DstEP)),
		actors.IntAttr("size_bytes", w.Len),
		actors.IntAttr("cci.conn", int64(w.H.Conn)),
		actors.IntAttr("cci.seq", int64(w.H.Seq)),
	}
	if w.Status != OK {
		attrs = append(attrs, actors.StrAttr("cci.status", w.Status.String()))
	}
	start := x.Started()
	if c != nil {
		start = x.Queued()
		attrs = append(attrs, actors.IntAttr("src.endpoint", int64(c.EP)),
			actors.StrAttr("cci.cookie", strconv.FormatUint(c.Cookie, 10)))
		t.Span(actors.Span{Trace: w.ID, Name: "ppc/mailbox", Actor: x.Self(), Start: x.Queued(), End: x.Started(),
			Attrs: []actors.Attr{actors.StrAttr("command", c.Kind.String())}})
		t.Span(actors.Span{Trace: w.ID, Name: "ppc/cci_command", Actor: x.Self(), Start: x.Started(), End: x.Now(),
			Attrs: []actors.Attr{actors.IntAttr("size_bytes", w.Len)}})
	} else {
		t.Span(actors.Span{Trace: w.ID, Name: "ppc/cci_answer", Actor: x.Self(), Start: x.Started(), End: x.Now(),
			Attrs: []actors.Attr{actors.StrAttr("cci.type", w.Type.String())}})
	}
	t.Span(actors.Span{Trace: w.ID, Name: "cci/" + w.Type.String(), Actor: x.Self(), Start: start, End: x.Now(),
		Root: true, Attrs: attrs, Cause: cause})
}

// traceArrived reports the receiving firmware's handling of a message's first packet
// (ppc/rx_header: validation, CAM entry or discard, answers); data is the packet's.
func (f *Firmware) traceArrived(x *ppc.Exec, data any) {
	t := x.Tracer()
	if t == nil {
		return
	}
	w, ok := data.(*Wire)
	if !ok || !t.Sampled(w.ID) {
		return
	}
	t.Span(actors.Span{Trace: w.ID, Name: "ppc/rx_header", Actor: x.Self(), Start: x.Started(), End: x.Now(),
		Attrs: []actors.Attr{actors.IntAttr("src", int64(w.Src)), actors.StrAttr("cci.type", w.Type.String())}})
}

// traceReceived reports the library's processing of a completion entry that carries a
// message (host/cci_recv): validation and delivery or rejection.
func (ep *Endpoint) traceReceived(e *CQEntry, start actors.Time) {
	t := ep.p.Tracer()
	if t == nil || e.Wire == nil || !t.Sampled(e.Wire.ID) {
		return
	}
	t.Span(actors.Span{Trace: e.Wire.ID, Name: "host/cci_recv", Actor: ep.p.Self(), Start: start, End: ep.p.Now(),
		Attrs: []actors.Attr{actors.IntAttr("endpoint", int64(ep.ID)), actors.StrAttr("cci.type", e.Wire.Type.String())}})
}

// Firmware trace ring (Pedretti & Hudson 2005 s.3.3, ppc.trace_enabled): like the
// Portals firmware's, a point when the main loop dispatches an event (its code as the
// value) and one at the end of its handler (the task or command it worked on).

// traceNames are the handlers' function names, by event code.
var traceNames = [...]string{"", "cci_command", "cci_rx_header", "cci_rx_done", "cci_tx_done", "cci_tx_retired", "cci_cam_stall", "cci_cam_swapped"}

// traceEvent numbers the events the firmware handles (the value of the dispatch point).
func traceEvent(ev actors.Msg) uint8 {
	switch ev.(type) {
	case *Command:
		return 1
	case rxdma.SOM:
		return 2
	case *rxdma.Done:
		return 3
	case *txdma.Done:
		return 4
	case *txdma.Retired:
		return 5
	case *cam.Stalled:
		return 6
	case cam.Swapped:
		return 7
	}
	return 0
}

// traceValue is the value of a handler's end point: the task of a DMA completion, the
// kind of a command, 255 otherwise.
func traceValue(ev actors.Msg) uint8 {
	switch ev := ev.(type) {
	case *Command:
		return uint8(ev.Kind)
	case *rxdma.Done:
		return uint8(ev.Tag)
	case *txdma.Done:
		return uint8(ev.Tag)
	}
	return 255
}
