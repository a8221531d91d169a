package rawdma

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/require"
)

func TestSmoke(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Iters = 20
	for _, hops := range []int{1, 2, 4} {
		cfg.Hops = hops
		r, err := PingPong(context.Background(), cfg, actors.Options{Engine: actors.Serial})
		require.NoError(t, err)
		t.Logf("hops %d: one-way %s, events %d", hops, r.Latency, r.Report.Events)
	}
	cfg.Hops, cfg.Size, cfg.Iters = 1, 1<<20, 4
	r, err := Stream(context.Background(), cfg, actors.Options{Engine: actors.Serial})
	require.NoError(t, err)
	t.Logf("stream 1MiB: %.1f MB/s, events %d", r.Bandwidth/1e6, r.Report.Events)
}
