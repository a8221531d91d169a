package traces

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/seastar-sim/seastar/actors"
)

// endpoint is a parsed --trace-otlp value.
type endpoint struct {
	http bool
	tls  bool
	host string // host:port
	url  string // the full URL, for HTTP
}

func parseEndpoint(s string) (endpoint, error) {
	bad := func(why string) (endpoint, error) {
		return endpoint{}, fmt.Errorf("trace OTLP endpoint %q: %s (want host:port, grpc://host:port, grpcs://host:port, http://host:port[/path] or https://...)", s, why)
	}
	if !strings.Contains(s, "://") {
		s = "grpc://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad(err.Error())
	}
	if u.Host == "" || u.Port() == "" && (u.Scheme == "grpc" || u.Scheme == "grpcs") {
		return bad("no host:port")
	}
	switch u.Scheme {
	case "grpc":
		return endpoint{host: u.Host}, nil
	case "grpcs":
		return endpoint{host: u.Host, tls: true}, nil
	case "http", "https":
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces" // the OTLP/HTTP default
		}
		return endpoint{http: true, tls: u.Scheme == "https", host: u.Host, url: u.String()}, nil
	}
	return bad("unknown scheme " + u.Scheme)
}

// otlpSink turns records into OpenTelemetry spans through the SDK, on the collector's
// exporting goroutine: a TracerProvider per service (one per simulated node, whose
// resource names the node, and one for blocks outside nodes), all with the
// IDGenerator that hands out the ids derived from the message and one processor that
// exports synchronously in batches.
type otlpSink struct {
	cfg     Config
	epoch   time.Time
	scale   int64 // exported time per simulated time
	proc    *batcher
	tracers map[string]trace.Tracer
	tps     []*sdktrace.TracerProvider // in creation order
}

// serviceOf is the service of a span run on actor: its node, else the run's service.
func serviceOf(cfg Config, actor string) string {
	if n := nodeOf(actor); n != "" {
		return n
	}
	return cfg.Service
}

// tracer returns the tracer of service, creating its provider on first use.
func (s *otlpSink) tracer(service string) trace.Tracer {
	if t, ok := s.tracers[service]; ok {
		return t
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", service), attribute.Int64("seastar.seed", int64(s.cfg.Seed))}
	if service != s.cfg.Service {
		attrs = append(attrs, attribute.String("seastar.node", service), attribute.String("seastar.run", s.cfg.Service))
		if i := strings.IndexByte(service, '['); i >= 0 && strings.HasSuffix(service, "]") {
			attrs = append(attrs, attribute.String("seastar.coords", service[i+1:len(service)-1]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.cfg.Attrs)) {
		attrs = append(attrs, attribute.String(k, s.cfg.Attrs[k]))
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
		sdktrace.WithIDGenerator(idGenerator{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(shared{s.proc}),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{AttributeCountLimit: 256, AttributeValueLengthLimit: -1,
			EventCountLimit: 0, LinkCountLimit: 1, AttributePerEventCountLimit: 0, AttributePerLinkCountLimit: 0}),
	)
	t := tp.Tracer("github.com/seastar-sim/seastar/traces")
	s.tracers[service] = t
	s.tps = append(s.tps, tp)
	return t
}

// shared hands one provider's spans to the sink's batcher; the sink shuts the batcher
// down itself, once, after every provider.
type shared struct{ b *batcher }

func (p shared) OnStart(ctx context.Context, s sdktrace.ReadWriteSpan) { p.b.OnStart(ctx, s) }
func (p shared) OnEnd(s sdktrace.ReadOnlySpan)                         { p.b.OnEnd(s) }
func (p shared) ForceFlush(ctx context.Context) error                  { return p.b.ForceFlush(ctx) }
func (p shared) Shutdown(ctx context.Context) error                    { return p.b.ForceFlush(ctx) }

// idsKey carries the ids of the span being started to the IDGenerator.
type idsKey struct{}

type ids struct {
	trace trace.TraceID
	span  trace.SpanID
}

// idGenerator gives the SDK the deterministic ids of the span being started.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	v := ctx.Value(idsKey{}).(*ids)
	return v.trace, v.span
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	return ctx.Value(idsKey{}).(*ids).span
}

func newOTLPSink(cfg Config) (*otlpSink, error) {
	exp := cfg.exporter
	if exp == nil {
		var err error
		if exp, err = newExporter(cfg); err != nil {
			return nil, err
		}
	}
	proc := newBatcher(exp, 512, cfg.ExportTimeout, cfg.Retries)
	return &otlpSink{cfg: cfg, epoch: cfg.Epoch, scale: max(cfg.TimeScale, 1), proc: proc, tracers: map[string]trace.Tracer{}}, nil
}

// newExporter returns the OTLP exporter of cfg.OTLP.
func newExporter(cfg Config) (sdktrace.SpanExporter, error) {
	ep, err := parseEndpoint(cfg.OTLP)
	if err != nil {
		return nil, err
	}
	retry := struct {
		initial, max, elapsed time.Duration
	}{100 * time.Millisecond, time.Second, cfg.ExportTimeout}
	var client otlptrace.Client
	if ep.http {
		opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(ep.url), otlptracehttp.WithTimeout(cfg.ExportTimeout),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: retry.initial, MaxInterval: retry.max, MaxElapsedTime: retry.elapsed})}
		client = otlptracehttp.NewClient(opts...)
	} else {
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(ep.host), otlptracegrpc.WithTimeout(cfg.ExportTimeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: true, InitialInterval: retry.initial, MaxInterval: retry.max, MaxElapsedTime: retry.elapsed})}
		if !ep.tls {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		client = otlptracegrpc.NewClient(opts...)
	}
	exp, err := otlptrace.New(context.Background(), client)
	if err != nil {
		return nil, fmt.Errorf("trace OTLP endpoint %s: %w", cfg.OTLP, err)
	}
	return exp, nil
}

// wall is the export timestamp of simulated time t: the epoch plus t, stretched by
// the time scale, truncated to nanoseconds.
func (s *otlpSink) wall(t actors.Time) time.Time {
	return s.epoch.Add(time.Duration(int64(t) * s.scale / 1000))
}

// span exports r, a stage of message r.trace (or its root), through the SDK.
func (s *otlpSink) span(run uint64, r *record, root bool) {
	tid := TraceID(run, r.trace)
	rootID := RootSpanID(run, r.trace)
	v := &ids{trace: tid}
	ctx := context.WithValue(context.Background(), idsKey{}, v)
	switch {
	case root:
		v.span = rootID
	case r.isPhase:
		v.span = phaseSpanID(run, r.trace, r.phase)
		ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: tid, SpanID: rootID, TraceFlags: trace.FlagsSampled}))
	default:
		v.span = childSpanID(run, r)
		ctx = trace.ContextWithSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: tid, SpanID: phaseSpanID(run, r.trace, r.phase), TraceFlags: trace.FlagsSampled}))
	}
	attrs := make([]attribute.KeyValue, 0, len(r.attrs)+5)
	for _, a := range r.attrs {
		if a.Str != "" {
			attrs = append(attrs, attribute.String(a.Key, a.Str))
		} else {
			attrs = append(attrs, attribute.Int64(a.Key, a.Int))
		}
	}
	attrs = append(attrs, attribute.Int64("sim.start_ps", int64(r.start)), attribute.Int64("sim.end_ps", int64(r.end)))
	if r.actor != "" {
		attrs = append(attrs, attribute.String("actor", r.actor))
		if n := nodeOf(r.actor); n != "" {
			attrs = append(attrs, attribute.String("node", n))
		}
	}
	opts := []trace.SpanStartOption{trace.WithTimestamp(s.wall(r.start)), trace.WithSpanKind(trace.SpanKindInternal)}
	if root {
		attrs = append(attrs, attribute.String("message.id", fmt.Sprint(r.trace)))
		if r.cause != 0 { // a reply or ack: linked to the root of the message it answers
			attrs = append(attrs, attribute.String("cause.message.id", fmt.Sprint(r.cause)))
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
				TraceID: TraceID(run, r.cause), SpanID: RootSpanID(run, r.cause), TraceFlags: trace.FlagsSampled})}))
		}
	}
	_, sp := s.tracer(serviceOf(s.cfg, r.actor)).Start(ctx, r.name, append(opts, trace.WithAttributes(attrs...))...)
	sp.End(trace.WithTimestamp(s.wall(r.end)))
}

// close flushes the last batch and shuts the exporter down.
func (s *otlpSink) close() (exported, dropped int64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*s.proc.timeout+time.Second)
	defer cancel()
	var tpErr error
	for _, tp := range s.tps {
		if e := tp.Shutdown(ctx); e != nil && tpErr == nil {
			tpErr = e
		}
	}
	shutErr := s.proc.Shutdown(ctx) // the exporting goroutine is done: its counts are final
	return s.proc.exported, s.proc.dropped, cmp.Or(s.proc.err, tpErr, shutErr)
}

// batcher is a span processor that exports in batches, in order, on a goroutine of its
// own, so that the collector goes on making spans while a batch travels: unlike the
// SDK's BatchSpanProcessor it never drops a span for lack of queue room (the collector
// waits while batchQueue batches are waiting). A failed export counts its spans as
// dropped; after retries consecutive failures it stops trying and counts the rest.
type batcher struct {
	mu      sync.Mutex // guards batch
	exp     sdktrace.SpanExporter
	batch   []sdktrace.ReadOnlySpan
	size    int
	timeout time.Duration
	retries int
	queue   chan []sdktrace.ReadOnlySpan // batches for the exporting goroutine
	pending sync.WaitGroup               // batches queued and not exported yet
	closed  bool
	done    chan struct{} // closed when the exporting goroutine has ended

	// owned by the exporting goroutine until done is closed
	failures int
	exported int64
	dropped  int64
	err      error
}

// batchQueue is the number of full batches that may wait for the exporting goroutine.
const batchQueue = 4

func newBatcher(exp sdktrace.SpanExporter, size int, timeout time.Duration, retries int) *batcher {
	b := &batcher{exp: exp, size: size, timeout: timeout, retries: retries,
		queue: make(chan []sdktrace.ReadOnlySpan, batchQueue), done: make(chan struct{})}
	go b.run()
	return b
}

func (b *batcher) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (b *batcher) OnEnd(s sdktrace.ReadOnlySpan) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.batch = append(b.batch, s)
	if len(b.batch) >= b.size {
		b.flush()
	}
}

// flush queues the batch (b.mu held).
func (b *batcher) flush() {
	if len(b.batch) == 0 || b.closed {
		return
	}
	b.pending.Add(1)
	b.queue <- b.batch
	b.batch = make([]sdktrace.ReadOnlySpan, 0, b.size)
}

// run is the exporting goroutine.
func (b *batcher) run() {
	defer close(b.done)
	for batch := range b.queue {
		b.export(batch)
		b.pending.Done()
	}
}

func (b *batcher) export(batch []sdktrace.ReadOnlySpan) {
	if b.failures >= b.retries {
		b.dropped += int64(len(batch))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout)
	defer cancel()
	if err := b.exp.ExportSpans(ctx, batch); err != nil {
		b.failures++
		b.dropped += int64(len(batch))
		if b.err == nil {
			b.err = fmt.Errorf("trace OTLP export: %w", err)
		}
		return
	}
	b.failures = 0
	b.exported += int64(len(batch))
}

// ForceFlush exports every span ended so far and returns once they are.
func (b *batcher) ForceFlush(context.Context) error {
	b.mu.Lock()
	b.flush()
	b.mu.Unlock()
	b.pending.Wait()
	return nil
}

// Shutdown exports what is left, ends the exporting goroutine and shuts the exporter
// down.
func (b *batcher) Shutdown(ctx context.Context) error {
	b.mu.Lock()
	b.flush()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	<-b.done
	return b.exp.Shutdown(ctx)
}
