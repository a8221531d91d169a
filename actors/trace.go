package actors

// Tracer is the engine's tracing hook. Actors report the stages of a message's life as
// spans; the traces package turns them into OpenTelemetry spans. The engine gives every
// partition its own Tracer (Options.Tracer), so an implementation needs no locking, and
// calls it only from that partition's goroutine.
//
// Emission points test TracerOf(ctx) for nil first, so that tracing costs one
// comparison when off (and nothing in a notrace build), then ask Sampled before they
// build a span: sampling is a pure function of the trace id, so the same messages are
// traced for every engine, worker count and partitioning.
type Tracer interface {
	// Sampled reports whether the message with trace id trace is traced.
	Sampled(trace uint64) bool
	// Span records one stage. The tracer may keep s.Attrs: callers pass a fresh slice.
	Span(s Span)
}

// Span is one stage of a traced message's life, in simulated time.
type Span struct {
	// Trace identifies the message whose life this span belongs to (for example a
	// Portals message id); equal values land in one trace.
	Trace uint64
	// Name is "block/stage", e.g. "ppc/rx_header" or "router/hop".
	Name string
	// Actor is the actor the stage ran on.
	Actor ActorID
	// Start and End bound the stage; End >= Start.
	Start, End Time
	// Attrs are extra key/value attributes (sizes, match bits, hop count).
	Attrs []Attr
	// Root marks the span that names the message as a whole (for example
	// "portals/put" with its size and match bits), emitted once per message by the
	// protocol that creates it. The exporter makes it the parent of the message's
	// other spans and stretches it over all of them, so its own Start and End only
	// need to lie inside the message's life.
	Root bool
	// Cause, on a root span, is the message this one answers (a get's reply, a put's
	// ack): exporters link the two traces.
	Cause uint64
	// Completion marks a stage that completes the message at its initiator once it has
	// left (the firmware's TX-done handler, the host's handling of the TX-done event and
	// the interrupt that took it): exporters group such stages in a completion phase.
	Completion bool
}

// Attr is a span attribute: an integer or a string value.
type Attr struct {
	Key string
	Int int64
	Str string
}

// IntAttr returns an integer attribute.
func IntAttr(key string, v int64) Attr { return Attr{Key: key, Int: v} }

// StrAttr returns a string attribute.
func StrAttr(key, v string) Attr { return Attr{Key: key, Str: v} }

// Traced is implemented by messages and payloads that belong to a traceable message
// (for example a Portals message descriptor carried in router.Packet.Data), so that
// protocol-agnostic blocks can learn a packet's trace id without knowing the protocol.
// TraceID returns 0 when the value belongs to no message.
type Traced interface {
	TraceID() uint64
}

// SampledTrace returns the trace id of v if v is Traced and its message is sampled by
// t, else 0. t must not be nil: callers test TracerOf(ctx) first.
func SampledTrace(t Tracer, v any) uint64 {
	tv, ok := v.(Traced)
	if !ok {
		return 0
	}
	if id := tv.TraceID(); id != 0 && t.Sampled(id) {
		return id
	}
	return 0
}

// ModelBinder is implemented by tracers that need the model they trace, for the names
// of the actors their spans name; the engines bind each partition's tracer before the
// run starts.
type ModelBinder interface {
	BindModel(m *Model)
}

// newTracer returns partition i's tracer (nil when tracing is off), bound to m.
func newTracer(opts *Options, m *Model, i int) Tracer {
	if opts.Tracer == nil {
		return nil
	}
	t := opts.Tracer(i)
	if b, ok := t.(ModelBinder); ok {
		b.BindModel(m)
	}
	return t
}

// TracerOf returns ctx's tracer, or nil when tracing is off. Tracing hooks call it
// rather than ctx.Tracer(): in a build with the notrace tag it is the constant nil, so
// that the compiler removes the hooks altogether (the reference for measuring what
// the hooks cost when tracing is off).
func TracerOf(ctx Context) Tracer {
	if !traceHooks {
		return nil
	}
	return ctx.Tracer()
}

// Gauge is the value of one of a block's counters (a queue depth, a FIFO's fill) from
// time At on, for timeline views.
type Gauge struct {
	Actor ActorID
	Name  string
	At    Time
	Value int64
}

// GaugeTracer is implemented by tracers that record gauges. Blocks report a gauge when
// its value changes: GaugeOf(ctx) is nil unless the run records them, so that the
// report costs one comparison otherwise.
type GaugeTracer interface {
	Gauge(g Gauge)
	// Gauges reports whether gauges are recorded at all (a timeline is being written).
	Gauges() bool
}

// GaugeOf returns ctx's gauge recorder, or nil when gauges are not recorded.
func GaugeOf(ctx Context) GaugeTracer {
	if !traceHooks {
		return nil
	}
	if r, ok := ctx.(*runner); ok { // the engine's: looked up once (setTracer)
		return r.gauges
	}
	return gaugesOf(ctx.Tracer())
}

// gaugesOf returns t's gauge recorder if t records gauges, else nil. Asking an
// interface value for another interface is a lookup in the runtime's table, which
// blocks reporting a gauge on every change would pay per event while tracing (1% of a
// traced PortalPerf's instructions): the engine's contexts ask once.
func gaugesOf(t Tracer) GaugeTracer {
	if g, ok := t.(GaugeTracer); ok && g.Gauges() {
		return g
	}
	return nil
}

// setTracer makes t the runner's tracer.
func (r *runner) setTracer(t Tracer) {
	r.tracer = t
	r.gauges = gaugesOf(t)
}
