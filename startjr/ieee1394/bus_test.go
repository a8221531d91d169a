package ieee1394

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/startjr/wire"
	"github.com/stretchr/testify/require"
)

func TestOnePacketAtATimeFairly(t *testing.T) {
	p := DefaultParams()
	h, _ := actorstest.NewHarness("bus", New(p, "bus", 3), 1)
	a1 := &wire.Packet{Src: 0, Dst: 2, Bytes: 96}
	a2 := &wire.Packet{Src: 0, Dst: 2, Bytes: 96}
	b := &wire.Packet{Src: 1, Dst: 2, Bytes: 96}
	h.Inject(0, 0, a1)
	h.Inject(0, 0, a2)
	h.Inject(0, 1, b)
	out := h.Run(actors.Time(actors.Millisecond))
	var got []*wire.Packet
	var at []actors.Time
	for _, s := range out {
		if pk, ok := s.Msg.(*wire.Packet); ok {
			require.Equal(t, actors.Port(2), s.Port)
			got, at = append(got, pk), append(at, s.At)
		}
	}
	require.Equal(t, []*wire.Packet{a1, b, a2}, got, "fair arbitration: node 1 goes before node 0's second packet")
	data := p.Arbitration + p.Rate.TransferTime(p.HeaderBytes+96+p.DataCRCBytes)
	require.Equal(t, actors.Time(data), at[0])
	gap := p.Occupancy(96, false) + p.SubactionGap
	require.Equal(t, at[0].Add(gap), at[1], "the next packet follows the acknowledgement and the subaction gap")
}

func TestBroadcastReachesEveryOtherNode(t *testing.T) {
	h, _ := actorstest.NewHarness("bus", New(DefaultParams(), "bus", 4), 1)
	h.Inject(0, 1, &wire.Packet{Src: 1, Dst: wire.Broadcast, Prio: wire.High, Bytes: 8})
	var ports []actors.Port
	for _, s := range h.Run(actors.Time(actors.Millisecond)) {
		if _, ok := s.Msg.(*wire.Packet); ok {
			ports = append(ports, s.Port)
		} else {
			require.Equal(t, Sent{Prio: wire.High}, s.Msg)
			require.Equal(t, actors.Port(1), s.Port)
		}
	}
	require.Equal(t, []actors.Port{0, 2, 3}, ports)
}

func TestBadDestinationIsFatal(t *testing.T) {
	h, _ := actorstest.NewHarness("bus", New(DefaultParams(), "bus", 2), 1)
	h.Inject(0, 0, &wire.Packet{Src: 0, Dst: 5, Bytes: 8})
	msg := actorstest.Catch(func() { h.Run(actors.Time(actors.Millisecond)) })
	require.Contains(t, msg, "packet for node 5")
}
