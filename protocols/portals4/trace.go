package portals4

import (
	"strconv"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/matchunit"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Tracing: every Portals 4 message (request, ack, reply, barrier message) is one trace
// whose id is its Wire.ID. The firmware that creates the message emits the root span
// "portals4/OP" with its attributes, and the spans of its handlers that work on it
// (ppc/mailbox and ppc/call for a library call that sent it, ppc/rx_header,
// ppc/rx_done, ppc/tx_done); the TX and RX DMA engines and the routers find the message
// through actors.Traced on the packets.

// TraceID implements actors.Traced: the message id.
func (w *Wire) TraceID() uint64 { return w.ID }

// handlers are the firmware's handlers by event code (handlerCode): the stage name of
// the spans of a handler that works on a message ("" for those that never do), and its
// function name in the firmware trace ring (Pedretti & Hudson 2005 s.3.3).
var handlers = [...]struct{ stage, fn string }{{}, {"call", "p4_call"}, {"barrier", "p4_barrier"}, {"send", "p4_send"},
	{"matched", "p4_matched"}, {"rx_header", "p4_rx_header"}, {"rx_done", "p4_rx_done"}, {"tx_done", "p4_tx_done"},
	{"", "p4_tx_retired"}, {"", "p4_cam_stall"}}

// handlerCode numbers the events the firmware handles (the value of the trace ring's
// dispatch point), 0 for none of them.
func handlerCode(ev actors.Msg) uint8 {
	switch ev.(type) {
	case *Call:
		return 1
	case *BarrierCall:
		return 2
	case *SendCmd:
		return 3
	case *matchunit.Result:
		return 4
	case rxdma.SOM:
		return 5
	case *rxdma.Done:
		return 6
	case *txdma.Done:
		return 7
	case *txdma.Retired:
		return 8
	case *cam.Stalled:
		return 9
	}
	return 0
}

// handlerName is the stage name of the firmware handler of ev.
func handlerName(ev actors.Msg) string { return handlers[handlerCode(ev)].stage }

// traceBegin returns the sampled message the handler of ev works on, if any, and
// starts collecting the messages the handler sends.
func (f *Firmware) traceBegin(t actors.Tracer, ev actors.Msg) *Wire {
	f.sent = f.sent[:0]
	var w *Wire
	switch ev := ev.(type) {
	case rxdma.SOM:
		w, _ = ev.Packet.Data.(*Wire)
	case *rxdma.Done:
		if src := f.srcs[ev.Src]; src != nil && src.q.Len() > 0 {
			w = (*src.q.Front()).w
		}
	case *txdma.Done:
		if f.txq.Len() > 0 {
			w = (*f.txq.Front()).w
		}
	}
	if w == nil || !t.Sampled(w.ID) {
		return nil
	}
	return w
}

// traceEnd emits the spans of a handler: its own on the message it worked on, and for
// every message it sent, the root span and the handler as that message's first stage
// (after ppc/mailbox, the wait of a library call in the mailbox).
func (f *Firmware) traceEnd(x *ppc.Exec, t actors.Tracer, ev actors.Msg, w *Wire) {
	name := "ppc/" + handlerName(ev)
	if w != nil {
		_, done := ev.(*txdma.Done) // the send's completion at its initiator
		t.Span(actors.Span{Trace: w.ID, Name: name, Actor: x.Self(), Start: x.Started(), End: x.Now(),
			Attrs: []actors.Attr{actors.IntAttr("src", int64(w.Src))}, Completion: done})
	}
	for _, s := range f.sent {
		if !t.Sampled(s.ID) {
			continue
		}
		t.Span(actors.Span{Trace: s.ID, Name: "portals4/" + s.kind(), Actor: x.Self(), Start: x.Started(), End: x.Now(),
			Root: true, Attrs: s.attrs(), Cause: s.Cause})
		if _, ok := ev.(*Call); ok || isSend(ev) {
			call := "send"
			if c, ok := ev.(*Call); ok {
				call = c.name()
			}
			t.Span(actors.Span{Trace: s.ID, Name: "ppc/mailbox", Actor: x.Self(), Start: x.Queued(), End: x.Started(),
				Attrs: []actors.Attr{actors.StrAttr("call", call)}})
		}
		t.Span(actors.Span{Trace: s.ID, Name: name, Actor: x.Self(), Start: x.Started(), End: x.Now()})
	}
	f.sent = f.sent[:0]
}

func (w *Wire) kind() string {
	if w.RT != nil {
		return "barrier"
	}
	return w.Msg.Op.String()
}

func (w *Wire) attrs() []actors.Attr {
	a := []actors.Attr{actors.IntAttr("src.node", int64(w.Src)), actors.IntAttr("dst.node", int64(w.Dst)),
		actors.IntAttr("size_bytes", w.Inline+w.Len), actors.IntAttr("inline_bytes", w.Inline)}
	if m := w.Msg; m != nil {
		a = append(a, actors.IntAttr("src.pid", int64(m.Src.PID)), actors.IntAttr("dst.pid", int64(m.Dst.PID)),
			actors.IntAttr("portals.pt_index", int64(m.PT)),
			actors.StrAttr("portals.match_bits", "0x"+strconv.FormatUint(m.Match, 16)),
			actors.IntAttr("portals.rlength", int64(m.Length)))
		if m.Op.Response() {
			a = append(a, actors.IntAttr("portals.mlength", int64(m.MLength)), actors.IntAttr("portals.ni_fail", int64(m.NIFail)))
		}
	}
	return a
}

func isSend(ev actors.Msg) bool {
	_, ok := ev.(*SendCmd)
	return ok
}
