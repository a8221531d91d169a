package traces

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/seastar-sim/seastar/actors"
)

// Config configures a Collector. With neither File nor OTLP, spans only count in the
// statistics.
type Config struct {
	// Sample is the fraction of messages traced (--trace-sample); the zero value traces
	// none.
	Sample actors.Prob
	// File, if set, receives every span as one JSON object per line, sorted, with
	// simulated times in picoseconds (--trace-file).
	File string
	// OTLP, if set, is the endpoint spans are exported to (--trace-otlp): host:port or
	// grpc://host:port for OTLP over gRPC (plaintext), grpcs://host:port for gRPC over
	// TLS, http://host:port[/path] or https://... for OTLP over HTTP (path default
	// /v1/traces).
	OTLP string
	// Epoch is the wall-clock time of simulated time zero in exported spans.
	Epoch time.Time
	// TimeScale stretches simulated time in exported OTLP timestamps (0 or 1: none):
	// Jaeger keeps microseconds, so a stage of tens of nanoseconds reads 0 unless
	// scaled. The exact picoseconds stay in the sim.start_ps and sim.end_ps attributes
	// and in the trace file.
	TimeScale int64
	// Seed and Service identify the run: the seed goes into the trace ids (RunKey),
	// the service name (default "seastar-sim") into the exported resource.
	Seed    uint64
	Service string
	// Attrs are extra resource attributes of the export (the command, parameters).
	Attrs map[string]string
	// Timeline, if set, receives a Chrome trace-event view of the run (--trace-timeline):
	// a process per node, a track per block, the stages as busy intervals, flows
	// between a message's stages, and the blocks' gauges as counter tracks.
	Timeline string
	// MaxFileSpans bounds the spans held in memory for the trace file and for the
	// timeline (default 4,000,000 each, about 1 GB); MaxCounters bounds the gauge values
	// of the timeline (default 1,000,000, about 100 MB of JSON, what the Perfetto UI
	// still opens). Beyond a bound the file keeps the lowest message ids and the
	// timeline the earliest times, the same whatever the worker count; the rest is
	// counted as dropped and reported.
	MaxFileSpans int
	MaxCounters  int
	// ExportTimeout bounds one OTLP export call (default 10 s); Retries is the number
	// of consecutive failed exports after which the exporter gives up and counts the
	// rest as dropped (default 3).
	ExportTimeout time.Duration
	Retries       int

	// exporter replaces the OTLP client (tests and benchmarks).
	exporter sdktrace.SpanExporter
}

// Validate checks the settings.
func (c Config) Validate() error {
	switch {
	case c.MaxFileSpans < 0:
		return fmt.Errorf("trace file bound must be >= 0 (got %d)", c.MaxFileSpans)
	case c.MaxCounters < 0:
		return fmt.Errorf("trace timeline counter bound must be >= 0 (got %d)", c.MaxCounters)
	case c.TimeScale < 0:
		return fmt.Errorf("trace time scale must be >= 1 (got %d)", c.TimeScale)
	case c.ExportTimeout < 0:
		return fmt.Errorf("trace export timeout must be >= 0 (got %s)", c.ExportTimeout)
	}
	if c.OTLP != "" {
		if _, err := parseEndpoint(c.OTLP); err != nil {
			return err
		}
	}
	return nil
}

// Stats is what a Collector did.
type Stats struct {
	Traces   int64 // sampled messages
	Spans    int64 // spans recorded, roots included (a "message" root made for a message whose protocol flagged none)
	Exported int64 // spans accepted by the OTLP endpoint
	Written  int64 // spans written to the file
	Dropped  int64 // spans refused by the endpoint plus spans beyond the file bound
	// Timeline is what the timeline holds and left out (with a timeline only).
	Timeline TimelineStats
	// Err is the first export or write error, if any.
	Err error
}

// TimelineStats counts the timeline's content: the stages and gauge values written,
// and those beyond the bounds (Config.MaxFileSpans, MaxCounters), with the simulated
// time from which each kind was left out.
type TimelineStats struct {
	Stages, Counters               int64
	StagesDropped, CountersDropped int64
	StagesCut, CountersCut         actors.Time
}

// record is a span as the collector keeps it.
type record struct {
	trace      uint64
	run        int
	name       string
	actor      string
	start, end actors.Time
	attrs      []actors.Attr
	root       bool
	gauge      bool   // a gauge value, not a span
	cause      uint64 // a root: the message this one answers (Span.Cause)
	phase      string // the phase a stage belongs to (phaseKey); a phase record's own key
	completion bool   // a completion stage (Span.Completion)
	isPhase    bool   // a phase span (parent: the root), not a stage (parent: its phase)
}

// message is what the collector knows of one trace.
type message struct {
	run        int
	id         uint64
	start, end actors.Time
	root       *record
	phases     []phase
	first      record // with phases: the earliest first stage of a phase, attributes left out (its actor names the initiator when no root does)
}

type msgKey struct {
	run int
	id  uint64
}

// chunkSpans is the number of spans a partition buffers before it hands them over.
const chunkSpans = 512

// Collector receives the spans of one or more runs and exports them. Create it with New,
// install its Tracer method as actors.Options.Tracer of every run, and Close it after the
// last run.
type Collector struct {
	cfg     Config
	sampler Sampler
	ch      chan []record
	free    chan []record // chunks the exporter has consumed, for the partitions to fill again
	done    chan struct{}

	mu     sync.Mutex
	parts  []*partTracer
	models map[*actors.Model]int // run index of each model
	closed bool

	// owned by the exporting goroutine until done is closed
	msgs   map[msgKey]*message
	phases map[string]string // phaseKey of each actor that ran a stage: a string built once, not per span
	kept   *bounded          // stages for the file
	tl     *bounded          // stages for the timeline
	gauges *bounded          // gauge values for the timeline (name, actor, start = time, attrs[0] = value)
	spans  int64
	otlp   *otlpSink
}

// New starts a collector. It connects lazily: an unreachable OTLP endpoint shows up as
// dropped spans and an error in Stats.
func New(cfg Config) (*Collector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxFileSpans == 0 {
		cfg.MaxFileSpans = 4_000_000
	}
	if cfg.MaxCounters == 0 {
		cfg.MaxCounters = 1_000_000
	}
	if cfg.ExportTimeout == 0 {
		cfg.ExportTimeout = 10 * time.Second
	}
	if cfg.Retries == 0 {
		cfg.Retries = 3
	}
	if cfg.Service == "" {
		cfg.Service = "seastar-sim"
	}
	c := &Collector{cfg: cfg, sampler: NewSampler(cfg.Sample), ch: make(chan []record, 16), free: make(chan []record, 32), done: make(chan struct{}),
		msgs: map[msgKey]*message{}, phases: map[string]string{}, models: map[*actors.Model]int{},
		kept: newBounded(cfg.MaxFileSpans, fileOrder), tl: newBounded(cfg.MaxFileSpans, timeOrder),
		gauges: newBounded(cfg.MaxCounters, gaugeOrder)}
	for _, out := range []struct{ what, path string }{{"trace file", cfg.File}, {"timeline", cfg.Timeline}} {
		if out.path == "" {
			continue
		}
		// Fail now, not after an hour of simulation, if the file cannot be written.
		f, err := os.Create(out.path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", out.what, err)
		}
		_ = f.Close()
	}
	if cfg.OTLP != "" || cfg.exporter != nil {
		s, err := newOTLPSink(cfg)
		if err != nil {
			return nil, err
		}
		c.otlp = s
	}
	go c.work()
	return c, nil
}

// Sampled reports whether message id m is traced.
func (c *Collector) Sampled(m uint64) bool { return c.sampler.Sampled(m) }

// Tracer is the actors.Options.Tracer of every run: a new tracer for a partition.
// The engine binds it to its model (actors.ModelBinder); runs are numbered in the order
// their models are bound, and their traces get distinct ids (RunKey).
func (c *Collector) Tracer(int) actors.Tracer {
	t := &partTracer{c: c}
	c.mu.Lock()
	c.parts = append(c.parts, t)
	c.mu.Unlock()
	return t
}

// partTracer is the tracer of one partition of one run.
type partTracer struct {
	c   *Collector
	m   *actors.Model
	run int
	buf []record
}

// BindModel implements actors.ModelBinder.
func (t *partTracer) BindModel(m *actors.Model) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	run, ok := t.c.models[m]
	if !ok {
		run = len(t.c.models)
		t.c.models[m] = run
	}
	t.m, t.run = m, run
}

// Sampled implements actors.Tracer.
func (t *partTracer) Sampled(m uint64) bool { return t.c.sampler.Sampled(m) }

// Gauges implements actors.GaugeTracer: gauges are recorded for a timeline.
func (t *partTracer) Gauges() bool { return t.c.cfg.Timeline != "" }

// Gauge implements actors.GaugeTracer.
func (t *partTracer) Gauge(g actors.Gauge) {
	actor := ""
	if t.m != nil {
		actor = t.m.Name(g.Actor)
	}
	t.push(record{run: t.run, name: g.Name, actor: actor, start: g.At, end: g.At, gauge: true,
		attrs: []actors.Attr{actors.IntAttr("value", g.Value)}})
}

// push buffers r and hands the buffer over when full.
func (t *partTracer) push(r record) {
	if t.buf == nil {
		select {
		case b := <-t.c.free:
			t.buf = b
		default:
			t.buf = make([]record, 0, chunkSpans)
		}
	}
	t.buf = append(t.buf, r)
	if len(t.buf) == chunkSpans {
		t.c.ch <- t.buf // waits while the exporter is behind: bounded, never dropped
		t.buf = nil
	}
}

// Span implements actors.Tracer.
func (t *partTracer) Span(s actors.Span) {
	if !t.c.sampler.Sampled(s.Trace) {
		return
	}
	actor := ""
	if t.m != nil {
		actor = t.m.Name(s.Actor)
	}
	t.push(record{trace: s.Trace, run: t.run, name: s.Name, actor: actor,
		start: s.Start, end: max(s.End, s.Start), attrs: s.Attrs, root: s.Root, cause: s.Cause, completion: s.Completion})
}

// work is the exporting goroutine.
func (c *Collector) work() {
	defer close(c.done)
	for chunk := range c.ch {
		for i := range chunk {
			c.consume(&chunk[i])
		}
		if cap(chunk) == chunkSpans { // what consume keeps it has copied: the chunk goes back
			clear(chunk)
			select {
			case c.free <- chunk[:0]:
			default:
			}
		}
	}
}

func (c *Collector) consume(r *record) {
	if r.gauge {
		c.gauges.add(r)
		return
	}
	c.spans++
	k := msgKey{r.run, r.trace}
	m := c.msgs[k]
	if m == nil {
		m = &message{run: r.run, id: r.trace, start: r.start, end: r.end, phases: make([]phase, 0, 4)}
		c.msgs[k] = m
	}
	m.start, m.end = min(m.start, r.start), max(m.end, r.end)
	if r.root && (m.root == nil || recordCmp(r, m.root) < 0) {
		if m.root != nil {
			c.child(m, m.root) // two roots: the later one is an ordinary stage
		}
		root := *r // a copy: keeping r would keep its whole chunk alive
		m.root = &root
		return
	}
	c.child(m, r)
}

// child takes a stage span of m: into its phase, into the file's memory and out to
// the endpoint.
func (c *Collector) child(m *message, r *record) {
	r.phase = c.phaseOf(r.actor)
	if r.completion {
		r.phase = completionPhase
	}
	m.add(r)
	if c.cfg.Timeline != "" {
		c.tl.add(r)
	}
	if c.cfg.File != "" {
		c.kept.add(r)
	}
	if c.otlp != nil {
		c.otlp.span(c.runKey(r.run), r, false)
	}
}

func (c *Collector) runKey(run int) uint64 { return RunKey(c.cfg.Seed, run) }

// phaseOf is phaseKey(actor), from c.phases.
func (c *Collector) phaseOf(actor string) string {
	k, ok := c.phases[actor]
	if !ok {
		k = phaseKey(actor)
		c.phases[actor] = k
	}
	return k
}

// recordCmp orders the spans of one message: by start, end, name, actor, attributes.
func recordCmp(a, b *record) int {
	if c := cmp.Compare(a.start, b.start); c != 0 {
		return c
	}
	if c := cmp.Compare(a.end, b.end); c != 0 {
		return c
	}
	if c := strings.Compare(a.name, b.name); c != 0 {
		return c
	}
	if c := strings.Compare(a.actor, b.actor); c != 0 {
		return c
	}
	return slices.CompareFunc(a.attrs, b.attrs, func(x, y actors.Attr) int {
		return cmp.Or(strings.Compare(x.Key, y.Key), cmp.Compare(x.Int, y.Int), strings.Compare(x.Str, y.Str))
	})
}

// Close flushes every partition's spans, emits the root spans, writes the file, flushes
// and shuts down the exporter. Call it once, after the last run has returned.
func (c *Collector) Close() Stats {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return Stats{Err: errors.New("traces: collector closed twice")}
	}
	c.closed = true
	parts := c.parts
	c.mu.Unlock()
	for _, t := range parts {
		if len(t.buf) > 0 {
			c.ch <- t.buf
			t.buf = nil
		}
	}
	close(c.ch)
	<-c.done

	msgs := make([]*message, 0, len(c.msgs))
	for _, m := range c.msgs {
		msgs = append(msgs, m)
	}
	slices.SortFunc(msgs, func(a, b *message) int { return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.id, b.id)) })
	roots := make([]record, len(msgs))
	phases := make([][]record, len(msgs))
	synthesized := int64(0)
	for i, m := range msgs {
		if m.root == nil {
			synthesized++
		}
		roots[i] = rootRecord(m)
		phases[i] = phaseRecords(m, &roots[i])
		synthesized += int64(len(phases[i]))
		if c.otlp != nil {
			c.otlp.span(c.runKey(m.run), &roots[i], true)
			for k := range phases[i] {
				c.otlp.span(c.runKey(m.run), &phases[i][k], false)
			}
		}
	}
	st := Stats{Traces: int64(len(msgs)), Spans: c.spans + synthesized, Dropped: c.kept.dropped}
	if c.cfg.File != "" {
		n, err := c.writeFile(roots, phases)
		st.Written = n
		st.Err = err
	}
	if c.cfg.Timeline != "" {
		st.Timeline = TimelineStats{StagesDropped: c.tl.dropped, CountersDropped: c.gauges.dropped,
			StagesCut: c.tl.timeOf(), CountersCut: c.gauges.timeOf()}
		if err := c.writeTimeline(&st.Timeline); err != nil && st.Err == nil {
			st.Err = err
		}
	}
	if c.otlp != nil {
		exp, drop, err := c.otlp.close()
		st.Exported, st.Dropped = exp, st.Dropped+drop
		if st.Err == nil {
			st.Err = err
		}
	}
	return st
}

// rootRecord is the root span of a message: the span the protocol flagged Root, or a
// "message" span when none was, stretched over the message's whole life.
func rootRecord(m *message) record {
	r := record{trace: m.id, run: m.run, name: "message", root: true}
	if m.root != nil {
		r = *m.root
	}
	r.start, r.end = m.start, m.end
	return r
}

// String renders the statistics for the run report.
func (s Stats) String() string {
	out := fmt.Sprintf("%d traces, %d spans", s.Traces, s.Spans)
	if s.Written > 0 {
		out += fmt.Sprintf(", %d written", s.Written)
	}
	if s.Exported > 0 || s.Dropped > 0 {
		out += fmt.Sprintf(", %d exported, %d dropped", s.Exported, s.Dropped)
	}
	if s.Err != nil {
		out += fmt.Sprintf(" (%v)", s.Err)
	}
	return out
}

// Rings returns the firmware trace rings of the PPCs of every run traced so far (call
// it after the runs): with several runs, each ring's name starts with "runN/".
func (c *Collector) Rings() []Ring {
	c.mu.Lock()
	models := make([]*actors.Model, len(c.models))
	for m, i := range c.models {
		models[i] = m
	}
	c.mu.Unlock()
	var out []Ring
	for i, m := range models {
		for _, r := range RingsOf(m) {
			if len(models) > 1 {
				r.Name = fmt.Sprintf("run%d/%s", i+1, r.Name)
			}
			out = append(out, r)
		}
	}
	return out
}
