package cam

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CAM swapping (Dillow & Atchley 2011 s.IV.B): with every entry taken, the RX pipeline
// stalls on a source without one; a Swap rebinds an entry to that source in one
// operation, the stalled lookup is granted, and the entry's old source and its commands
// not yet handed out come back to the PPC, in order, to be restored later.
func TestSwapRebindsAFullCAM(t *testing.T) {
	p := DefaultParams()
	p.Entries, p.QueueDepth = 1, 3
	b := NewBlock(p)
	h, _ := actorstest.NewHarness("cam", b, 1)
	h.Inject(0, PortPPC, SetEntry{Entry: 0, Src: 1})
	for i := range 3 {
		h.Inject(0, PortPPC, PushCommand{Entry: 0, Cmd: Command{Bytes: int64(10 + i), Tag: uint64(i)}})
	}
	h.Inject(1, PortRXDMA, Lookup{Src: 1}) // node 1's first command goes to the engine
	h.Inject(2, PortRXDMA, Lookup{Src: 9})
	h.Inject(3, PortPPC, Swap{Entry: 0, Src: 9, Cmds: []Command{{Bytes: 99, Tag: 7}}})
	out := h.Run(actors.MaxTime)
	var got []actors.Msg
	for _, s := range out {
		got = append(got, s.Msg)
	}
	assert.Equal(t, []actors.Msg{
		NewGrant(1, Command{Bytes: 10, Tag: 0}),
		NewStalled(9, true),
		Swapped{Entry: 0, Src: 1, Cmds: []Command{{Bytes: 11, Tag: 1}, {Bytes: 12, Tag: 2}}},
		NewGrant(9, Command{Bytes: 99, Tag: 7}),
	}, got)
	_, ok := b.Table().Lookup(1)
	assert.False(t, ok, "the old source no longer matches")
	i, ok := b.Table().Lookup(9)
	assert.True(t, ok)
	assert.Equal(t, 0, i)
	assert.Equal(t, int64(1), b.Stats.Swaps)
}

func TestSwapErrors(t *testing.T) {
	tb := NewTable(2, 2)
	_, _, err := tb.Swap(0, 5, nil)
	assert.ErrorContains(t, err, "swap of unused entry 0")
	require.NoError(t, tb.Set(0, 1))
	require.NoError(t, tb.Set(1, 2))
	_, _, err = tb.Swap(0, 2, nil)
	assert.ErrorContains(t, err, "node 2 already has entry 1")
	_, _, err = tb.Swap(0, 3, make([]Command, 3))
	assert.ErrorContains(t, err, "deeper than its queue")
	_, _, err = tb.Swap(5, 3, nil)
	assert.ErrorContains(t, err, "out of range")
	old, cmds, err := tb.Swap(0, router.NodeID(3), []Command{{Bytes: 1}})
	require.NoError(t, err)
	assert.Equal(t, router.NodeID(1), old)
	assert.Empty(t, cmds)
	assert.Equal(t, 1, tb.Queued(0))
	assert.Equal(t, 0, tb.Free())
}
