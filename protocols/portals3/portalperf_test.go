package portals3

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/require"
)

func TestPortalPerfSmoke(t *testing.T) {
	cfg := DefaultPerfConfig()
	cfg.Sizes = []int64{0, 8, 16, 1024, 100 << 10}
	cfg.Iters, cfg.Warmup = 5, 1
	for _, op := range []PerfOp{PerfPut, PerfGet, PerfBidir} {
		cfg.Op = op
		r, err := PortalPerf(context.Background(), cfg, actors.Options{Engine: actors.Serial})
		require.NoError(t, err)
		for _, row := range r.Rows {
			t.Logf("%s %7d B: %s  %.1f MB/s (%d iters)", row.Op, row.Size, row.Latency, row.Bandwidth/1e6, row.Iters)
		}
		t.Logf("events %d wall %s", r.Report.Events, r.Report.Wall)
	}
}
