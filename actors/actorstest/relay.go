package actorstest

import "github.com/seastar-sim/seastar/actors"

// Relay delivers m to actor a for a test bench that wraps a under a Harness and plays
// some of its peers. Every message a sends on a port is sent (and so recorded) as usual
// and then shown to onSend, if not nil, which may answer it with RelayCtx.Reply. A
// reply comes back through the bench as a timer that Relay unwraps: a receives the
// reply's message on the reply's port.
func Relay(ctx actors.Context, a actors.Actor, m actors.Msg, onSend OnSend) {
	port := ctx.Port()
	if r, ok := m.(reply); ok {
		port, m = r.port, r.m
	}
	a.Receive(&RelayCtx{Context: ctx, port: port, onSend: onSend}, m)
}

// OnSend is told of a message the relayed actor sent on port p with extra delay.
type OnSend func(c *RelayCtx, p actors.Port, m actors.Msg, extra actors.Duration)

// RelayCtx is the relayed actor's context: the port is the one the message was meant
// for, and sends are shown to the bench.
type RelayCtx struct {
	actors.Context
	port   actors.Port
	onSend OnSend
}

// reply is a bench timer carrying a message for the relayed actor on one of its ports.
type reply struct {
	port actors.Port
	m    actors.Msg
}

func (r reply) String() string { return "bench(" + r.m.String() + ")" }

// Port implements actors.Context.
func (c *RelayCtx) Port() actors.Port { return c.port }

// Send implements actors.Context.
func (c *RelayCtx) Send(p actors.Port, m actors.Msg, extra actors.Duration) {
	c.Context.Send(p, m, extra)
	if c.onSend != nil {
		c.onSend(c, p, m, extra)
	}
}

// Reply delivers m to the relayed actor on port p, delay from now.
func (c *RelayCtx) Reply(p actors.Port, m actors.Msg, delay actors.Duration) {
	c.SendSelf(reply{port: p, m: m}, delay)
}
