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
	b.ReportAllocs()
	rep := runPHOLD(b, b.N, opts)
	b.ReportMetric(rep.EventsPerSec, "events/s")
	b.ReportMetric(float64(rep.Wall.Nanoseconds())/float64(rep.Events), "ns/event")
}

// runPHOLD runs the default PHOLD long enough for about events events.
func runPHOLD(b *testing.B, events int, opts actors.Options) *actors.Report {
	p := phold.DefaultParams()
	// About 512 events per simulated nanosecond with these parameters.
	p.End = actors.Time(max(events/512, 100)) * actors.Time(actors.Nanosecond)
	m, err := phold.Build(p)
	if err != nil {
		b.Fatal(err)
	}
	opts.End = p.End
	b.ResetTimer()
	rep, err := actors.Run(context.Background(), m, opts)
	if err != nil {
		b.Fatal(err)
	}
	return rep
}

// BenchmarkPHOLDRatios measures, in one run and on the same workload, the ratios the
// kernel is judged by: the 2-worker speedup over 1 worker (target >= 1.6) and the
// slowdown of one protoactor actor per block against automatic partitioning (target
// <= 4). Use -benchtime 5000000x or more for stable figures.
func BenchmarkPHOLDRatios(b *testing.B) {
	w1 := runPHOLD(b, b.N, actors.Options{Workers: 1})
	w2 := runPHOLD(b, b.N, actors.Options{Workers: 2})
	blk := runPHOLD(b, b.N, actors.Options{Workers: 2, Partitioner: actors.Block{}})
	if w1.Digest != w2.Digest || w1.Digest != blk.Digest {
		b.Fatalf("digests differ: %s %s %s", w1.Digest, w2.Digest, blk.Digest)
	}
	b.ReportMetric(w1.EventsPerSec, "w1-events/s")
	b.ReportMetric(w2.EventsPerSec, "w2-events/s")
	b.ReportMetric(w2.EventsPerSec/w1.EventsPerSec, "speedup-w2/w1")
	b.ReportMetric(w2.EventsPerSec/blk.EventsPerSec, "slowdown-block/auto")
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
