package actorstest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// Harness drives one actor in simulated time without an engine: messages injected on
// its ports and its own timers (SendSelf) are delivered in time order (ties in injection
// order); everything it sends on ports or with SendTo is recorded as output, stamped
// with its delivery time assuming zero link latency. Datadriven block tests use it.
type Harness struct {
	Ctx *Context
	A   actors.Actor
	q   []queued
	seq int
}

type queued struct {
	at   actors.Time
	seq  int
	port actors.Port
	msg  actors.Msg
}

// NewHarness returns a harness for actor a named name, after calling its Start method.
func NewHarness(name string, a actors.Actor, seed uint64) (*Harness, []Sent) {
	h := &Harness{Ctx: New(name, seed), A: a}
	// A reserved place is the tie order a timer queued at the reservation would have.
	h.Ctx.Places = func() uint64 {
		h.seq++
		return uint64(h.seq)
	}
	out := h.route(h.Ctx.Start(a))
	return h, out
}

// Inject queues m for delivery on port at time at.
func (h *Harness) Inject(at actors.Time, port actors.Port, m actors.Msg) {
	h.queue(queued{at: at, seq: h.seq, port: port, msg: m})
	h.seq++
}

// queue adds e to the queue in time order, ties in order of seq.
func (h *Harness) queue(e queued) {
	h.q = append(h.q, e)
	slices.SortStableFunc(h.q, func(a, b queued) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.seq - b.seq
	})
}

// Run delivers every queued message and timer at or before until and returns the
// outputs in the order they were sent.
func (h *Harness) Run(until actors.Time) []Sent {
	var out []Sent
	for len(h.q) > 0 && h.q[0].at <= until {
		e := h.q[0]
		h.q = h.q[1:]
		out = append(out, h.route(h.Ctx.Deliver(h.A, e.at, e.port, e.msg))...)
	}
	return out
}

// Pending is the number of queued messages and timers.
func (h *Harness) Pending() int { return len(h.q) }

// Now is the time of the last delivery.
func (h *Harness) Now() actors.Time { return h.Ctx.T }

// route re-queues timers and returns the other sends.
func (h *Harness) route(sent []Sent) []Sent {
	var out []Sent
	for _, s := range sent {
		switch {
		case s.Kind == ViaSelf && s.Place > 0: // in the place reserved for it
			h.queue(queued{at: s.At, seq: int(s.Place - 1), port: actors.SelfPort, msg: s.Msg})
			continue
		case s.Kind == ViaSelf:
			h.Inject(s.At, actors.SelfPort, s.Msg)
			continue
		}
		out = append(out, s)
	}
	return out
}

// Trace renders outputs as "time port message" lines, with port names if given.
func Trace(out []Sent, ports []string) string {
	var sb strings.Builder
	for _, s := range out {
		where := fmt.Sprintf("to#%d", s.Dst)
		if s.Kind == ViaPort {
			where = fmt.Sprintf("port%d", s.Port)
			if int(s.Port) < len(ports) {
				where = ports[s.Port]
			}
		}
		fmt.Fprintf(&sb, "%s %s %s\n", s.At, where, s.Msg)
	}
	return sb.String()
}
