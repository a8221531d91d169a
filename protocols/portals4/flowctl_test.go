package portals4

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/clustertest"
	"github.com/seastar-sim/seastar/machine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Flow control driven by exhaustion: a target with too few unexpected headers for the
// stream disables its portal table entry, refuses puts with PTL_NI_PT_DISABLED, drains,
// re-enables and resumes the initiator, which resends what was refused: every message
// arrives exactly once, on every NIC choice, and the digest does not depend on the
// workers.
func TestFlowControlRecoversFromExhaustion(t *testing.T) {
	for _, nic := range []string{"offload", "onload", "matchunit"} {
		p := DefaultParams()
		p.NIC = nic
		c := FlowCtlConfig{Messages: 100, Window: 32, Unexpected: 4, Size: 64, Work: 2 * actors.Microsecond}
		var digest string
		for i, o := range []actors.Options{{Seed: 1}, {Seed: 1, Workers: 2, Partitioner: actors.Node{}}} {
			r, rep, err := FlowControl(context.Background(), machine.Default(), p, c, o)
			require.NoError(t, err, nic)
			assert.EqualValues(t, 100, r.Received, nic)
			assert.Zero(t, r.Duplicates, nic)
			assert.Positive(t, r.Disables, "%s: the unexpected headers ran out", nic)
			assert.Positive(t, r.Refused, nic)
			assert.Equal(t, r.Refused, r.Resent, "%s: every refused put was sent again", nic)
			if i == 0 {
				digest = rep.Digest
			} else {
				assert.Equal(t, digest, rep.Digest, nic)
			}
		}
	}
	// A queue large enough: no flow control at all.
	r, _, err := FlowControl(context.Background(), machine.Default(), DefaultParams(),
		FlowCtlConfig{Messages: 100, Window: 32, Unexpected: 64, Size: 64}, actors.Options{Seed: 1})
	require.NoError(t, err)
	assert.Zero(t, r.Disables)
	assert.EqualValues(t, 100, r.Received)
}

// Split across two processes (one node each), flow control gives the digest and the
// counts of one process, in both processes (the target's counts are exported: before,
// the initiator's process reported 0 messages received).
func TestFlowControlAcrossTwoProcesses(t *testing.T) {
	c := FlowCtlConfig{Messages: 60, Window: 16, Unexpected: 4, Size: 64, Work: actors.Microsecond}
	ref, rep, err := FlowControl(context.Background(), machine.Default(), DefaultParams(), c, actors.Options{Workers: 1})
	require.NoError(t, err)
	require.Positive(t, ref.Disables)
	res := make([]FlowCtlResult, 2)
	digests := make([]string, 2)
	errs := clustertest.InProcesses(t, 2, actors.Options{Workers: 1, Partitioner: actors.Slab{}},
		func(p int, o actors.Options) error {
			r, rp, err := FlowControl(context.Background(), machine.Default(), DefaultParams(), c, o)
			res[p] = r
			if rp != nil {
				digests[p] = rp.Digest
			}
			return err
		})
	for p := range 2 {
		require.NoError(t, errs[p], "process %d", p)
		assert.Equal(t, rep.Digest, digests[p], "process %d", p)
		assert.Equal(t, ref, res[p], "process %d", p)
	}
}
