package actors_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/phold"
)

// In horizon mode the report tells how many barriers were horizon epochs (the
// coordinator falls back to windows after epochs spent mostly polling); in window mode
// none are. Both deliver the same events.
func TestReportCountsHorizonEpochs(t *testing.T) {
	p := phold.DefaultParams()
	p.End = 200 * actors.Time(actors.Nanosecond)
	run := func(sync actors.SyncMode) *actors.Report {
		m, err := phold.Build(p)
		require.NoError(t, err)
		rep, err := actors.Run(context.Background(), m, actors.Options{Workers: 2, Sync: sync, End: p.End})
		require.NoError(t, err)
		return rep
	}
	h, w := run(actors.SyncHorizon), run(actors.SyncWindow)
	require.Positive(t, h.Epochs, "the first barrier of a horizon run is an epoch")
	require.LessOrEqual(t, h.Epochs, h.Windows)
	require.Zero(t, w.Epochs)
	require.Equal(t, w.Digest, h.Digest)
}
