package portals4

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/stretchr/testify/require"
)

func TestBenchmarksRunAndAgreeAcrossWorkers(t *testing.T) {
	ctx := context.Background()
	serial := actors.Options{Workers: 1, Engine: actors.Serial}
	par := actors.Options{Workers: 2, Engine: actors.Parallel, Partitioner: actors.Block{}}
	for _, op := range []string{"put", "get"} {
		for _, m := range []bool{true, false} {
			c := LatencyConfig{Op: op, Matching: m, Size: 1024, Iters: 5, Warmup: 1}
			l1, r1, err := Latency(ctx, machine.Default(), DefaultParams(), c, serial)
			require.NoError(t, err)
			l2, r2, err := Latency(ctx, machine.Default(), DefaultParams(), c, par)
			require.NoError(t, err)
			require.Positive(t, l1)
			require.Equal(t, l1, l2)
			require.Equal(t, r1.Digest, r2.Digest)
		}
	}
	rate, _, err := MsgRate(ctx, machine.Default(), DefaultParams(), MsgRateConfig{Size: 8, Messages: 64, Window: 16, Priority: 4, Unexpected: 4}, serial)
	require.NoError(t, err)
	require.Positive(t, rate)
	slow, _, err := MsgRate(ctx, machine.Default(), DefaultParams(), MsgRateConfig{Size: 8, Messages: 64, Window: 16, Priority: 64, Unexpected: 64}, serial)
	require.NoError(t, err)
	require.Less(t, slow, rate, "longer lists cost matching time")
	tr, rt, err := TrigBarrier(ctx, machine.Default(), DefaultParams(), TrigConfig{Nodes: 7, Iters: 5, Triggered: true}, serial)
	require.NoError(t, err)
	tr2, rt2, err := TrigBarrier(ctx, machine.Default(), DefaultParams(), TrigConfig{Nodes: 7, Iters: 5, Triggered: true}, par)
	require.NoError(t, err)
	require.Equal(t, tr, tr2)
	require.Equal(t, rt.Digest, rt2.Digest)
	ho, _, err := TrigBarrier(ctx, machine.Default(), DefaultParams(), TrigConfig{Nodes: 7, Iters: 5}, serial)
	require.NoError(t, err)
	require.Positive(t, tr)
	require.Positive(t, ho)
	t.Logf("triggered %s host %s", tr, ho)
}
