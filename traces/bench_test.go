package traces

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/protocols/portals3"
)

// discard is an exporter that counts and drops: the SDK conversion is measured, not
// the network.
type discard struct{ n int }

func (d *discard) ExportSpans(_ context.Context, s []sdktrace.ReadOnlySpan) error {
	d.n += len(s)
	return nil
}

func (d *discard) Shutdown(context.Context) error { return nil }

// BenchmarkPortalPerfTracing is PortalPerf put, 0 B to 64 KB, serial engine: "off"
// has the hooks and no tracer; "sample1%" traces 1% of the messages through the OTLP
// path (SDK spans, batches) into a discarding exporter. The reference without any
// hook is "off" built with -tags notrace; compare the builds with interleaved runs:
//
//	go test -c -o on.test ./traces && go test -c -tags notrace -o off.test ./traces
//	for i in 1 2 3 4 5; do ./off.test -test.run X -test.bench 'Tracing/off' -test.count 1; \
//	  ./on.test -test.run X -test.bench 'Tracing/(off|sample1%)' -test.count 1; done
func BenchmarkPortalPerfTracing(b *testing.B) {
	cfg := portals3.DefaultPerfConfig()
	cfg.Sizes = []int64{0, 64, 1024, 4096, 16384, 65536}
	cfg.Iters, cfg.Warmup = 50, 2
	run := func(b *testing.B, tracer func(int) actors.Tracer) {
		opts := actors.Options{Engine: actors.Serial, Tracer: tracer}
		_, err := portals3.PortalPerf(context.Background(), cfg, opts)
		require.NoError(b, err)
	}
	b.Run("off", func(b *testing.B) {
		cpu := cpuTime()
		for b.Loop() {
			run(b, nil)
		}
		reportCPU(b, cpu)
	})
	b.Run("sample1%", func(b *testing.B) {
		spans := 0
		cpu := cpuTime()
		for b.Loop() {
			d := &discard{}
			c, err := New(Config{Sample: actors.MustParseProb("0.01"), exporter: d, Epoch: time.Unix(0, 0)})
			require.NoError(b, err)
			run(b, c.Tracer)
			st := c.Close()
			require.NoError(b, st.Err)
			spans = d.n
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(spans), "spans/op")
	})
}

// cpuTime is the process's user+system CPU time: on a machine shared with other work it
// varies much less than wall time, so the comparisons use it.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, since time.Duration) {
	b.ReportMetric(float64(cpuTime()-since)/float64(b.N), "cpu-ns/op")
}
