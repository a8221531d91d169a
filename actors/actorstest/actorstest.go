// Package actorstest provides a recording actors.Context, so that a block's unit tests
// can drive one actor by hand and assert what it sent, on which port and when, without
// building a graph or running an engine (STYLE: tests drive one block through a
// recording context).
package actorstest

import (
	"fmt"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// Kind says how a message was sent.
type Kind int

// Send kinds.
const (
	ViaPort Kind = iota // Context.Send
	ViaTo               // Context.SendTo
	ViaSelf             // Context.SendSelf
)

// Sent is one recorded send.
type Sent struct {
	Kind  Kind
	Port  actors.Port    // ViaPort
	Dst   actors.ActorID // ViaTo
	Msg   actors.Msg
	Delay actors.Duration // the extra delay (ViaPort, ViaTo) or the timer delay (ViaSelf)
	At    actors.Time     // Now + Delay: link latency is not known here and not included
	Place uint64          // a timer sent with SendSelfAt: its reservation's place (else 0)
}

func (s Sent) String() string {
	switch s.Kind {
	case ViaTo:
		return fmt.Sprintf("to#%d +%s %s", s.Dst, s.Delay, s.Msg)
	case ViaSelf:
		return fmt.Sprintf("self +%s %s", s.Delay, s.Msg)
	}
	return fmt.Sprintf("port%d +%s %s", s.Port, s.Delay, s.Msg)
}

// Context is a recording actors.Context. Set Now and InPort before calling the actor;
// Deliver does it for you.
type Context struct {
	T         actors.Time
	ID        actors.ActorID
	ActorName string
	InPort    actors.Port
	R         actors.Rand
	Trace     actors.Tracer
	PortNames []string // optional, for String output
	Sent      []Sent
	// Places numbers the places Reserve takes (a Harness orders its timers by them);
	// nil: the context counts them itself.
	Places func() uint64
	places uint64
}

// Fatal is the panic value of Context.Fatalf; Catch recovers it.
type Fatal struct{ Msg string }

// New returns a recording context for an actor named name with the stream of seed.
func New(name string, seed uint64) *Context {
	return &Context{ActorName: name, R: actors.NewRand(seed, name), InPort: actors.NoPort}
}

// Deliver delivers m on port at time at and returns what the actor sent in response.
func (c *Context) Deliver(a actors.Actor, at actors.Time, port actors.Port, m actors.Msg) []Sent {
	c.T, c.InPort = at, port
	a.Receive(c, m)
	return c.Take()
}

// Start calls the actor's Start method, if any, at time zero and returns its sends.
func (c *Context) Start(a actors.Actor) []Sent {
	c.T, c.InPort = 0, actors.NoPort
	if s, ok := a.(actors.Starter); ok {
		s.Start(c)
	}
	return c.Take()
}

// Take returns the recorded sends and forgets them.
func (c *Context) Take() []Sent {
	s := c.Sent
	c.Sent = nil
	return s
}

// Catch runs f and returns the message of a Fatalf inside it, "" if there was none.
func Catch(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			fe, ok := p.(Fatal)
			if !ok {
				panic(p)
			}
			msg = fe.Msg
		}
	}()
	f()
	return ""
}

// Format renders sends one per line, for golden and datadriven outputs.
func Format(sent []Sent) string {
	var sb strings.Builder
	for _, s := range sent {
		sb.WriteString(s.String())
		sb.WriteByte('\n')
	}
	return sb.String()
}

// Context implementation.

func (c *Context) Now() actors.Time      { return c.T }
func (c *Context) Self() actors.ActorID  { return c.ID }
func (c *Context) Name() string          { return c.ActorName }
func (c *Context) Port() actors.Port     { return c.InPort }
func (c *Context) Rand() *actors.Rand    { return &c.R }
func (c *Context) Tracer() actors.Tracer { return c.Trace }

func (c *Context) Send(p actors.Port, m actors.Msg, extra actors.Duration) {
	c.Sent = append(c.Sent, Sent{Kind: ViaPort, Port: p, Msg: snapshot(m), Delay: extra, At: c.T.Add(extra)})
}

func (c *Context) SendTo(dst actors.ActorID, m actors.Msg, extra actors.Duration) {
	c.Sent = append(c.Sent, Sent{Kind: ViaTo, Dst: dst, Msg: snapshot(m), Delay: extra, At: c.T.Add(extra)})
}

// snapshot is what the recorder keeps of m: a copy of a message its sender reuses.
func snapshot(m actors.Msg) actors.Msg {
	if r, ok := m.(actors.Reused); ok {
		return r.Snapshot()
	}
	return m
}

func (c *Context) SendSelf(m actors.Msg, delay actors.Duration) {
	c.Sent = append(c.Sent, Sent{Kind: ViaSelf, Msg: m, Delay: delay, At: c.T.Add(delay)})
}

// Reserve returns the next place from Places, or from the context's own count.
func (c *Context) Reserve() actors.Reservation {
	if c.Places != nil {
		return actors.ReservationOf(c.Places())
	}
	c.places++
	return actors.ReservationOf(c.places)
}

// SendSelfAt records a timer at time at in the place r (Kind ViaSelf, Delay from Now).
func (c *Context) SendSelfAt(r actors.Reservation, m actors.Msg, at actors.Time) {
	c.Sent = append(c.Sent, Sent{Kind: ViaSelf, Msg: m, Delay: at.Sub(c.T), At: at, Place: r.Place()})
}

func (c *Context) Fatalf(format string, args ...any) {
	panic(Fatal{Msg: fmt.Sprintf(format, args...)})
}

var _ actors.Context = (*Context)(nil)
