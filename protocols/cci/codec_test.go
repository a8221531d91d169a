package cci

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/actorstest"
	"github.com/seastar-sim/seastar/internal/clustertest"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every field of a CCI message survives crossing processes, including fields added to
// the types later (Populated fills them all), with and without its descriptors.
func TestWireCodec(t *testing.T) {
	w := actorstest.Populated[Wire]()
	require.NotNil(t, w.H.Conn2)
	require.NotNil(t, w.H.RMA)
	got := actorstest.RoundTrip(t, &w).(*Wire)
	assert.NotSame(t, w.H.RMA, got.H.RMA)
	w.H.Conn2, w.H.RMA, w.Data = nil, nil, nil
	actorstest.RoundTrip(t, &w)
	actorstest.RoundTrip(t, router.NewPacket(router.Packet{Src: 1, Dst: 2, SOM: true, Data: &Wire{Type: TypeAck, Src: 1}}))
}

// The benchmarks split across two processes (one node each) give the digest and the
// results of one process, in both processes: every connection type, ping-pong, a
// message stream and an RMA stream.
func TestAcrossTwoProcesses(t *testing.T) {
	type bench func(context.Context, BenchConfig, actors.Options) (*BenchResult, error)
	for _, c := range []struct {
		name string
		run  bench
		attr Attr
		rma  bool
	}{{"pingpong-uu", PingPong, UU, false}, {"pingpong-ro", PingPong, RO, false},
		{"stream-ru", Stream, RU, false}, {"stream-rma", Stream, RU, true}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultBenchConfig()
			cfg.Attr, cfg.Size, cfg.Iters, cfg.Warmup, cfg.Window, cfg.RMA = c.attr, 4096, 10, 2, 4, c.rma
			ref, err := c.run(context.Background(), cfg, actors.Options{Workers: 1})
			require.NoError(t, err)
			res := make([]*BenchResult, 2)
			errs := clustertest.InProcesses(t, 2, actors.Options{Workers: 1, Partitioner: actors.Slab{}},
				func(p int, o actors.Options) error {
					r, err := c.run(context.Background(), cfg, o)
					res[p] = r
					return err
				})
			for p := range 2 {
				require.NoError(t, errs[p], "process %d", p)
				msg := fmt.Sprintf("process %d", p)
				assert.Equal(t, 2, res[p].Report.Processes, msg)
				assert.Equal(t, ref.Report.Digest, res[p].Report.Digest, msg)
				assert.Equal(t, ref.Report.Events, res[p].Report.Events, msg)
				r, g := *ref, *res[p]
				r.Report, g.Report = nil, nil
				assert.Equal(t, r, g, msg)
			}
		})
	}
}
