package rawdma

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/clustertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A raw DMA benchmark split across two processes along torus slabs gives the same
// digest, events and results, in both processes, as the single-process run.
func TestSplitAcrossProcessesGivesTheSameResults(t *testing.T) {
	cases := []struct {
		name string
		run  func(context.Context, Config, actors.Options) (*Result, error)
		cfg  func(*Config)
	}{
		{"pingpong", PingPong, func(c *Config) { c.Hops, c.Size, c.Iters, c.Warmup = 3, 1024, 4, 1 }},
		{"stream", Stream, func(c *Config) { c.Hops, c.Size, c.Iters = 1, 4096, 6 }},
		{"fanin", FanIn, func(c *Config) { c.Senders, c.Size, c.Iters = 6, 512, 3 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.cfg(&cfg)
			ref, err := tc.run(context.Background(), cfg, actors.Options{Engine: actors.Serial, Seed: 3})
			require.NoError(t, err)
			for _, w := range []int{1, 2} {
				res := make([]*Result, 2)
				opts := actors.Options{Seed: 3, Workers: w, Partitioner: actors.Slab{}}
				errs := clustertest.InProcesses(t, 2, opts, func(proc int, o actors.Options) error {
					r, err := tc.run(context.Background(), cfg, o)
					res[proc] = r
					return err
				})
				for p := range 2 {
					require.NoError(t, errs[p], "process %d", p)
					msg := fmt.Sprintf("%d workers per process, process %d", w, p)
					got := res[p]
					assert.Equal(t, 2, got.Report.Processes, msg)
					assert.Equal(t, ref.Report.Digest, got.Report.Digest, msg)
					assert.Equal(t, ref.Report.Events, got.Report.Events, msg)
					assert.Equal(t, ref.Report.SimTime, got.Report.SimTime, msg)
					r, g := *ref, *got
					r.Report, g.Report = nil, nil
					assert.Equal(t, r, g, msg)
				}
			}
		})
	}
}
