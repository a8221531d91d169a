package motifs

import (
	"context"
	"encoding/binary"
	"math"
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

	cfg.Motif, cfg.Size = Allreduce, 12
	_, err := Run(context.Background(), cfg, serial)
	require.ErrorContains(t, err, "a multiple of 8B")
}

// The collectives carry real data too: alltoall's blocks are payloads checked in the
// receiver's buffer, allreduce's result is checked against the exact sum; the same
// digest as without, and every block and result intact under loss with go-back-n.
func TestVerifyCollectives(t *testing.T) {
	for _, m := range []Name{Alltoall, Allreduce} {
		cfg := small(m, "2x2x2")
		cfg.Size = 1024
		plain := run(t, cfg, serial)
		cfg.Verify = true
		v := run(t, cfg, serial)
		assert.Equal(t, plain.Report.Digest, v.Report.Digest, "%s: real bytes cost no simulated time", m)
		calls := int64((cfg.Iters + cfg.Warmup) * v.Ranks)
		want := calls // allreduce: a result per rank and call
		if m == Alltoall {
			want = calls * int64(v.Ranks-1) // a block for every other rank
		}
		assert.Equal(t, want, v.Sent, m)
		assert.Equal(t, want, v.Verified, m)
		assert.Zero(t, v.Corrupt+v.Duplicates, m)

		cfg.Machine.RXDMA.DropRate = actors.MustParseProb("0.05")
		cfg.Portals.Recovery = "gbn"
		r := run(t, cfg, serial)
		assert.Positive(t, r.GBN.Retransmits, m)
		assert.Equal(t, want, r.Verified, "%s: every payload intact, once", m)
		assert.Zero(t, r.Corrupt+r.Duplicates, m)
	}
}

// An allreduce result with a contribution missing, or counted twice, is corrupt.
func TestCheckSum(t *testing.T) {
	const p, it = 5, 3
	vec := func(ranks ...int) []byte {
		b := make([]byte, 64)
		acc := make([]byte, 64)
		for _, r := range ranks {
			fillOperand(b, r, it)
			mpiSum(acc, b)
		}
		return acc
	}
	var lg rankLog
	lg.checkSum(vec(0, 1, 2, 3, 4), p, it)
	lg.checkSum(vec(0, 1, 2, 3), p, it)
	lg.checkSum(vec(0, 1, 2, 3, 4, 4), p, it)
	lg.checkSum(vec(0, 1, 2, 3, 4), p, it+1) // another iteration's
	assert.Equal(t, [2]int64{1, 3}, [2]int64{lg.verified, lg.corrupt})
}

// mpiSum adds the float64 vector b into acc.
func mpiSum(acc, b []byte) {
	for j := 0; j+8 <= len(b); j += 8 {
		x := math.Float64frombits(binary.LittleEndian.Uint64(acc[j:])) + math.Float64frombits(binary.LittleEndian.Uint64(b[j:]))
		binary.LittleEndian.PutUint64(acc[j:], math.Float64bits(x))
	}
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
