package traffic

import (
	"context"
	"runtime"
	"slices"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/internal/clustertest"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func smallConfig() Config {
	c := DefaultConfig()
	c.Topo = router.Torus(4, 4, 4)
	c.Warmup = 1 * actors.Microsecond
	c.Measure = 4 * actors.Microsecond
	c.Drain = 2 * actors.Microsecond
	return c
}

func run(t testing.TB, c Config, opts actors.Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), c, opts)
	require.NoError(t, err)
	return r
}

var serial = actors.Options{Engine: actors.Serial, Seed: 1}

// At low load the network accepts what is offered, with near-unloaded latency; as
// load grows accepted load saturates below the offered load and latency grows.
func TestAcceptedLoadSaturates(t *testing.T) {
	var prev *Result
	for _, load := range []string{"0.1", "0.4", "0.7", "1"} {
		c := smallConfig()
		c.Topo = router.Torus(4, 4, 2)
		c.Load = actors.MustParseProb(load)
		r := run(t, c, serial)
		t.Logf("load %s: generated %.3f accepted %.3f (%.3f GB/s/node), latency mean %s p99 %s, util %.3f/%.3f, refused %d, undelivered %d",
			load, r.Generated, r.Accepted, r.AcceptedGBps, r.LatencyMean, r.LatencyP99, r.LinkUtilMean, r.LinkUtilMax, r.Refused, r.Undelivered)
		assert.LessOrEqual(t, r.Accepted, r.Generated*1.05+0.01, load)
		assert.InDelta(t, r.Offered, r.Generated, 0.05, "the sources generate the offered load")
		assert.LessOrEqual(t, r.LinkUtilMax, 1.0)
		if prev != nil {
			assert.GreaterOrEqual(t, r.Accepted, prev.Accepted*0.95, "accepted load does not collapse")
			assert.GreaterOrEqual(t, r.LatencyMean, prev.LatencyMean, "latency grows with load")
		}
		prev = r
	}
	assert.Less(t, prev.Accepted, 0.95, "a 4x4x2 torus cannot accept full load from every node")
}

// At 10% load accepted equals offered and the latency is close to the unloaded one.
func TestLowLoadIsAccepted(t *testing.T) {
	c := smallConfig()
	c.Load = actors.MustParseProb("0.1")
	r := run(t, c, serial)
	assert.InDelta(t, r.Generated, r.Accepted, 0.02)
	assert.Zero(t, r.Refused)
	assert.Zero(t, r.Undelivered)
	// Unloaded: 4 + (h+1)*50 + 5h + (h+2)*25.6 ns with h = 3 hops on average.
	assert.InDelta(t, 0.35, r.LatencyMean.Microseconds(), 0.1)
	assert.Equal(t, r.Measured, r.Latency.Count())
}

// The same configuration gives the same digest and results under the serial engine
// and the parallel engine with any worker count and partitioning.
func TestDigestAcrossEngines(t *testing.T) {
	c := smallConfig()
	c.Router.CRCErrorRate = actors.MustParseProb("0.01")
	c.MsgPackets = 3
	c.Load = actors.MustParseProb("0.6")
	ref := run(t, c, serial)
	for _, o := range []actors.Options{
		{Workers: 1, Partitioner: actors.Node{}}, {Workers: 2, Partitioner: actors.Node{}}, {Workers: 4, Partitioner: actors.Node{}},
		{Workers: 1}, {Workers: 2}, {Workers: 4},
	} {
		o.Seed = 1
		r := run(t, c, o)
		assert.Equal(t, ref.Digest, r.Digest, "%s workers %d", o.Partitioner, o.Workers)
		assert.Equal(t, ref.Accepted, r.Accepted)
		assert.Equal(t, ref.LatencyP99, r.LatencyP99)
		assert.Equal(t, ref.Network.Retries, r.Network.Retries)
	}
	other := run(t, c, actors.Options{Engine: actors.Serial, Seed: 2})
	assert.NotEqual(t, ref.Digest, other.Digest)
}

func TestPatterns(t *testing.T) {
	r := actors.NewRand(1, "patterns")
	for _, topo := range []router.Topology{router.Torus(4, 4, 2), router.Torus(3, 5, 1), router.Mesh(8, 2, 3)} {
		seen := make([]bool, topo.Nodes())
		for id := range router.NodeID(topo.Nodes()) {
			d := transpose(topo, id)
			require.False(t, seen[d], "transpose is a permutation of %s", topo)
			seen[d] = true
			c, dc := topo.Coord(id), topo.Coord(d)
			assert.Equal(t, c[2], dc[2], "transpose stays in its z plane")
			if topo.X == topo.Y {
				assert.Equal(t, [3]int{c[1], c[0], c[2]}, dc)
			}
		}
		c := DefaultConfig()
		c.Topo = topo
		for range 1000 {
			src := router.NodeID(r.IntN(topo.Nodes()))
			assert.NotEqual(t, src, c.destination(src, &r), "uniform never picks the source")
		}
	}
	c := DefaultConfig()
	c.Topo, c.Pattern, c.HotspotFraction, c.HotspotNode = router.Torus(4, 4, 4), Hotspot, actors.MustParseProb("0.25"), 5
	hot := 0
	for range 10000 {
		if c.destination(9, &r) == 5 {
			hot++
		}
	}
	assert.InDelta(t, 0.25+0.75/63, float64(hot)/10000, 0.02)
	for range 100 {
		assert.NotEqual(t, router.NodeID(5), c.destination(5, &r), "the hotspot sends uniform traffic")
	}
}

// The transpose pattern loads a torus unevenly, the hotspot pattern saturates the
// hotspot's ejection link: both run and accept less than uniform traffic would.
func TestPatternRuns(t *testing.T) {
	for _, p := range []Pattern{Transpose, Hotspot} {
		c := smallConfig()
		c.Pattern, c.HotspotFraction = p, actors.MustParseProb("0.2")
		c.Load = actors.MustParseProb("0.6")
		r := run(t, c, serial)
		t.Logf("%s: accepted %.3f, latency mean %s p99 %s, util %.3f/%.3f", p, r.Accepted, r.LatencyMean, r.LatencyP99, r.LinkUtilMean, r.LinkUtilMax)
		assert.Positive(t, r.Accepted)
		assert.LessOrEqual(t, r.Accepted, r.Generated+0.01)
	}
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	for key, mutate := range map[string]func(*Config){
		"msg_packets":          func(c *Config) { c.MsgPackets = 0 },
		"measure":              func(c *Config) { c.Measure = 0 },
		"warmup":               func(c *Config) { c.Warmup = -1 },
		"drain":                func(c *Config) { c.Drain = -1 },
		"hotspot_node":         func(c *Config) { c.HotspotNode = 512 },
		"source_queue_packets": func(c *Config) { c.SourceQueuePackets, c.MsgPackets = 2, 3 },
		"eject_credits":        func(c *Config) { c.EjectCredits = 0 },
		"pattern":              func(c *Config) { c.Pattern = "tornado" },
		"vcs":                  func(c *Config) { c.Router.VCs = 5 },
		"needs at least 2":     func(c *Config) { c.Topo = router.Torus(1, 1, 1) },
	} {
		c := DefaultConfig()
		mutate(&c)
		assert.ErrorContains(t, c.Validate(), key)
	}
}

// Quantiles of the histogram are within 0.8% of the exact sample quantiles.
func TestHistogramQuantiles(t *testing.T) {
	r := actors.NewRand(3, "hist")
	var h Histogram
	var sample []actors.Duration
	for range 100000 {
		d := 100*actors.Nanosecond + r.Exp(500*actors.Nanosecond)
		h.Add(d)
		sample = append(sample, d)
	}
	slices.Sort(sample)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999, 1} {
		exact := sample[int(q*float64(len(sample))+0.5)-1]
		got := h.Quantile(q)
		assert.InEpsilon(t, float64(exact), float64(got), 0.008, "q=%g", q)
	}
	var sum actors.Duration
	for _, d := range sample {
		sum += d
	}
	assert.Equal(t, sum/actors.Duration(len(sample)), h.Mean())
	assert.Equal(t, sample[len(sample)-1], h.Max())
	for v := range uint64(1 << 16) {
		i := bucketOf(v)
		mid := uint64(bucketMid(i))
		assert.Equal(t, i, bucketOf(mid), v)
	}
	var small Histogram
	for _, d := range []actors.Duration{5, 1, 3} {
		small.Add(d)
	}
	assert.Equal(t, actors.Duration(3), small.Quantile(0.5), "exact below 128 ps")
	var merged Histogram
	merged.Merge(&small)
	merged.Merge(&h)
	assert.Equal(t, small.Count()+h.Count(), merged.Count())
}

// BenchmarkTraffic reports events/s, and heap allocations, engine events and wall time
// per packet (a packet crosses 3 router hops on average) at the default load on a
// 4x4x4 torus, under the serial engine: the
// parallel engine adds a fixed cost per run (protoactor's actor system) but nothing
// per event.
func BenchmarkTraffic(b *testing.B) {
	c := smallConfig()
	c.Measure = 20 * actors.Microsecond
	for range b.N {
		m, err := Build(c)
		require.NoError(b, err)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := actors.Run(context.Background(), m, actors.Options{Seed: 1, Engine: actors.Serial, End: c.end()})
		require.NoError(b, err)
		runtime.ReadMemStats(&after)
		r := summarize(c, m, rep)
		b.ReportMetric(rep.EventsPerSec, "events/s")
		created := float64(r.Created) * float64(c.end()) / float64(c.Measure)
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/created, "allocs/packet")
		b.ReportMetric(float64(rep.Events)/created, "events/packet")
		b.ReportMetric(float64(rep.Wall.Nanoseconds())/created, "ns/packet")
	}
}

func TestPacketCodecKeepsTheCreationTime(t *testing.T) {
	pk := &packet{created: 1234}
	pk.Packet = router.Packet{Src: 1, Dst: 2, Payload: 64, SOM: true, Seq: 5, Data: pk}
	var e actors.Encoder
	e.Value(&pk.Packet)
	require.NoError(t, e.Err())
	got, ok := actors.NewDecoder(e.Bytes()).Value().(*router.Packet)
	require.True(t, ok)
	back, ok := got.Data.(*packet)
	require.True(t, ok)
	assert.Same(t, got, &back.Packet, "the decoded packet is the one its descriptor holds")
	assert.Equal(t, actors.Time(1234), back.created)
	assert.Equal(t, pk.Packet.Fingerprint(), got.Fingerprint())
}

// Split across two processes along slabs, a traffic run gives the same result, digest
// and network statistics in both processes as in one.
func TestSplitAcrossProcessesGivesTheSameResult(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Topo = router.Torus(4, 2, 2)
	cfg.Load = actors.MustParseProb("0.3")
	cfg.Warmup, cfg.Measure, cfg.Drain = 100*actors.Nanosecond, 300*actors.Nanosecond, 200*actors.Nanosecond
	ref, err := Run(context.Background(), cfg, actors.Options{Engine: actors.Serial, Seed: 9})
	require.NoError(t, err)
	require.NotZero(t, ref.Measured)
	res := make([]*Result, 2)
	errs := clustertest.InProcesses(t, 2, actors.Options{Seed: 9, Workers: 1, Partitioner: actors.Slab{}},
		func(p int, o actors.Options) error {
			r, err := Run(context.Background(), cfg, o)
			res[p] = r
			return err
		})
	for p := range 2 {
		require.NoError(t, errs[p])
		got := *res[p]
		want := *ref
		assert.Equal(t, want.Digest, got.Digest)
		want.Report, got.Report = nil, nil
		assert.Equal(t, want, got, "process %d", p)
	}
}
