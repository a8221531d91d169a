package mpi

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/machine"
	"github.com/seastar-sim/seastar/protocols/portals3"
	"github.com/stretchr/testify/require"
)

var serial = actors.Options{Engine: actors.Serial}

// testMode is the Portals mode the jobs of the tests run in (see
// TestSemanticsAcceleratedMode).
var testMode = "generic"

// testParams are small limits for data-carrying jobs: a 1 KiB eager limit, so that
// the long protocol shows at modest sizes, and four 8 KiB unexpected buffers.
func testParams() Params {
	p := DefaultParams()
	p.EagerMax = 1024
	p.UnexpectedBuffers = 4
	p.UnexpectedBufferBytes = 8 * actors.KiB
	return p
}

// job runs prog on n ranks (one per node of a torus of n nodes laid out as a line) with
// real data, and returns the job and the report.
func job(t *testing.T, n int, p Params, opts actors.Options, prog func(c *Comm) error) (*Job, *actors.Report, error) {
	t.Helper()
	g := actors.NewGraph()
	mp := machine.Default()
	mp.Torus, mp.Wrap = torusFor(n), "torus"
	pp := portals3.DefaultParams()
	pp.Mode = testMode
	_, stacks, err := portals3.Build(g, mp, pp)
	require.NoError(t, err)
	nodes := make([]int, n)
	for i := range nodes {
		nodes[i] = i
	}
	cfg := DefaultJobConfig()
	cfg.Params, cfg.Data = p, true
	j, err := Launch(stacks, nodes, cfg, prog)
	require.NoError(t, err)
	m, err := g.Build()
	require.NoError(t, err)
	rep, err := actors.Run(context.Background(), m, opts)
	if err == nil {
		err = j.Check()
	}
	return j, rep, err
}

func torusFor(n int) string {
	switch {
	case n <= 8:
		return itoa(n) + "x1x1"
	default:
		return itoa((n+3)/4) + "x4x1"
	}
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

// pattern returns n bytes that depend on seed.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// withData returns an allocated buffer holding data.
func withData(c *Comm, data []byte) Buf {
	b := c.Alloc(int64(len(data)))
	copy(b.Data, data)
	return b
}

func floats(b Buf) []float64 {
	out := make([]float64, b.Len/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b.Data[8*i:]))
	}
	return out
}

func putFloats(b Buf, v []float64) {
	for i, x := range v {
		binary.LittleEndian.PutUint64(b.Data[8*i:], math.Float64bits(x))
	}
}
