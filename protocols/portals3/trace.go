package portals3

import (
	"strconv"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Tracing: every Portals message (put, get, ack, reply) is one trace whose id is the
// message id (Wire.ID). The library emits the root span "portals/KIND" with the
// message's attributes and the host stages; the firmware its handlers; the hardware
// blocks find the message through actors.Traced, which Wire and the mailbox and event
// payloads that carry one implement.

// TraceID implements actors.Traced: the message id.
func (w *Wire) TraceID() uint64 { return w.ID }

// TraceID implements actors.Traced: the message the command sends.
func (c *TxCommand) TraceID() uint64 { return c.Wire.ID }

// TraceID implements actors.Traced: the message the event is about.
func (e *GenericEvent) TraceID() uint64 {
	if e.Wire == nil {
		return 0
	}
	return e.Wire.ID
}

// traced is where kernel code runs, seen by tracing.
type traced interface {
	Now() actors.Time
	Tracer() actors.Tracer
	Self() actors.ActorID
}

// tracerOf returns the tracing view of a kernel context, nil when tracing is off.
func tracerOf(c ctx) (traced, actors.Tracer) {
	var tc traced
	switch c := c.(type) {
	case procCtx:
		tc = c.Proc
	case *host.Kernel:
		tc = c
	default:
		return nil, nil
	}
	if t := tc.Tracer(); t != nil {
		return tc, t
	}
	return nil, nil
}

// traceStart is called when the library starts sending: it returns the tracer and the
// time, or nil when tracing is off.
func (s *Stack) traceStart(c ctx) (actors.Tracer, actors.Time) {
	tc, t := tracerOf(c)
	if t == nil {
		return nil, 0
	}
	return t, tc.Now()
}

// traceSend reports a message handed to the firmware: its root span, with the
// message's attributes, and the host/send stage (header built, DMA program computed,
// transmit command stored into the mailbox).
func (s *Stack) traceSend(c ctx, t actors.Tracer, start actors.Time, w *Wire, pending int, cause uint64) {
	if !t.Sampled(w.ID) {
		return
	}
	tc, _ := tracerOf(c)
	hdr := w.Hdr.(*ptl.Header)
	now := tc.Now()
	t.Span(actors.Span{Trace: w.ID, Name: "portals/" + w.Kind.String(), Actor: tc.Self(), Start: start, End: now, Root: true,
		Attrs: []actors.Attr{
			actors.StrAttr("portals.kind", w.Kind.String()),
			actors.IntAttr("src.node", int64(w.Src)),
			actors.IntAttr("src.pid", int64(hdr.Src.PID)),
			actors.IntAttr("dst.node", int64(w.Dst)),
			actors.IntAttr("dst.pid", int64(hdr.Dst.PID)),
			actors.IntAttr("size_bytes", w.Inline+w.Len),
			actors.IntAttr("inline_bytes", w.Inline),
			actors.IntAttr("portals.pt_index", int64(hdr.PtIndex)),
			actors.StrAttr("portals.match_bits", "0x"+strconv.FormatUint(uint64(hdr.MatchBits), 16)),
			actors.IntAttr("tx.pending", int64(pending)),
		}, Cause: cause})
	t.Span(actors.Span{Trace: w.ID, Name: "host/send", Actor: tc.Self(), Start: start, End: now, Attrs: []actors.Attr{
		actors.IntAttr("tx.pending", int64(pending)),
		actors.IntAttr("size_bytes", w.Inline+w.Len),
	}})
}

// traceCall reports a library call (PtlPut, PtlGet) that sent message id: from the
// call, through the bridge (trap or system call) and the send, to its return.
func (pr *Process) traceCall(t actors.Tracer, name string, start actors.Time, id uint64) {
	if !t.Sampled(id) {
		return
	}
	t.Span(actors.Span{Trace: id, Name: name, Actor: pr.p.Self(), Start: start, End: pr.p.Now(), Attrs: []actors.Attr{
		actors.StrAttr("process", pr.p.Name),
		actors.IntAttr("pid", int64(pr.ni.ID().PID)),
		actors.StrAttr("bridge", string(pr.bridge)),
	}})
}

// lastID is the id of the message the stack sent last.
func (s *Stack) lastID() uint64 { return uint64(s.node)<<40 | s.wireID }

// traceEvent reports the interrupt handler's work on a generic event of a sampled
// message: host/interrupt from the interrupt reaching the host until the handler gets
// to this event, then the processing stage (host/match for a new header, host/rx_done
// and host/tx_done for completions, which post the Portals events).
func (s *Stack) traceEvent(k *host.Kernel, t actors.Tracer, ev *GenericEvent, start actors.Time) {
	w := ev.Wire
	if w == nil || !t.Sampled(w.ID) {
		return
	}
	attrs := func() []actors.Attr {
		return []actors.Attr{actors.StrAttr("portals.event", ev.Kind.String()), actors.IntAttr("pending", int64(ev.Pending))}
	}
	done := ev.Kind == TxDone // the send's completion at its initiator
	t.Span(actors.Span{Trace: w.ID, Name: "host/interrupt", Actor: k.Self(), Start: k.Raised(), End: start, Attrs: attrs(), Completion: done})
	name := [...]string{NewHeader: "host/match", RxDone: "host/rx_done", TxDone: "host/tx_done"}[ev.Kind]
	a := attrs()
	if ev.Kind == NewHeader {
		hdr := w.Hdr.(*ptl.Header)
		a = append(a, actors.IntAttr("dst.pid", int64(hdr.Dst.PID)),
			actors.StrAttr("portals.match_bits", "0x"+strconv.FormatUint(uint64(hdr.MatchBits), 16)))
	}
	t.Span(actors.Span{Trace: w.ID, Name: name, Actor: k.Self(), Start: start, End: k.Now(), Attrs: a, Completion: done})
}

// Firmware tracing: spans for the handlers that work on a sampled message, and the
// trace ring points of Pedretti & Hudson 2005 s.3.3 (one at the main loop's dispatch,
// with the event's code as value, one at the handler's end, with the pending id).

// handlerNames are the stage and function names of the firmware's handlers, by event
// code.
var handlerNames = [...]string{"", "tx_command", "rx_command", "release", "rx_header", "rx_done", "tx_done", "tx_retired", "cam_stall",
	"accel_tx", "accel_table", "accel_release", "accel_init"}

// isCommand reports whether an event code is a mailbox command (stored by the host).
func isCommand(code uint8) bool { return code >= 1 && code <= 3 || code >= 9 }

// eventCode numbers the events the firmware handles (the trace_val of the dispatch).
func eventCode(ev actors.Msg) uint8 {
	switch ev.(type) {
	case *TxCommand:
		return 1
	case *RxCommand:
		return 2
	case ReleaseCommand:
		return 3
	case rxdma.SOM:
		return 4
	case *rxdma.Done:
		return 5
	case *txdma.Done:
		return 6
	case *txdma.Retired:
		return 7
	case *cam.Stalled:
		return 8
	case *AccelTx:
		return 9
	case *AccelTable:
		return 10
	case *AccelRelease:
		return 11
	case *AccelInit:
		return 12
	}
	return 0
}

// traceBegin runs before a handler: the dispatch trace point, and the message the
// handler works on if it is sampled (nil otherwise).
func (f *Firmware) traceBegin(x *ppc.Exec, ev actors.Msg) *Wire {
	code := eventCode(ev)
	if x.Tracing() {
		x.TraceDispatch(code)
	}
	t := x.Tracer()
	if t == nil {
		return nil
	}
	var w *Wire
	pend := func(id int) *Wire {
		if id >= 0 && id < f.pend.Len() {
			return f.pend.At(id).wire
		}
		return nil
	}
	switch ev := ev.(type) {
	case *TxCommand:
		w = ev.Wire
	case *AccelTx:
		w = ev.Wire
	case *RxCommand:
		w = pend(ev.Pending)
	case ReleaseCommand:
		w = pend(ev.Pending)
	case *AccelRelease:
		w = pend(ev.Pending)
	case rxdma.SOM:
		w, _ = ev.Packet.Data.(*Wire)
	case *rxdma.Done:
		w = pend(int(ev.Tag))
	case *txdma.Done:
		w = pend(int(ev.Tag))
	}
	if w == nil || !t.Sampled(w.ID) {
		return nil
	}
	return w
}

// traceEnd runs after a handler: the handler's trace point and, for a sampled message,
// the ppc/mailbox span of a mailbox command (stored by the host until the main loop
// read it) and the handler's span.
func (f *Firmware) traceEnd(x *ppc.Exec, ev actors.Msg, w *Wire) {
	code := eventCode(ev)
	pending := -1
	switch ev := ev.(type) {
	case *TxCommand:
		pending = ev.Pending
	case *AccelTx:
		pending = ev.Pending
	case *AccelRelease:
		pending = ev.Pending
	case *RxCommand:
		pending = ev.Pending
	case ReleaseCommand:
		pending = ev.Pending
	case *rxdma.Done:
		pending = int(ev.Tag)
	case *txdma.Done:
		pending = int(ev.Tag)
	}
	if x.Tracing() && code != 0 {
		x.TraceHandler(handlerNames[code], uint8(pending))
	}
	if w == nil {
		return
	}
	t := x.Tracer()
	if isCommand(code) {
		t.Span(actors.Span{Trace: w.ID, Name: "ppc/mailbox", Actor: x.Self(), Start: x.Queued(), End: x.Started(),
			Attrs: []actors.Attr{actors.StrAttr("command", handlerNames[code])}})
	}
	attrs := []actors.Attr{actors.IntAttr("pending", int64(pending))}
	if code == 4 {
		attrs = append(attrs, actors.IntAttr("src", int64(w.Src)), actors.IntAttr("inline_bytes", w.Inline))
	}
	t.Span(actors.Span{Trace: w.ID, Name: "ppc/" + handlerNames[code], Actor: x.Self(), Start: x.Started(), End: x.Now(), Attrs: attrs,
		Completion: handlerNames[code] == "tx_done"})
}

// traceFirmwareRoot reports the root span of a message the accelerated firmware
// originates (a reply it serves, an ack it sends), answering message cause.
func (f *Firmware) traceFirmwareRoot(x *ppc.Exec, w *Wire, cause uint64) {
	t := x.Tracer()
	if t == nil || !t.Sampled(w.ID) {
		return
	}
	hdr := w.Hdr.(*ptl.Header)
	t.Span(actors.Span{Trace: w.ID, Name: "portals/" + w.Kind.String(), Actor: x.Self(), Start: x.Started(), End: x.Now(),
		Root: true, Cause: cause, Attrs: []actors.Attr{
			actors.StrAttr("portals.kind", w.Kind.String()),
			actors.IntAttr("src.node", int64(w.Src)),
			actors.IntAttr("dst.node", int64(w.Dst)),
			actors.IntAttr("dst.pid", int64(hdr.Dst.PID)),
			actors.IntAttr("size_bytes", w.Inline+w.Len),
			actors.IntAttr("inline_bytes", w.Inline),
		}})
}
