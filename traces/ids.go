package traces

import (
	"encoding/binary"

	"go.opentelemetry.io/otel/trace"

	"github.com/seastar-sim/seastar/actors"
)

// Sampler decides which messages are traced: message id m is sampled when a hash of m,
// as a fraction of 2^64, is below the ratio (actors.Prob.Sample). It depends on nothing
// but the id, so the same messages are sampled whatever runs them.
type Sampler struct{ p actors.Prob }

// NewSampler returns the sampler of ratio.
func NewSampler(ratio actors.Prob) Sampler { return Sampler{p: ratio} }

// Sampled reports whether message id m is traced. Id 0 is never traced.
func (s Sampler) Sampled(m uint64) bool {
	return m != 0 && s.p.Sample(actors.Mix64(m^0x5ea57a75a3f1e0d1))
}

// RunKey is the upper half of the trace ids of one run: a hash of the seed and the
// run's index within the invocation (a sweep runs several models), so that traces of
// different runs exported to one Jaeger do not merge.
func RunKey(seed uint64, run int) uint64 {
	return actors.Mix64(actors.Mix64(seed^0x7e1e7e1e7e1e7e1e) + uint64(run))
}

// TraceID is the trace id of message m of the run with key run: the run key then the
// message id, big-endian, so that the message id is readable at the end of the hex
// form.
func TraceID(run, m uint64) trace.TraceID {
	var t trace.TraceID
	binary.BigEndian.PutUint64(t[:8], run)
	binary.BigEndian.PutUint64(t[8:], m)
	return t
}

// RootSpanID is the span id of the root span of message m.
func RootSpanID(run, m uint64) trace.SpanID {
	return spanID(actors.Mix64(run ^ actors.Mix64(m) ^ 0x2f00d))
}

func spanID(h uint64) trace.SpanID {
	if h == 0 {
		h = 1 // the zero span id is invalid
	}
	var s trace.SpanID
	binary.BigEndian.PutUint64(s[:], h)
	return s
}

// fnv is FNV-1a over the fields of a span, for its id.
type fnv uint64

func newFNV() fnv { return 14695981039346656037 }

func (h fnv) u64(v uint64) fnv {
	for range 8 {
		h ^= fnv(v & 0xff)
		h *= 1099511628211
		v >>= 8
	}
	return h
}

func (h fnv) str(s string) fnv {
	for i := range len(s) {
		h ^= fnv(s[i])
		h *= 1099511628211
	}
	return h.u64(uint64(len(s)))
}

// childSpanID is the span id of a stage: a hash of everything the stage is (run,
// message, name, actor, times, attributes), so it is the same in every run of the same
// scenario. Two stages identical in all of these would share an id; no block emits
// such twins.
func childSpanID(run uint64, r *record) trace.SpanID {
	h := newFNV().u64(run).u64(r.trace).str(r.name).str(r.actor).u64(uint64(r.start)).u64(uint64(r.end))
	for _, a := range r.attrs {
		h = h.str(a.Key).u64(uint64(a.Int)).str(a.Str)
	}
	return spanID(actors.Mix64(uint64(h)))
}

// phaseSpanID is the span id of phase key of message m.
func phaseSpanID(run, m uint64, key string) trace.SpanID {
	return spanID(actors.Mix64(uint64(newFNV().u64(run).u64(m).str("phase").str(key))))
}
