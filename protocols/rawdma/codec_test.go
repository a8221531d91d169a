package rawdma

import (
	"testing"

	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/router"
)

func TestMsgCodec(t *testing.T) {
	m := actorstest.Populated[Msg]()
	actorstest.RoundTrip(t, &m)
	actorstest.RoundTrip(t, router.NewPacket(router.Packet{Src: 4, Dst: 1, SOM: true, Data: &m}))
}
