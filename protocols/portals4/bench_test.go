package portals4

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/stretchr/testify/require"
)

func TestBenchmarksRunAndAgreeAcrossWorkers(t *testing.T) {
	for _, nic := range []string{"offload", "onload", "matchunit", "ib"} {
		t.Run(nic, func(t *testing.T) { benchAgree(t, nic) })
	}
}

func benchAgree(t *testing.T, nic string) {
	ctx := context.Background()
	p := DefaultParams()
	p.NIC = nic
	serial := actors.Options{Workers: 1, Engine: actors.Serial}
	par := actors.Options{Workers: 2, Engine: actors.Parallel, Partitioner: actors.Block{}}
	for _, op := range []string{"put", "get"} {
		for _, m := range []bool{true, false} {
			c := LatencyConfig{Op: op, Matching: m, Size: 1024, Iters: 5, Warmup: 1}
			l1, r1, err := Latency(ctx, machine.Default(), p, c, serial)
			require.NoError(t, err)
			l2, r2, err := Latency(ctx, machine.Default(), p, c, par)
			require.NoError(t, err)
			require.Positive(t, l1)
			require.Equal(t, l1, l2)
			require.Equal(t, r1.Digest, r2.Digest)
		}
	}
	rate, m0, err := MsgRate(ctx, machine.Default(), p, MsgRateConfig{Size: 8, Messages: 64, Window: 16, Priority: 4, Unexpected: 4}, serial)
	require.NoError(t, err)
	require.Positive(t, rate)
	slow, _, err := MsgRate(ctx, machine.Default(), p, MsgRateConfig{Size: 8, Messages: 64, Window: 16, Priority: 64, Unexpected: 64}, serial)
	require.NoError(t, err)
	require.Less(t, slow, rate, "longer lists cost matching time")
	tr, rt, err := TrigBarrier(ctx, machine.Default(), p, TrigConfig{Nodes: 7, Iters: 5, Triggered: true}, serial)
	require.NoError(t, err)
	tr2, rt2, err := TrigBarrier(ctx, machine.Default(), p, TrigConfig{Nodes: 7, Iters: 5, Triggered: true}, par)
	r1x, m1, err := MsgRate(ctx, machine.Default(), p, MsgRateConfig{Size: 8, Messages: 64, Window: 16, Priority: 4, Unexpected: 4}, par)
	require.NoError(t, err)
	require.Equal(t, rate, r1x)
	require.Equal(t, m0.Digest, m1.Digest)
	require.NoError(t, err)
	require.Equal(t, tr, tr2)
	require.Equal(t, rt.Digest, rt2.Digest)
	ho, _, err := TrigBarrier(ctx, machine.Default(), p, TrigConfig{Nodes: 7, Iters: 5}, serial)
	require.NoError(t, err)
	require.Positive(t, tr)
	require.Positive(t, ho)
	t.Logf("triggered %s host %s", tr, ho)
}

type spanLog struct{ spans []actors.Span }

func (s *spanLog) Sampled(uint64) bool { return true }
func (s *spanLog) Span(sp actors.Span) { s.spans = append(s.spans, sp) }

// A put's life is one trace: the root span from the firmware that sent it, the
// library call's wait in the mailbox, the DMA engines, the hop and the target's
// handlers.
func TestPutIsOneTrace(t *testing.T) {
	log := &spanLog{}
	opts := actors.Options{Workers: 1, Engine: actors.Serial, Tracer: func(int) actors.Tracer { return log }}
	_, _, err := Latency(context.Background(), machine.Default(), DefaultParams(), LatencyConfig{Op: "put", Matching: true, Size: 1024, Iters: 1}, opts)
	require.NoError(t, err)
	var put uint64
	for _, s := range log.spans {
		if s.Name == "portals4/put" && s.Root {
			put = s.Trace
			break
		}
	}
	require.NotZero(t, put)
	names := map[string]bool{}
	for _, s := range log.spans {
		if s.Trace == put {
			names[s.Name] = true
			require.GreaterOrEqual(t, s.End, s.Start, s.Name)
		}
	}
	for _, n := range []string{"ppc/mailbox", "ppc/call", "txdma/message", "rxdma/message", "ppc/rx_header", "ppc/rx_done", "ppc/tx_done"} {
		require.True(t, names[n], "span %s missing from the put's trace (have %v)", n, names)
	}
}
