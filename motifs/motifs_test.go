package motifs

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var serial = actors.Options{Engine: actors.Serial}

// small returns motif n on a small torus with 1 KiB messages.
func small(n Name, torus string) Config {
	cfg := DefaultConfig(n)
	cfg.Machine.Torus = torus
	cfg.Size = actors.KiB
	cfg.Iters, cfg.Warmup = 2, 1
	return cfg
}

func run(t *testing.T, cfg Config, opts actors.Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), cfg, opts)
	require.NoError(t, err)
	return r
}

// halo3d on every node of a torus takes the torus as its process grid: every rank
// exchanges one face with each of its 6 neighbours per iteration, and every message
// is matched to its send for the latency figures.
func TestHalo3DExchangesSixFaces(t *testing.T) {
	r := run(t, small(Halo3D, "4x4x4"), serial)
	assert.Equal(t, [3]int{4, 4, 4}, r.Grid)
	assert.Equal(t, 64, r.Ranks)
	assert.Equal(t, int64(64*6*2), r.Messages)
	assert.Equal(t, int64(64*6*2*1024), r.Bytes)
	assert.Equal(t, 64*6*2, r.Latencies)
	assert.Positive(t, r.LatencyP50)
	assert.LessOrEqual(t, r.LatencyP50, r.LatencyP99)
	assert.LessOrEqual(t, r.LatencyP99, r.LatencyMax)
	assert.LessOrEqual(t, r.LatencyMax, r.IterMax, "a message completes within its iteration")
	assert.GreaterOrEqual(t, r.IterTime, r.IterMax/2)
	assert.InDelta(t, float64(r.Bytes)/(float64(r.IterTime)*2*1e-12), r.Bandwidth, r.Bandwidth*1e-6)
	assert.Zero(t, r.MPI.Long)
}

// The halo exchange needs its neighbours' faces: more compute per iteration makes the
// iteration longer by about that much, and faces beyond the eager limit go by the
// long protocol.
func TestHalo3DComputeAndLongFaces(t *testing.T) {
	base := run(t, small(Halo3D, "2x2x2"), serial)
	cfg := small(Halo3D, "2x2x2")
	cfg.Compute = 50 * actors.Microsecond
	slow := run(t, cfg, serial)
	assert.InDelta(t, float64(base.IterTime+50*actors.Microsecond), float64(slow.IterTime), float64(10*actors.Microsecond))
	cfg = small(Halo3D, "2x2x2")
	cfg.Size = 200 * actors.KiB
	long := run(t, cfg, serial)
	assert.Equal(t, int64(8*6*3), long.MPI.Long, "every face of every iteration")
	assert.Greater(t, long.IterTime, base.IterTime)
}

// The run is identical for the serial engine and the parallel engine with 1, 2 and 4
// workers, node and auto partitioning: same digest, same results.
func TestHalo3DDeterministicAcrossEngines(t *testing.T) {
	cfg := small(Halo3D, "4x4x4")
	cfg.Iters, cfg.Warmup = 1, 0
	ref := run(t, cfg, serial)
	for _, o := range []actors.Options{{Workers: 1}, {Workers: 2}, {Workers: 4},
		{Workers: 2, Partitioner: actors.Node{}}, {Workers: 4, Partitioner: actors.Auto{}}} {
		r := run(t, cfg, o)
		assert.Equal(t, ref.Report.Digest, r.Report.Digest, "workers %d %v", o.Workers, o.Partitioner)
		assert.Equal(t, ref.IterTime, r.IterTime)
		assert.Equal(t, ref.LatencyP99, r.LatencyP99)
	}
}

// Ping-pong pairs: each message's latency is half an iteration (a round trip), every
// pair alike; with an odd job the last rank sits out.
func TestPingPongPairs(t *testing.T) {
	cfg := small(PingPong, "3x3x1")
	r := run(t, cfg, serial)
	assert.Equal(t, int64(4*2*2), r.Messages, "4 pairs, 2 messages per iteration, 2 iterations")
	assert.InDelta(t, float64(r.IterMax)/2, float64(r.LatencyP50), float64(r.IterMax)/20, "a round trip is two messages")
	assert.InDelta(t, float64(r.IterMax), float64(r.IterTime), float64(r.IterMax)/4)
	assert.Equal(t, r.LatencyP50, r.LatencyMax, "symmetric pairs")
}

// Linear placement is the identity; random placement is a permutation drawn from the
// seed: the same for the same seed, different for another.
func TestPlacement(t *testing.T) {
	assert.Equal(t, []int{0, 1, 2, 3, 4}, place(Linear, 8, 5, 1))
	a, b, c := place(RandomPlaced, 64, 64, 1), place(RandomPlaced, 64, 64, 1), place(RandomPlaced, 64, 64, 2)
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, c)
	assert.ElementsMatch(t, place(Linear, 64, 64, 0), a)
	assert.Len(t, place(RandomPlaced, 64, 10, 3), 10)
}

// With random placement, grid neighbours are no longer torus neighbours; the motif
// still runs to completion with the same traffic.
func TestHalo3DRandomPlacement(t *testing.T) {
	cfg := small(Halo3D, "4x4x2")
	lin := run(t, cfg, serial)
	cfg.Placement, cfg.Seed = RandomPlaced, 7
	rnd := run(t, cfg, serial)
	assert.Equal(t, lin.Messages, rnd.Messages)
	assert.NotEqual(t, lin.Report.Digest, rnd.Report.Digest)
}

// A subset of the nodes runs the job; the halo grid is then factored.
func TestFactoredGrid(t *testing.T) {
	assert.Equal(t, [3]int{3, 2, 2}, factor3(12))
	assert.Equal(t, [3]int{4, 4, 4}, factor3(64))
	assert.Equal(t, [3]int{7, 1, 1}, factor3(7))
	cfg := small(Halo3D, "4x4x1")
	cfg.Ranks = 12
	r := run(t, cfg, serial)
	assert.Equal(t, [3]int{3, 2, 2}, r.Grid)
	assert.Equal(t, int64(12*6*2), r.Messages)
}

// Collectives: alltoall sends P-1 blocks per rank per iteration; allreduce by recursive
// doubling log2 P messages per rank; the latency samples are the calls.
func TestCollectiveMotifs(t *testing.T) {
	a2a := run(t, small(Alltoall, "2x2x2"), serial)
	assert.Equal(t, int64(8*7*2), a2a.Messages)
	assert.Equal(t, int64(8*7*2*1024), a2a.Bytes)
	assert.Equal(t, 8*2, a2a.Latencies)
	ar := run(t, small(Allreduce, "2x2x2"), serial)
	assert.Equal(t, int64(8*3*2), ar.Messages)
	assert.Equal(t, 8*2, ar.Latencies)
}

// Random traffic: every message sent is received and timed; hotspot traffic sends a
// share of it to one rank, which becomes the bottleneck.
func TestRandomAndHotspot(t *testing.T) {
	cfg := small(Random, "4x4x1")
	rnd := run(t, cfg, serial)
	assert.Equal(t, int64(16*4*2), rnd.Messages)
	assert.Equal(t, 16*4*2, rnd.Latencies)
	cfg.Motif, cfg.HotFraction = Hotspot, actors.MustParseProb("0.75")
	hot := run(t, cfg, serial)
	assert.Equal(t, rnd.Messages, hot.Messages)
	assert.Greater(t, hot.IterTime, rnd.IterTime)
	assert.Greater(t, hot.LatencyP99, rnd.LatencyP99)
}

// Bad settings are errors naming the setting.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Motif = "ring" }, "unknown motif"},
		{func(c *Config) { c.Ranks = 65 }, "ranks must be in 0..64"},
		{func(c *Config) { c.Iters = 0 }, "iters"},
		{func(c *Config) { c.Motif, c.Size = Allreduce, 12 }, "multiple of 8B"},
		{func(c *Config) { c.Grid = [3]int{2, 2, 2} }, "grid 2x2x2 does not hold 64 ranks"},
		{func(c *Config) { c.Placement = "spiral" }, "unknown placement"},
		{func(c *Config) { c.HotRank = 64 }, "hot rank"},
		{func(c *Config) { c.MPI.EQEvents = 1 }, "mpi.eq_events"},
	} {
		cfg := small(Halo3D, "4x4x4")
		tc.edit(&cfg)
		_, err := Run(context.Background(), cfg, serial)
		assert.ErrorContains(t, err, tc.want)
	}
}

// A generic event queue too small for the events outstanding is a clear error naming
// the key, not a silent loss of events (the firmware writes over an entry the host has
// not taken, as the C firmware would).
func TestGenericEventQueueOverflowIsAnError(t *testing.T) {
	cfg := small(Hotspot, "2x2x2")
	cfg.Portals.EQSlots = 2
	_, err := Run(context.Background(), cfg, serial)
	var se *actors.SimError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Msg, "generic event queue overflow")
	assert.Contains(t, se.Msg, "portals.eq_slots 2")
}

// With go-back-n the firmware holds generic events back while the queue in host memory
// is full (the host reports what it took): the same tiny queue that overflows with the
// C firmware's behaviour carries the whole hotspot.
func TestGenericEventQueueFlowControl(t *testing.T) {
	cfg := small(Hotspot, "2x2x2")
	cfg.Portals.EQSlots = 2
	cfg.Portals.Recovery = "gbn"
	r := run(t, cfg, serial)
	assert.Equal(t, r.MPI.Sends, r.MPI.Received)
	assert.Positive(t, r.GBN.EventsHeld, "events waited for room")
}

// A run's progress (Options.Work) moves within an iteration, as a rank's requests
// complete, not only when ranks finish iterations: a one-iteration run of a large
// machine would otherwise show 0% until its end. It never falls and ends at 1.
func TestProgressWithinAnIteration(t *testing.T) {
	cfg := small(Halo3D, "2x2x2")
	cfg.Size, cfg.Iters, cfg.Warmup = 8*actors.KiB, 1, 0
	for _, base := range []actors.Options{serial, {Workers: 2}} {
		var fracs []float64
		opts := base
		opts.Work = &actors.Work{}
		opts.ProgressEvery = time.Nanosecond // a report every check: 4,096 events, a window
		opts.Progress = func(p actors.Progress) { fracs = append(fracs, p.Fraction) }
		run(t, cfg, opts)
		assert.Equal(t, 1.0, opts.Work.Fraction())
		require.NotEmpty(t, fracs)
		assert.True(t, slices.IsSorted(fracs), "progress never falls: %v", fracs)
		within := 0 // reports with a rank inside its iteration: not a whole number of the 8 ranks
		for _, f := range fracs {
			if r := f * 8; math.Abs(r-math.Round(r)) > 1e-9 {
				within++
			}
		}
		assert.Positive(t, within, "%v: progress moves only when a rank ends its iteration: %v", base.Engine, fracs)
	}
}

func TestIterProgress(t *testing.T) {
	w := &actors.Work{}
	w.Expect(2 * iterWork)
	p := iterProgress{work: w}
	p.begin(4)
	p.complete() // 1 of 4
	assert.Equal(t, 0.125, w.Fraction())
	p.complete()
	p.complete()
	assert.Equal(t, 0.375, w.Fraction())
	p.complete()
	assert.Equal(t, float64(iterWork-1)/(2*iterWork), w.Fraction(), "never the whole iteration before it ends")
	p.end(0) // an iteration that starts no request: whole at its end only
	assert.Equal(t, 0.5, w.Fraction())
	p.complete()
	assert.Equal(t, 0.5, w.Fraction())
	p.end(0)
	assert.Equal(t, 1.0, w.Fraction())
}

// The requests a motif's iteration starts are the ones env.requests counts for its
// progress, on every rank, for every motif, on grids with a dimension of 1 and collectives
// on sizes that are not powers of two.
func TestIterRequests(t *testing.T) {
	checked := 0
	checkIterRequests = func(m Name, rank, it int, want, got int64) {
		checked++
		assert.Equal(t, want, got, "%s rank %d iteration %d", m, rank, it)
	}
	defer func() { checkIterRequests = nil }()
	for _, c := range []struct {
		motif Name
		torus string
		ranks int
	}{{Halo3D, "4x2x1", 0}, {Halo3D, "3x3x2", 0}, {PingPong, "2x2x2", 7}, {Alltoall, "3x2x1", 0},
		{Allreduce, "3x2x1", 0}, {Allreduce, "2x2x2", 0}, {Random, "2x2x2", 0}, {Hotspot, "3x2x1", 0}} {
		cfg := small(c.motif, c.torus)
		if c.ranks > 0 {
			cfg.Ranks = c.ranks
		}
		checked = 0
		run(t, cfg, serial)
		assert.Positive(t, checked, "%s on %s", c.motif, c.torus)
	}
}
