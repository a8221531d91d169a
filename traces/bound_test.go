package traces

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/seastar-sim/seastar/actors"
)

// A bound keeps the least records of the order whatever order they arrive in, and
// reports where it cut; with more records than a chunk (boundChunk) too, below and
// beyond the bound.
func TestBoundedKeepsTheLeastInAnyArrivalOrder(t *testing.T) {
	for _, c := range []struct {
		n, max int
		order  recordOrder
	}{{200, 50, timeOrder}, {3 * boundChunk, 2*boundChunk + 17, timeOrder}, {3 * boundChunk, 5 * boundChunk, timeOrder},
		{3 * boundChunk, 2*boundChunk + 17, fileOrder}, {3 * boundChunk, 2*boundChunk + 17, gaugeOrder}} {
		var all []record
		for i := range c.n {
			all = append(all, record{run: i % 2, trace: uint64(i % 7), start: actors.Time(i * 37 % 101), name: "s", end: actors.Time(i),
				attrs: []actors.Attr{actors.IntAttr("value", int64(i))}})
		}
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b record) int { return c.order.cmp(&a, &b) })
		kept := min(c.n, c.max)
		for seed := range uint64(5) {
			in := slices.Clone(all)
			rand.New(rand.NewPCG(seed, 1)).Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
			b := newBounded(c.max, c.order)
			for i := range in {
				b.add(&in[i])
			}
			assert.Equal(t, int64(c.n-kept), b.dropped)
			if kept < c.n {
				assert.Equal(t, want[kept], b.cut, "the least record left out")
			}
			got := b.sorted()
			require.Len(t, got, kept)
			for i, r := range got {
				require.Equal(t, want[i], *r, "%d of %d, bound %d, seed %d", i, c.n, c.max, seed)
			}
		}
	}
	b := newBounded(0, timeOrder)
	b.add(&record{name: "s"})
	assert.Equal(t, int64(1), b.dropped)
	assert.Empty(t, b.sorted())
}

// A timeline over its counter bound is the same whichever partition hands its values
// over first, and says how many it left out and from when.
func TestTimelineCounterBoundIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	run := func(name string, firstA bool) (TimelineStats, []byte) {
		file := filepath.Join(dir, name)
		c, err := New(Config{Sample: actors.MustParseProb("1"), Timeline: file, MaxCounters: 500})
		require.NoError(t, err)
		a, b := c.Tracer(0), c.Tracer(0)
		emit := func(tr actors.Tracer, off int) {
			g := tr.(actors.GaugeTracer)
			for i := range 600 { // more than a chunk: the first to emit hands values over first
				g.Gauge(actors.Gauge{Name: "depth", At: actors.Time(2*i + off), Value: int64(i % 5)})
			}
		}
		if firstA {
			emit(a, 0)
			emit(b, 1)
		} else {
			emit(b, 1)
			emit(a, 0)
		}
		st := c.Close()
		require.NoError(t, st.Err)
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		return st.Timeline, data
	}
	st1, f1 := run("a.json", true)
	st2, f2 := run("b.json", false)
	assert.Equal(t, string(f1), string(f2))
	assert.Equal(t, st1, st2)
	assert.Equal(t, int64(500), st1.Counters)
	assert.Equal(t, int64(700), st1.CountersDropped)
	assert.Equal(t, actors.Time(500), st1.CountersCut, "values at 0..499 kept")
}
