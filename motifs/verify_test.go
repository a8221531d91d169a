package motifs

import (
	"context"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Verify carries real payloads through Portals and checks each at its receiver; it
// does not change the timing (the same digest as without), and under loss with
// go-back-n every payload arrives intact, once.
func TestVerifyChecksEveryPayload(t *testing.T) {
	cfg := small(Hotspot, "2x2x2")
	plain := run(t, cfg, serial)
	cfg.Verify = true
	v := run(t, cfg, serial)
	assert.Equal(t, plain.Report.Digest, v.Report.Digest, "real bytes cost no simulated time")
	sent := int64((cfg.Iters + cfg.Warmup) * v.Ranks * cfg.Messages) // the traffic's messages (barriers aside)
	assert.Equal(t, sent, v.Verified)
	assert.Zero(t, v.Corrupt+v.Duplicates)

	cfg.Machine.RXDMA.DropRate = actors.MustParseProb("0.05")
	cfg.Portals.Recovery = "gbn"
	r := run(t, cfg, serial)
	assert.Positive(t, r.GBN.Retransmits)
	assert.Equal(t, sent, r.Verified, "every payload intact, once")
	assert.Zero(t, r.Corrupt+r.Duplicates)

	assert.Equal(t, r.Sent, r.Verified)

	h := small(Halo3D, "2x2x2")
	h.Verify = true
	hr := run(t, h, serial)
	assert.Positive(t, hr.Verified)
	assert.Equal(t, hr.Sent, hr.Verified, "every face intact, once")
	assert.Zero(t, hr.Corrupt+hr.Duplicates)

	p := small(PingPong, "2x1x1")
	p.Verify = true
	pr := run(t, p, serial)
	assert.Positive(t, pr.Verified)
	assert.Equal(t, pr.Sent, pr.Verified)

	cfg.Motif = Alltoall
	_, err := Run(context.Background(), cfg, serial)
	require.ErrorContains(t, err, "verify is for the point-to-point motifs")
}

// A payload that is not its sender's pattern is counted corrupt; one seen twice, a
// duplicate.
func TestCheckPayload(t *testing.T) {
	var lg rankLog
	b := make([]byte, 64)
	fillPayload(b, payloadID(3, 1, 2))
	lg.check(b, 3)
	lg.check(b, 3)
	b[20] ^= 1
	lg.check(b, 3)
	fillPayload(b, payloadID(3, 1, 3))
	lg.check(b, 4) // from another rank than it says
	assert.Equal(t, [3]int64{1, 2, 1}, [3]int64{lg.verified, lg.corrupt, lg.dupes})
}
