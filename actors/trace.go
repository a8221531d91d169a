package actors

// Tracer is the engine's tracing hook. Actors report the stages of a message's life as
// spans; the traces package turns them into OpenTelemetry spans. The engine gives every
// partition its own Tracer (Options.Tracer), so an implementation needs no locking, and
// calls it only from that partition's goroutine.
type Tracer interface {
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
