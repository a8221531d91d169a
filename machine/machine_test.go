package machine

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// idle is a firmware that does nothing: the machine is built and runs no events.
type idle struct{}

func (idle) Boot(*ppc.Boot) error              { return nil }
func (idle) Handle(x *ppc.Exec, ev actors.Msg) {}

func idleFW(router.NodeID) ppc.Firmware { return idle{} }

func TestPresetsDiffer(t *testing.T) {
	rs, err := Preset("redstorm")
	require.NoError(t, err)
	x5, err := Preset("xt5")
	require.NoError(t, err)
	require.NoError(t, rs.Validate())
	require.NoError(t, x5.Validate())
	assert.Equal(t, "27x16x24", rs.Torus)
	assert.Less(t, rs.TXDMA.DMABandwidth, x5.TXDMA.DMABandwidth)
	assert.Less(t, rs.Router.LinkBandwidth, x5.Router.LinkBandwidth)
	assert.Equal(t, "linux", x5.Host.OS)
	_, err = Preset("cray1")
	assert.ErrorContains(t, err, `unknown machine preset "cray1"`)
}

func TestValidateNamesTheBlock(t *testing.T) {
	p := Default()
	p.CAM.Entries = 0
	assert.ErrorContains(t, p.Validate(), "cam.entries must be in 1..32768")
	p = Default()
	p.Torus = "3xfoo"
	assert.ErrorContains(t, p.Validate(), `"3xfoo"`)
	p = Default()
	p.OnChipLatency = 0
	assert.ErrorContains(t, p.Validate(), "onchip_latency must be > 0")
}

// A node's blocks are named after its coordinates and wired without dangling ports;
// the whole machine runs (idle) under the parallel engine with node partitioning.
func TestBuildSmallMachine(t *testing.T) {
	p := Default()
	p.Torus = "2x2x1"
	g := actors.NewGraph()
	m, err := Build(g, p, idleFW)
	require.NoError(t, err)
	require.Len(t, m.Nodes, 4)
	assert.Equal(t, "node[1,1,0]", m.Nodes[3].Name)
	model, err := g.Build()
	require.NoError(t, err)
	for _, name := range []string{"node[1,1,0].host", "node[1,1,0].ht", "node[1,1,0].ppc", "node[1,1,0].txdma",
		"node[1,1,0].rxdma", "node[1,1,0].cam", "node[1,1,0].router.nic"} {
		_, ok := model.ID(name)
		assert.True(t, ok, name)
	}
	rep, err := actors.Run(context.Background(), model, actors.Options{Workers: 2, Partitioner: actors.Node{}})
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Partitions)
}

// A firmware whose structures do not fit in SRAM fails the build, naming the node.
func TestFirmwareThatDoesNotFitFailsTheBuild(t *testing.T) {
	p := Default()
	p.Torus = "1x1x1"
	_, err := Build(actors.NewGraph(), p, func(router.NodeID) ppc.Firmware { return hog{} })
	assert.ErrorContains(t, err, "node 0: ppc: firmware structures do not fit in SRAM")
}

type hog struct{ idle }

func (hog) Boot(b *ppc.Boot) error {
	b.Alloc("sources", 1024, 512)
	return nil
}

// BenchmarkBuildRedStorm builds the whole redstorm machine (10,368 nodes, every block)
// and reports the build time and the heap per node.
func BenchmarkBuildRedStorm(b *testing.B) {
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		g := actors.NewGraph()
		m, err := Build(g, Default(), idleFW)
		if err != nil {
			b.Fatal(err)
		}
		model, err := g.Build()
		if err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(elapsed.Seconds(), "build_s")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(m.Nodes)), "heap_B/node")
		b.ReportMetric(float64(model.NumActors()), "actors")
		runtime.KeepAlive(model)
	}
}
