package squall

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/startjr/arctic"
	"github.com/seastar-sim/seastar/startjr/ieee1394"
	"github.com/seastar-sim/seastar/startjr/pci"
	"github.com/seastar-sim/seastar/startjr/wire"
	"github.com/stretchr/testify/require"
)

const ms = actors.Time(actors.Millisecond)

func msgs(out []actorstest.Sent) []actors.Msg {
	var m []actors.Msg
	for _, s := range out {
		m = append(m, s.Msg)
	}
	return m
}

func TestReceiveFIFOFullDiscardsOn1394AndHoldsOnArctic(t *testing.T) {
	p := DefaultParams()
	p.FIFOBytes = 128
	pk := func() *wire.Packet { return &wire.Packet{Src: 1, Dst: 0, Bytes: 96} }
	h, _ := actorstest.NewHarness("sim", New(p, 0, nil), 1)
	first := pk()
	h.Inject(0, PortNet0, first)
	h.Inject(1, PortNet0, pk())
	out := msgs(h.Run(ms))
	require.Equal(t, []actors.Msg{sent(first), Overflow{Prio: wire.Low}}, out, "1394: the second is discarded")

	ap := arctic.DefaultParams()
	s := New(p, 0, &ap)
	h, _ = actorstest.NewHarness("sim", s, 1)
	second := pk()
	h.Inject(0, PortNet0, first)
	h.Inject(1, PortNet0, second)
	require.Len(t, h.Run(ms), 1, "Arctic: the second waits in the fabric")
	require.EqualValues(t, 1, s.Stats.Held)
	h.Inject(2, PortCard, NewPop(wire.Low, 96))
	require.Equal(t, []actors.Msg{sent(second)}, msgs(h.Run(ms)))
}

// body is a packet's content that counts the PLM's Lost calls.
type body struct{ lost int }

func (b *body) Lost()          { b.lost++ }
func (b *body) String() string { return "body" }

// A packet the PLM discards tells its content, so that the firmware can recycle it; an
// accepted one does not.
func TestDiscardedPacketIsLost(t *testing.T) {
	p := DefaultParams()
	p.FIFOBytes = 128
	kept, gone := &body{}, &body{}
	h, _ := actorstest.NewHarness("sim", New(p, 0, nil), 1)
	h.Inject(0, PortNet0, &wire.Packet{Src: 1, Dst: 0, Bytes: 96, Body: kept})
	h.Inject(1, PortNet0, &wire.Packet{Src: 1, Dst: 0, Bytes: 96, Body: gone})
	h.Run(ms)
	require.Equal(t, 0, kept.lost, "accepted")
	require.Equal(t, 1, gone.lost, "discarded")
}

func TestTransmitFreesInOrder(t *testing.T) {
	h, _ := actorstest.NewHarness("sim", New(DefaultParams(), 0, nil), 1)
	hi := &wire.Packet{Src: 0, Dst: 1, Prio: wire.High, Bytes: 8}
	h.Inject(0, PortCard, &Transmit{Packet: &wire.Packet{Src: 0, Dst: 1, Bytes: 96}})
	h.Inject(0, PortCard, &Transmit{Packet: hi})
	out := h.Run(ms)
	require.Equal(t, PortNet0, out[0].Port, "payload on the low-priority bus")
	require.Equal(t, PortNet1, out[1].Port, "acknowledgements on the high-priority bus")
	h.Inject(10, PortNet0, ieee1394.Sent{Prio: wire.Low})
	require.Equal(t, []actors.Msg{txFrees.New(TxFree{Prio: wire.Low, Bytes: 96})}, msgs(h.Run(ms)), "a recycled notice")
}

func TestACDHitsMissesAndReplacesLRU(t *testing.T) {
	p := DefaultParams()
	h, _ := actorstest.NewHarness("sim", New(p, 0, nil), 1)
	line := uint64(p.LineBytes)
	set := uint64(p.Sets()) * line // addresses one set apart map to the same set
	a, b, c := uint64(0x1000_0000), 0x1000_0000+set, 0x1000_0000+2*set
	read := func(addr, tag uint64) []actors.Msg {
		h.Inject(h.Now(), PortACD, &pci.TargetRead{Addr: addr, Tag: tag})
		return msgs(h.Run(h.Now() + ms))
	}
	require.Equal(t, []actors.Msg{ACDMiss{Addr: a}}, read(a, 1))
	h.Inject(h.Now(), PortCard, &Fill{Addr: a})
	require.Equal(t, []actors.Msg{pci.NewTargetData(1)}, msgs(h.Run(h.Now()+ms)), "the retried load completes")
	require.Equal(t, []actors.Msg{pci.NewTargetData(2)}, read(a+4, 2), "a hit")
	for i, addr := range []uint64{b, c} { // two more lines in the same two-way set
		read(addr, uint64(10+i))
		h.Inject(h.Now(), PortCard, &Fill{Addr: addr})
		h.Run(h.Now() + ms)
	}
	require.Equal(t, []actors.Msg{ACDMiss{Addr: a}}, read(a, 3), "the least recently used line was replaced")
}

// sent is the Arrived the SIM sends for pk: a recycled one.
func sent(pk *wire.Packet) *Arrived { return arrivals.New(Arrived{Packet: pk}) }

func TestSIMRecyclesTransmitsAndPops(t *testing.T) {
	h, _ := actorstest.NewHarness("sim", New(DefaultParams(), 0, nil), 1)
	pk := &wire.Packet{Src: 0, Dst: 1, Bytes: 96}
	tx := NewTransmit(pk)
	h.Inject(0, PortCard, tx)
	out := h.Run(ms)
	require.Same(t, pk, out[0].Msg, "the packet goes out")
	require.Equal(t, Transmit{}, *tx, "the transmit is released (zeroed)")
	in := &wire.Packet{Src: 1, Dst: 0, Bytes: 64}
	h.Inject(h.Now(), PortNet0, in)
	h.Run(h.Now() + ms)
	pop := NewPop(wire.Low, 64)
	h.Inject(h.Now(), PortCard, pop)
	h.Run(h.Now() + ms)
	require.Equal(t, Pop{}, *pop)
}
