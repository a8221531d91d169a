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

// Raised is when the handler's pass took its interrupt (the entry cost is paid from
// then), for the pass's first item; for a later item, found in the queue by the same
// pass, it is the item's own start.
func (k *Kernel) Raised() actors.Time {
	if k.cpu.irqItems == 0 {
		return k.cpu.irqStart // the pass's first item: since the interrupt was taken
	}
	return k.ctx.Now() // a later item of the pass: the handler found it without an interrupt of its own
}
