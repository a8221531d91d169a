package phold

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/require"
)

func run(t testing.TB, p Params, opts actors.Options) *actors.Report {
	m, err := Build(p)
	require.NoError(t, err)
	opts.End = p.End
	rep, err := actors.Run(context.Background(), m, opts)
	require.NoError(t, err)
	return rep
}

// The digest of PHOLD is the same for the serial engine and for the parallel engine
// under every worker count and partitioning.
func TestDigestIndependentOfEngine(t *testing.T) {
	p := DefaultParams()
	p.LPs = 64
	p.End = actors.Time(2 * actors.Microsecond)
	ref := run(t, p, actors.Options{Seed: 7, Engine: actors.Serial})
	require.NotZero(t, ref.Events)
	for _, part := range []string{"auto", "block", "node"} {
		for _, w := range []int{1, 2, 4, 8} {
			t.Run(fmt.Sprintf("%s/workers=%d", part, w), func(t *testing.T) {
				pt, err := actors.ParsePartitioner(part)
				require.NoError(t, err)
				rep := run(t, p, actors.Options{Seed: 7, Workers: w, Partitioner: pt})
				require.Equal(t, ref.Events, rep.Events)
				require.Equal(t, ref.Digest, rep.Digest, "reproduce: go run ./cmd/run phold --lps 64 --end 2us --seed 7 --workers %d --partition %s", w, part)
			})
		}
	}
}
