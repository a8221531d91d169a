package portals4

import (
	"testing"

	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/protocols/portals4/ptl4"
	"github.com/seastar-sim/seastar/router"
)

// Every field of a Portals 4 message survives crossing processes, including fields
// added to the types later (Populated fills them all).
func TestWireCodec(t *testing.T) {
	m := actorstest.Populated[ptl4.Msg]()
	w := actorstest.Populated[Wire]()
	w.Msg, w.RT = &m, nil
	actorstest.RoundTrip(t, &w)
	rt := Wire{Src: 1, Dst: 0, ID: 7, RT: &rtMsg{release: true, epoch: 3}}
	actorstest.RoundTrip(t, &rt)
	actorstest.RoundTrip(t, router.NewPacket(router.Packet{Src: 1, Dst: 2, Seq: 3, Data: &Wire{Msg: &m}}))
}
