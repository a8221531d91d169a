package matchunit

import (
	"testing"

	"github.com/seastar-sim/seastar/actors"
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
