package pci

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/stretchr/testify/require"
)

type note string

func (n note) String() string { return string(n) }

func TestTransactionsSerializeAndCost(t *testing.T) {
	p := DefaultParams()
	clk := func(n int) actors.Time { return actors.Time(p.Clock.Cycles(int64(n))) }
	h, _ := actorstest.NewHarness("pci", New(p), 1)
	// A host store into a mailbox: arbitration, address, the card's latency, one data
	// phase, turnaround; the payload reaches the card when it ends.
	h.Inject(0, PortHost, &Write{Reg: 1, Bytes: 4, Payload: note("store")})
	out := h.Run(clk(100))
	require.Len(t, out, 1)
	require.Equal(t, PortCard, out[0].Port)
	require.Equal(t, clk(p.Arbitration+1+p.CardLatency+1+p.Turnaround), out[0].At)

	// Four single-word reads of host memory cost four transactions; a burst one.
	h, _ = actorstest.NewHarness("pci", New(p), 1)
	h.Inject(0, PortCard, &MasterRead{Words: 4, Tag: 1})
	single := h.Run(clk(1000))[0].At
	require.Equal(t, clk(p.Arbitration+4*(1+p.HostReadLatency+1+p.Turnaround)), single)
	h.Inject(single, PortCard, &MasterRead{Words: 4, Burst: true, Tag: 2})
	burst := h.Run(clk(2000))[0].At
	require.Equal(t, clk(p.Arbitration+1+p.HostReadLatency+4+p.Turnaround), burst-single)

	// Two requests at once: the second waits for the first (one bus).
	h, _ = actorstest.NewHarness("pci", New(p), 1)
	h.Inject(0, PortCard, &MasterRead{Words: 1, Tag: 1})
	h.Inject(0, PortCard, &MasterRead{Words: 1, Tag: 2})
	out = h.Run(clk(1000))
	require.Len(t, out, 2)
	require.Equal(t, out[0].At+clk(1+p.HostReadLatency+1+p.Turnaround), out[1].At)
}

func TestHostReadsGoToRegistersOrTheACD(t *testing.T) {
	h, _ := actorstest.NewHarness("pci", New(DefaultParams()), 1)
	h.Inject(0, PortHost, &Read{Addr: 8, Tag: 1})
	h.Inject(0, PortHost, &Read{Addr: RegisterWindow + 64, Tag: 2})
	out := h.Run(actors.Time(actors.Millisecond))
	require.Equal(t, PortCard, out[0].Port, "a bridge register")
	require.Equal(t, PortACD, out[1].Port, "the shared region")
	require.Equal(t, uint64(2), out[1].Msg.(*TargetRead).Tag)
	h.Inject(h.Now(), PortACD, &TargetData{Tag: 2})
	out = h.Run(actors.Time(actors.Millisecond))
	require.Equal(t, PortHost, out[0].Port)
	require.Equal(t, uint64(2), out[0].Msg.(*ReadDone).ReadTag())
}

func TestBusRecyclesWhatItHandled(t *testing.T) {
	h, _ := actorstest.NewHarness("pci", New(DefaultParams()), 1)
	w := NewWrite(Write{Reg: 1, Bytes: 4, Payload: note("store")})
	r := NewMasterRead(MasterRead{Words: 2, Tag: 7})
	mw := NewMasterWrite(MasterWrite{Words: 3, Payload: note("data")})
	h.Inject(0, PortHost, w)
	h.Inject(0, PortCard, r)
	h.Inject(0, PortCard, mw)
	out := h.Run(actors.Time(actors.Millisecond))
	require.Len(t, out, 3)
	require.Equal(t, Write{}, *w, "released (zeroed) once its payload is on its way")
	require.Equal(t, MasterRead{}, *r)
	require.Equal(t, MasterWrite{}, *mw)

	require.Equal(t, []actors.Msg{note("store"), readDones.New(MasterReadDone{Tag: 7}), note("data")},
		[]actors.Msg{out[0].Msg, out[1].Msg, out[2].Msg}, "what they carried was delivered")
	done := out[1].Msg.(*MasterReadDone)
	done.Release()
	require.Equal(t, MasterReadDone{}, *done, "the card's release recycles the completion")
	lit := &MasterReadDone{Tag: 9}
	lit.Release()
	require.EqualValues(t, 9, lit.Tag, "a completion the bus did not make is left alone")

	// A host read and its target's answer: the bus recycles both, and what it sends
	// for them comes from pools its receivers give back to.
	rd, td := NewRead(8, 4, 9), NewTargetData(9)
	h.Inject(h.Now(), PortHost, rd)
	h.Inject(h.Now(), PortCard, td)
	out = h.Run(h.Now() + actors.Time(actors.Millisecond))
	require.Len(t, out, 2)
	require.Equal(t, Read{}, *rd)
	require.Equal(t, TargetData{}, *td)
	for _, o := range out {
		_, ok := o.Msg.(actors.Releaser)
		require.True(t, ok, "%s goes back to a pool", o.Msg)
	}
}
