package rawdma

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var serial = actors.Options{Engine: actors.Serial}

// Zero-byte latency grows linearly with distance, by the per-hop latency: the router
// pipeline, the cable, and one packet time on the link (store and forward).
func TestLatencyGrowsLinearlyWithHops(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Iters, cfg.Warmup = 10, 2
	var lat []actors.Duration
	for _, hops := range []int{1, 2, 4, 8} {
		cfg.Hops = hops
		r, err := PingPong(context.Background(), cfg, serial)
		require.NoError(t, err)
		lat = append(lat, r.Latency)
	}
	rp := cfg.Machine.Router
	perHop := rp.HopLatency() + rp.WireLatency + rp.PacketTime()
	assert.Equal(t, perHop, lat[1]-lat[0], "1 -> 2 hops")
	assert.Equal(t, 2*perHop, lat[2]-lat[1], "2 -> 4 hops")
	assert.Equal(t, 4*perHop, lat[3]-lat[2], "4 -> 8 hops")
	assert.Greater(t, lat[0], 500*actors.Nanosecond) // HT both ways, DMA, firmware, polling
}

// Streaming 1 MiB messages approaches the bottleneck of the path: the slowest of the
// HT payload rate, the link payload rate and the DMA engines' sustained rate with their
// per-packet overhead (redstorm: the DMA engines, ~1.03 GB/s).
func TestStreamApproachesBottleneck(t *testing.T) {
	for _, preset := range []string{"redstorm", "xt5"} {
		t.Run(preset, func(t *testing.T) {
			cfg := DefaultConfig()
			m, err := machine.Preset(preset)
			require.NoError(t, err)
			cfg.Machine = m
			cfg.Size, cfg.Iters = 1<<20, 3
			r, err := Stream(context.Background(), cfg, serial)
			require.NoError(t, err)
			pkt := float64(m.TXDMA.PacketPayload)
			dma := pkt / (float64(m.TXDMA.DMABandwidth.TransferTime(m.TXDMA.PacketPayload)+m.TXDMA.PacketOverhead) / 1e12)
			bottleneck := min(dma, float64(m.HT.PayloadBandwidth()), float64(m.Router.LinkBandwidth))
			assert.LessOrEqual(t, r.Bandwidth, bottleneck*1.0001)
			assert.GreaterOrEqual(t, r.Bandwidth, 0.95*bottleneck, "%.1f MB/s vs bottleneck %.1f MB/s", r.Bandwidth/1e6, bottleneck/1e6)
		})
	}
}

// Several senders to one receiver share it fairly.
func TestFanInIsFair(t *testing.T) {
	for _, senders := range []int{2, 8} {
		cfg := DefaultConfig()
		cfg.Senders, cfg.Size, cfg.Iters = senders, 8<<10, 24
		r, err := FanIn(context.Background(), cfg, actors.Options{Workers: 2})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, r.Fairness, 0.9, "senders %d shares %v", senders, r.Shares)
		assert.Equal(t, senders, r.Receiver.CAMPeak)
		assert.Equal(t, int64(senders*cfg.Iters), r.Receiver.Messages)
	}
}

// More senders than CAM entries: the CAM fills, the RX pipeline stalls, and the raw
// firmware, which has no overflow protocol, panics the node with a clear error rather
// than drop anything; the statistics up to the panic are still reported.
func TestCAMExhaustionPanicsTheNode(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Senders, cfg.Size, cfg.Iters = 300, 16<<10, 4
	r, err := FanIn(context.Background(), cfg, actors.Options{Workers: 2})
	var se *actors.SimError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "node[0,0,0].ppc", se.Actor)
	assert.Contains(t, se.Msg, "CAM exhausted: all 256 entries belong to messages in progress")
	require.NotNil(t, r)
	assert.Equal(t, 256, r.Receiver.CAMPeak)
	assert.Positive(t, r.Receiver.CAMStalls)
}

// The same benchmark gives the same digest under every engine and partitioning.
func TestDeterministicAcrossEngines(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Hops, cfg.Size, cfg.Iters, cfg.Warmup = 3, 300, 5, 1
	ref, err := PingPong(context.Background(), cfg, serial)
	require.NoError(t, err)
	for _, opts := range []actors.Options{
		{Workers: 1}, {Workers: 2}, {Workers: 4, Partitioner: actors.Node{}}, {Workers: 2, Partitioner: actors.Block{}},
	} {
		t.Run(fmt.Sprintf("%d-%v", opts.Workers, opts.Partitioner), func(t *testing.T) {
			r, err := PingPong(context.Background(), cfg, opts)
			require.NoError(t, err)
			assert.Equal(t, ref.Report.Digest, r.Report.Digest)
			assert.Equal(t, ref.Latency, r.Latency)
		})
	}
}
