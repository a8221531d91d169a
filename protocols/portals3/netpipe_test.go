package portals3

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// NetPIPE's schedule: the increment doubles every other step, and sizes are perturbed
// by +-3 bytes once the increment exceeds 4 (NetPIPE 3.x with its default -p 3).
func TestNetPIPESizes(t *testing.T) {
	got := NetPIPESizes(1, 131, 3)
	assert.Equal(t, []int64{1, 2, 3, 4, 6, 8, 12, 13, 16, 19, 21, 24, 27, 29, 32, 35, 45, 48, 51, 61, 64, 67,
		93, 96, 99, 125, 128, 131}, got)
	assert.Equal(t, []int64{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}, NetPIPESizes(1, 64, 0))
	assert.Nil(t, NetPIPESizes(0, 10, 3))
	assert.Nil(t, NetPIPESizes(10, 5, 3))
}

func netpipe(t *testing.T, tweak func(*NetPIPEConfig)) []NetPIPERow {
	t.Helper()
	cfg := DefaultNetPIPEConfig()
	cfg.Sizes, cfg.Iters, cfg.Min = []int64{8, 1024, 256 << 10}, 20, 2
	if tweak != nil {
		tweak(&cfg)
	}
	r, err := NetPIPE(context.Background(), cfg, serial)
	require.NoError(t, err)
	return r.Rows
}

// NetPIPE's ping-pong is PortalPerf's put ping-pong: the same one-way latency.
func TestNetPIPEPingPongIsPortalPerfPut(t *testing.T) {
	np := netpipe(t, nil)
	pp := perf(t, PerfPut, []int64{8, 1024, 256 << 10}, 3, nil)
	for i := range np {
		assert.Equal(t, pp[i].Latency, np[i].Latency, "size %d", np[i].Size)
	}
}

// Streaming keeps a window of puts in flight: small messages go out faster than a
// round trip each, and large ones reach the DMA-bound bandwidth. Asking for acks
// costs generic mode an interrupt per put at the sender, so the stream slows.
func TestNetPIPEStream(t *testing.T) {
	pp := netpipe(t, nil)
	// Enough messages per size that the window's start-up does not dominate.
	st := netpipe(t, func(c *NetPIPEConfig) { c.Mode, c.Iters = NetPIPEStream, 300 })
	acked := netpipe(t, func(c *NetPIPEConfig) { c.Mode, c.Iters, c.Ack = NetPIPEStream, 300, true })
	assert.Less(t, st[0].Latency, pp[0].Latency)
	assert.Greater(t, st[2].Bandwidth, 1.0e9)
	assert.Greater(t, acked[0].Latency, st[0].Latency)
	acc := netpipe(t, func(c *NetPIPEConfig) { c.Mode, c.Iters, c.Portals.Mode = NetPIPEStream, 300, "accelerated" })
	assert.Greater(t, acc[0].MsgRate, 2*st[0].MsgRate, "no interrupts: the receiver keeps up")
}

func TestNetPIPEDeterministic(t *testing.T) {
	cfg := DefaultNetPIPEConfig()
	cfg.Mode, cfg.Sizes, cfg.Iters, cfg.Min = NetPIPEStream, []int64{13, 5000}, 10, 2
	sameDigest(t, func(o actors.Options) *actors.Report {
		r, err := NetPIPE(context.Background(), cfg, o)
		require.NoError(t, err)
		return r.Report
	}, serial, actors.Options{Workers: 1}, actors.Options{Workers: 2})
}

// The bidirectional test: both ranks put at once; its bandwidth counts both
// directions, so it is about twice the one-way bandwidth for large messages (the link
// is faster than one node's DMA), and a small message's exchange costs less than a
// round trip. (It is not PortalPerf's bidirectional put to the picosecond: NetPIPE's
// per-round handshake leaves the ranks a half round trip apart, PortalPerf starts them
// together.)
func TestNetPIPEBidir(t *testing.T) {
	bi := netpipe(t, func(c *NetPIPEConfig) { c.Mode = NetPIPEBidir })
	uni := netpipe(t, nil)
	for i := range bi {
		assert.InDelta(t, 2*float64(bi[i].Size)/bi[i].Latency.Seconds(), bi[i].Bandwidth, 1e-6*bi[i].Bandwidth)
	}
	assert.Greater(t, bi[2].Bandwidth, 1.8*uni[2].Bandwidth)
	assert.Less(t, bi[0].Latency, 2*uni[0].Latency)
	_, err := ParseNetPIPEMode("bidir")
	assert.NoError(t, err)
}
