package i960

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/startjr/pci"
	"github.com/stretchr/testify/require"
)

type ev string

func (e ev) String() string { return string(e) }

// fw reads two words of host memory for "load", then stores the result; it logs when
// each part ran.
type fw struct{ log []string }

func (f *fw) Polled(reg int) bool { return reg == 0 }

func (f *fw) Handle(x *Exec, e actors.Msg) {
	f.log = append(f.log, e.(ev).String())
	switch e {
	case ev("load"):
		x.Instr(10)
		x.HostRead(2, ev("loaded"))
	case ev("loaded"):
		x.Instr(10)
		x.HostWrite(1, false, ev("result"))
	}
}

func TestHostLoadStallsTheHandler(t *testing.T) {
	p := DefaultParams()
	f := &fw{}
	c := New(p, pci.DefaultParams(), f)
	h, _ := actorstest.NewHarness("card", c, 1)
	h.Inject(0, PortPCI, &MailboxStore{Reg: 0, Value: 1, Event: ev("load")})
	h.Inject(0, PortPCI, &MailboxStore{Reg: 3, Value: 7, Event: ev("never")})
	out := h.Run(actors.Time(actors.Millisecond))
	require.Len(t, out, 1)
	cyc := func(n int) actors.Time { return actors.Time(p.Clock.Cycles(int64(n))) }
	require.Equal(t, pci.NewMasterRead(pci.MasterRead{Words: 2, Tag: 1}), out[0].Msg)
	require.Equal(t, cyc(p.PollCycles+10+p.BridgeCycles), out[0].At, "the load leaves after the poll and the handler's work")
	require.EqualValues(t, 7, c.Mailbox(3), "an unpolled register only changes")
	h.Inject(out[0].At+1000, PortPCI, &pci.MasterReadDone{Tag: 1})
	h.Inject(out[0].At+500, PortSquall, ev("meanwhile")) // waits: the i960 is stalled
	out = h.Run(actors.Time(actors.Millisecond))
	require.Equal(t, []string{"load", "loaded", "meanwhile"}, f.log, "the continuation runs before the queued event")
	require.Equal(t, pci.NewMasterWrite(pci.MasterWrite{Words: 1, Payload: ev("result")}), out[0].Msg)
	require.EqualValues(t, 2, c.Stats.Handled, "a handler and its continuation count once, then the queued event")
	require.Equal(t, actors.Duration(1000), c.Extra.Stall)
}

func TestReadDoneWithoutALoadIsFatal(t *testing.T) {
	h, _ := actorstest.NewHarness("card", New(DefaultParams(), pci.DefaultParams(), &fw{}), 1)
	h.Inject(0, PortPCI, &pci.MasterReadDone{Tag: 9})
	require.Contains(t, actorstest.Catch(func() { h.Run(actors.Time(actors.Millisecond)) }), "none is outstanding")
}

func TestCardRecyclesStores(t *testing.T) {
	f := &fw{}
	c := New(DefaultParams(), pci.DefaultParams(), f)
	h, _ := actorstest.NewHarness("card", c, 1)
	st := NewMailboxStore(MailboxStore{Reg: 0, Value: 1, Event: ev("load")})
	h.Inject(0, PortPCI, st)
	h.Run(actors.Time(actors.Millisecond))
	require.Equal(t, MailboxStore{}, *st, "the store is released (zeroed) once taken")
	require.EqualValues(t, 1, c.Mailbox(0))
	require.Equal(t, []string{"load"}, f.log, "its event reached the firmware")
}
