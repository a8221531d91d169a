package ppc

import "github.com/seastar-sim/seastar/actors"

// Tracer is the run's tracing hook, nil when tracing is off: firmware reports the
// handlers that work on a sampled message as ppc/... spans (Started to Now).
func (x *Exec) Tracer() actors.Tracer { return actors.TracerOf(x.ctx) }

// Self is the core's actor, for spans.
func (x *Exec) Self() actors.ActorID { return x.ctx.Self() }

// Started is when the handler began: Now minus Elapsed.
func (x *Exec) Started() actors.Time { return x.ctx.Now() }

// Queued is when the handler's event reached the core; Started - Queued is the time
// it waited for the main loop.
func (x *Exec) Queued() actors.Time { return x.queued }

// Tracing reports whether firmware trace points are compiled in (Params.TraceEnabled):
// firmware tests it before computing what its trace points record.
func (x *Exec) Tracing() bool { return x.c.p.TraceEnabled }

// Params returns the core's parameters.
func (c *Core) Params() Params { return c.p }

// Gauge reports the value of one of the firmware's counters (a list's length) at Now,
// for the timeline's counter tracks; free when no timeline is written.
func (x *Exec) Gauge(name string, v int) {
	if g := actors.GaugeOf(x.ctx); g != nil {
		g.Gauge(actors.Gauge{Actor: x.ctx.Self(), Name: name, At: x.Now(), Value: int64(v)})
	}
}
