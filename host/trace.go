package host

import "github.com/seastar-sim/seastar/actors"

// Tracer is the run's tracing hook (nil when tracing is off), for a process's library
// calls. Valid while the process runs.
func (p *Proc) Tracer() actors.Tracer { return actors.TracerOf(p.ctx) }

// Self is the host actor, for spans.
func (p *Proc) Self() actors.ActorID { return p.ctx.Self() }

// Tracer is the run's tracing hook (nil when tracing is off), for interrupt work.
func (k *Kernel) Tracer() actors.Tracer { return actors.TracerOf(k.ctx) }

// Self is the host actor, for spans.
func (k *Kernel) Self() actors.ActorID { return k.ctx.Self() }

// Raised is when the interrupt being handled reached the host; the handler starts
// after it once core 0 is free and the entry cost is paid.
func (k *Kernel) Raised() actors.Time { return k.ctx.Now() }
