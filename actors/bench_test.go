package actors_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/actors/phold"
)

// benchPHOLD runs PHOLD (1024 LPs, remote 0.25, mean and lookahead 1 ns) for enough
// simulated time to cover b.N events and reports events per wall second. Compare the
// sub-benchmarks of one run: parallel/workers=2 against parallel/workers=1 is the
// parallel speedup, block against auto the cost of one protoactor actor per block.
func benchPHOLD(b *testing.B, opts actors.Options) {
	p := phold.DefaultParams()
	// About 512 events per simulated nanosecond with these parameters.
	p.End = actors.Time(max(b.N/512, 100)) * actors.Time(actors.Nanosecond)
	m, err := phold.Build(p)
	if err != nil {
		b.Fatal(err)
	}
	opts.End = p.End
	b.ReportAllocs()
	b.ResetTimer()
	rep, err := actors.Run(context.Background(), m, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(rep.EventsPerSec, "events/s")
	b.ReportMetric(float64(rep.Wall.Nanoseconds())/float64(rep.Events), "ns/event")
}

func BenchmarkPHOLD(b *testing.B) {
	b.Run("serial", func(b *testing.B) { benchPHOLD(b, actors.Options{Engine: actors.Serial}) })
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("parallel/auto/workers=%d", w), func(b *testing.B) {
			benchPHOLD(b, actors.Options{Workers: w})
		})
	}
	b.Run("parallel/block/workers=2", func(b *testing.B) {
		benchPHOLD(b, actors.Options{Workers: 2, Partitioner: actors.Block{}})
	})
}
