package portals3

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3/ptl"
	"github.com/seastar-sim/seastar/router"
)

// The descriptor every packet of a Portals message carries (router.Packet.Data) and
// the header inside it, so that a run can be split across processes. A decoded Wire
// has its own copy of the header and of the payload bytes; the packets of a message
// decoded from one batch share it, as they do where they were sent (a shared codec).
func init() {
	actors.RegisterSharedCodec("portals3.Wire", func(e *actors.Encoder, w *Wire) {
		e.Byte(byte(w.Kind))
		e.Int(int64(w.Src))
		e.Int(int64(w.Dst))
		if h, ok := w.Hdr.(*ptl.Header); ok && h != nil {
			e.Bool(true) // the header, into the decoded wire's own storage
			encodeHeader(e, h)
		} else {
			e.Bool(false)
			e.Value(w.Hdr)
		}
		e.Int(w.Inline)
		e.Int(w.Len)
		e.Uint(w.ID)
		e.Blob(w.Data)
		e.Uint(uint64(w.Seq))
		e.Bool(w.Nack)
		e.Bool(w.Resync)
	}, func(d *actors.Decoder) *Wire {
		w := &Wire{Kind: WireKind(d.Byte()), Src: router.NodeID(d.Int()), Dst: router.NodeID(d.Int())}
		if d.Bool() {
			decodeHeaderInto(d, &w.hdr)
			w.Hdr = &w.hdr
		} else {
			w.Hdr = d.Value()
		}
		w.Inline, w.Len, w.ID, w.Data = d.Int(), d.Int(), d.Uint(), d.Blob()
		w.Seq, w.Nack, w.Resync = uint32(d.Uint()), d.Bool(), d.Bool()
		return w
	})
	actors.RegisterCodec("portals3.ptl.Header", encodeHeader, decodeHeader)
}

func encodeHeader(e *actors.Encoder, h *ptl.Header) {
	e.Byte(byte(h.Op))
	e.Uint(uint64(h.Src.NID))
	e.Uint(uint64(h.Src.PID))
	e.Uint(uint64(h.SrcJID))
	e.Uint(uint64(h.SrcUID))
	e.Uint(uint64(h.Dst.NID))
	e.Uint(uint64(h.Dst.PID))
	e.Uint(uint64(h.PtIndex))
	e.Uint(uint64(h.MatchBits))
	e.Uint(h.RemoteOffset)
	e.Uint(h.LocalOffset)
	e.Uint(h.Length)
	e.Uint(h.MLength)
	e.Uint(uint64(h.HdrData))
	e.Bool(h.AckReq)
	e.Uint(uint64(h.MD))
	e.Uint(h.Link)
}

func decodeHeader(d *actors.Decoder) *ptl.Header {
	h := new(ptl.Header)
	decodeHeaderInto(d, h)
	return h
}

func decodeHeaderInto(d *actors.Decoder, h *ptl.Header) {
	h.Op = ptl.Op(d.Byte())
	h.Src = ptl.ProcessID{NID: ptl.NID(d.Uint()), PID: ptl.PID(d.Uint())}
	h.SrcJID, h.SrcUID = ptl.JID(d.Uint()), ptl.UID(d.Uint())
	h.Dst = ptl.ProcessID{NID: ptl.NID(d.Uint()), PID: ptl.PID(d.Uint())}
	h.PtIndex, h.MatchBits = ptl.PtIndex(d.Uint()), ptl.MatchBits(d.Uint())
	h.RemoteOffset, h.LocalOffset, h.Length, h.MLength = d.Uint(), d.Uint(), d.Uint(), d.Uint()
	h.HdrData, h.AckReq = ptl.HdrData(d.Uint()), d.Bool()
	h.MD, h.Link = ptl.MDHandle(d.Uint()), d.Uint()
}
