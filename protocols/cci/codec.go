package cci

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// The message every packet of a CCI transfer carries (router.Packet.Data), so that a
// run can be split across processes. A decoded Wire has its own copies of the payload
// bytes and of the connection and RMA descriptors, shared by the packets of a transfer
// decoded from one batch (a shared codec); the NICs and libraries match answers by
// their header fields (connection, generation, sequence), never by the Wire's identity.
func init() {
	actors.RegisterSharedCodec("cci.Wire", func(e *actors.Encoder, w *Wire) {
		e.Byte(byte(w.Type))
		e.Uint(uint64(w.DstEP))
		e.Int(w.Len)
		e.Int(int64(w.Src))
		e.Int(int64(w.Dst))
		e.Byte(byte(w.Status))
		h := &w.H
		e.Uint(h.Nonce)
		e.Uint(uint64(h.Conn))
		e.Uint(uint64(h.Gen))
		e.Uint(uint64(h.Seq))
		e.Uint(uint64(h.SrcEP))
		e.Uint(uint64(h.SrcConn))
		e.Uint(uint64(h.SrcGen))
		e.Bool(h.Conn2 != nil)
		if c := h.Conn2; c != nil {
			e.Byte(byte(c.Attr))
			e.Uint(c.Nonce)
			e.Bool(c.Accept)
		}
		e.Bool(h.RMA != nil)
		if r := h.RMA; r != nil {
			e.Uint(uint64(r.Remote.Index))
			e.Uint(uint64(r.Remote.Key))
			e.Int(r.RemoteOff)
			e.Uint(uint64(r.Local.Index))
			e.Uint(uint64(r.Local.Key))
			e.Int(r.LocalOff)
			e.Int(r.Len)
		}
		e.Blob(w.Data)
		e.Uint(w.ID)
	}, func(d *actors.Decoder) *Wire {
		w := &Wire{Type: Type(d.Byte()), DstEP: uint16(d.Uint()), Len: d.Int(), Src: router.NodeID(d.Int()),
			Dst: router.NodeID(d.Int()), Status: Status(d.Byte())}
		h := &w.H
		h.Nonce, h.Conn, h.Gen, h.Seq = d.Uint(), uint32(d.Uint()), uint32(d.Uint()), uint32(d.Uint())
		h.SrcEP, h.SrcConn, h.SrcGen = uint16(d.Uint()), uint32(d.Uint()), uint32(d.Uint())
		if d.Bool() {
			h.Conn2 = &ConnInfo{Attr: Attr(d.Byte()), Nonce: d.Uint(), Accept: d.Bool()}
		}
		if d.Bool() {
			r := &RMAInfo{}
			r.Remote = Handle{Index: uint32(d.Uint()), Key: uint32(d.Uint())}
			r.RemoteOff = d.Int()
			r.Local = Handle{Index: uint32(d.Uint()), Key: uint32(d.Uint())}
			r.LocalOff, r.Len = d.Int(), d.Int()
			h.RMA = r
		}
		w.Data, w.ID = d.Blob(), d.Uint()
		return w
	})
}
