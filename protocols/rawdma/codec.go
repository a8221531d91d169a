package rawdma

import (
	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/router"
)

// The descriptor every packet of a raw message carries (router.Packet.Data), so that a
// run can be split across processes; the packets of a message decoded from one batch
// share it (a shared codec).
func init() {
	actors.RegisterSharedCodec("rawdma.Msg", func(e *actors.Encoder, m *Msg) {
		e.Int(int64(m.Src))
		e.Int(int64(m.Dst))
		e.Int(m.Len)
		e.Uint(m.ID)
	}, func(d *actors.Decoder) *Msg {
		return &Msg{Src: router.NodeID(d.Int()), Dst: router.NodeID(d.Int()), Len: d.Int(), ID: d.Uint()}
	})
}
