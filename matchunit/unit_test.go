package matchunit

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/stretchr/testify/require"
)

func TestBusyComparesOnChipAndFetchesTheRest(t *testing.T) {
	p := DefaultParams() // 500 MHz, 256 on chip, 4 per cycle, 20 ns a fetch
	require.Equal(t, 2*actors.Nanosecond, p.Busy(0), "a header takes a cycle even with nothing to compare")
	require.Equal(t, 2*actors.Nanosecond, p.Busy(4))
	require.Equal(t, 4*actors.Nanosecond, p.Busy(5))
	require.Equal(t, 128*actors.Nanosecond, p.Busy(256))
	require.Equal(t, 128*actors.Nanosecond+10*20*actors.Nanosecond, p.Busy(266), "ten entries past the chip are fetched")
}

func TestValidateNamesTheKey(t *testing.T) {
	p := DefaultParams()
	p.Compares = 0
	require.ErrorContains(t, p.Validate(), "compares_per_cycle")
	p = DefaultParams()
	p.Fetch = -1
	require.ErrorContains(t, p.Validate(), "fetch")
}

// The unit takes a request recycled or by value, and answers with a recycled result
// carrying its tag when the compare array has walked it; a request it has read is
// recycled.
func TestUnitAnswersRecycledRequests(t *testing.T) {
	p := DefaultParams()
	u := New(p)
	ctx := actorstest.New("matchunit", 1)
	req := NewRequest(Request{Tag: 7, Walk: 4})
	sent := ctx.Deliver(u, 0, PortPPC, req)
	require.Len(t, sent, 1)
	res, ok := sent[0].Msg.(*Result)
	require.True(t, ok, "got %T", sent[0].Msg)
	require.Equal(t, uint64(7), res.Tag)
	require.Equal(t, p.Busy(4)+p.Clock.Cycles(int64(p.Pipeline)), sent[0].Delay)
	require.Zero(t, req.Tag, "the request was recycled once read")
	res.Release()

	sent = ctx.Deliver(u, 0, PortPPC, Request{Tag: 8, Walk: 4})
	require.Len(t, sent, 1)
	require.Equal(t, uint64(8), sent[0].Msg.(*Result).Tag)
	require.Equal(t, 2*p.Busy(4)+p.Clock.Cycles(int64(p.Pipeline)), sent[0].Delay, "behind the first walk")
	require.Equal(t, int64(2), u.Stats.Requests)
}
