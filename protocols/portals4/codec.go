package portals4

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
	"github.com/seastar-sim/seastar/router"
)

// The descriptor every packet of a Portals 4 message carries (router.Packet.Data), so
// that a run can be split across processes: a decoded Wire has its own copy of the
// message and its bytes; the packets of a message decoded from one batch share it, as
// they do where they were sent (a shared codec).
func init() {
	actors.RegisterSharedCodec("portals4.Wire", func(e *actors.Encoder, w *Wire) {
		e.Int(int64(w.Src))
		e.Int(int64(w.Dst))
		e.Int(w.Inline)
		e.Int(w.Len)
		e.Uint(w.ID)
		e.Uint(w.Cause)
		e.Bool(w.RT != nil)
		if w.RT != nil {
			e.Bool(w.RT.release)
			e.Uint(w.RT.epoch)
			return
		}
		encodeMsg(e, w.Msg)
	}, func(d *actors.Decoder) *Wire {
		w := &Wire{Src: router.NodeID(d.Int()), Dst: router.NodeID(d.Int()), Inline: d.Int(), Len: d.Int(), ID: d.Uint(), Cause: d.Uint()}
		if d.Bool() {
			w.RT = &rtMsg{release: d.Bool(), epoch: d.Uint()}
			return w
		}
		w.Msg = decodeMsg(d)
		return w
	})
}

func encodeMsg(e *actors.Encoder, m *ptl4.Msg) {
	e.Byte(byte(m.Op))
	for _, v := range []uint64{uint64(m.Src.NID), uint64(m.Src.PID), uint64(m.Dst.NID), uint64(m.Dst.PID),
		uint64(m.SrcRank), uint64(m.NI), uint64(m.PT), m.Match, m.Offset, m.Length, m.HdrData, uint64(m.Ack),
		uint64(m.UID), uint64(m.AtomOp), uint64(m.Type), m.ReqID, uint64(m.NIFail), m.MLength, uint64(m.List)} {
		e.Uint(v)
	}
	e.Bool(m.Volatile)
	e.Blob(m.Operand)
	e.Blob(m.Data)
}

func decodeMsg(d *actors.Decoder) *ptl4.Msg {
	m := &ptl4.Msg{Op: ptl4.MsgOp(d.Byte())}
	m.Src = ptl4.ProcessID{NID: uint32(d.Uint()), PID: uint32(d.Uint())}
	m.Dst = ptl4.ProcessID{NID: uint32(d.Uint()), PID: uint32(d.Uint())}
	m.SrcRank, m.NI, m.PT = uint32(d.Uint()), int(d.Uint()), uint32(d.Uint())
	m.Match, m.Offset, m.Length, m.HdrData = d.Uint(), d.Uint(), d.Uint(), d.Uint()
	m.Ack, m.UID, m.AtomOp, m.Type = ptl4.AckReq(d.Uint()), uint32(d.Uint()), ptl4.Op(d.Uint()), ptl4.Datatype(d.Uint())
	m.ReqID, m.NIFail, m.MLength, m.List = d.Uint(), ptl4.NIFail(d.Uint()), d.Uint(), ptl4.List(d.Uint())
	m.Volatile = d.Bool()
	m.Operand, m.Data = d.Blob(), d.Blob()
	return m
}

func init() {
	actors.RegisterCodec("portals4.ibMsg", func(e *actors.Encoder, x *ibMsg) {
		e.Bool(x.indirect)
		e.Bool(x.rdma)
		encodeMsg(e, x.m)
	}, func(d *actors.Decoder) *ibMsg {
		x := &ibMsg{indirect: d.Bool(), rdma: d.Bool()}
		x.m = decodeMsg(d)
		return x
	})
}
