package portals3

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/clustertest"
)

// PortalPerf and NetPIPE split across two processes (a node each) give, in both
// processes, the digest and the rows of one process: the process of node 1 gets the
// rows rank 0 filled in (before, it found none and its session failed with "size 0
// did not complete", which a second simulation of the same run then reported).
func TestPairBenchmarksAcrossTwoProcesses(t *testing.T) {
	perf := DefaultPerfConfig()
	perf.Sizes, perf.Iters, perf.Warmup = []int64{0, 8192}, 6, 1
	np := DefaultNetPIPEConfig()
	np.Sizes, np.Iters, np.Min = []int64{8, 1024}, 3, 1
	cases := map[string]func(context.Context, actors.Options) (any, *actors.Report, error){
		"portalperf get": func(ctx context.Context, o actors.Options) (any, *actors.Report, error) {
			cfg := perf
			cfg.Op = PerfGet
			r, err := PortalPerf(ctx, cfg, o)
			if r == nil {
				return nil, nil, err
			}
			return r.Rows, r.Report, err
		},
		"portalperf put": func(ctx context.Context, o actors.Options) (any, *actors.Report, error) {
			r, err := PortalPerf(ctx, perf, o)
			if r == nil {
				return nil, nil, err
			}
			return r.Rows, r.Report, err
		},
		"netpipe": func(ctx context.Context, o actors.Options) (any, *actors.Report, error) {
			r, err := NetPIPE(ctx, np, o)
			if r == nil {
				return nil, nil, err
			}
			return r.Rows, r.Report, err
		},
	}
	for name, run := range cases {
		t.Run(name, func(t *testing.T) {
			refRows, ref, err := run(context.Background(), actors.Options{Workers: 1})
			require.NoError(t, err)
			rows := make([]any, 2)
			reps := make([]*actors.Report, 2)
			errs := clustertest.InProcesses(t, 2, actors.Options{Workers: 1, Partitioner: actors.Slab{}},
				func(proc int, o actors.Options) error {
					var err error
					rows[proc], reps[proc], err = run(context.Background(), o)
					return err
				})
			for p := range 2 {
				msg := fmt.Sprintf("process %d", p)
				require.NoError(t, errs[p], msg)
				assert.Equal(t, 2, reps[p].Processes, msg)
				assert.Equal(t, ref.Digest, reps[p].Digest, msg)
				assert.Equal(t, refRows, rows[p], msg)
			}
		})
	}
}
