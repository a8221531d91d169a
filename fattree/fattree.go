// Package fattree is a two-level fat tree of crossbar switches with cut-through
// forwarding, the fabric of two NIC families: the InfiniBand cluster (package ib, 36-port
// switches) and StarT-JR's Arctic fabric (package startjr/arctic, 4x4 routers). A switch
// forwards any frame that names its destination node and its span on a link; it holds
// no frames (output ports are unbounded queues: no link-level credits).
//
//	message   port       effect
//	Frame     d*, u*     leaves on the output port towards Destination() after the
//	                     hop latency, once the port is free; the port is then busy
//	                     for the frame's WireSpan()
//
// Emitted: the same Frame, on the output port.
package fattree

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Frame is what a switch forwards.
type Frame interface {
	actors.Msg
	Destination() int          // the node it goes to
	WireSpan() actors.Duration // time from its head to its tail on a link
	TraceID() uint64           // the trace it belongs to (for the hop span)
}

// Params are a fabric's switches and cables.
type Params struct {
	Radix        int             // ports per switch; a leaf uses half for nodes, half up
	HopLatency   actors.Duration // cut-through latency, port to port
	CableLatency actors.Duration // propagation on one cable
	Name         string          // prefix of the switches' actor names ("ib": ib.leaf[0])
}

// Shape is the shape of a two-level fat tree: Leaves leaf switches with Down nodes
// each, and Spines spine switches, each linked once to every leaf (none with a single
// leaf).
type Shape struct {
	Nodes, Down, Leaves, Spines int
}

// ShapeOf returns the fat tree for nodes nodes: radix/2 nodes per leaf, radix/2 spines.
func ShapeOf(radix, nodes int) (Shape, error) {
	half := radix / 2
	f := Shape{Nodes: nodes, Down: half, Leaves: (nodes + half - 1) / half}
	if f.Leaves > 1 {
		f.Spines = half
	}
	if nodes < 1 || f.Leaves > radix {
		return f, fmt.Errorf("%d nodes do not fit a two-level fat tree of radix %d (at most %d)", nodes, radix, half*radix)
	}
	return f, nil
}

// leaf is the leaf switch of node n.
func (f Shape) leaf(n int) int { return n / f.Down }

// Switch is a crossbar switch of the fat tree. Its ports are named d0.. (down: nodes
// on a leaf, leaves on a spine) and u0.. (up, on a leaf).
type Switch struct {
	p     Params
	f     Shape
	spine bool
	id    int
	free  []actors.Time // each output port is busy until then
	Stats Stats
}

// Stats counts a switch's traffic.
type Stats struct {
	Frames int64
	Wait   actors.Duration // time frames waited for an output port
}

// Ports implements actors.Ported.
func (s *Switch) Ports() []string {
	var ps []string
	down := s.f.Down
	if s.spine {
		down = s.f.Leaves
	}
	for i := range down {
		ps = append(ps, fmt.Sprintf("d%d", i))
	}
	if !s.spine {
		for i := range s.f.Spines {
			ps = append(ps, fmt.Sprintf("u%d", i))
		}
	}
	return ps
}

// route is the output port of a frame for node dst: down to it, or up by d-mod-k.
func (s *Switch) route(dst int) actors.Port {
	if s.spine {
		return actors.Port(s.f.leaf(dst))
	}
	if s.f.leaf(dst) == s.id {
		return actors.Port(dst % s.f.Down)
	}
	return actors.Port(s.f.Down + dst%s.f.Spines)
}

// Receive implements actors.Actor: a frame's head arrives and leaves on its output
// port after the cut-through latency, once the port is free.
func (s *Switch) Receive(ctx actors.Context, m actors.Msg) {
	fr, ok := m.(Frame)
	if !ok {
		ctx.Fatalf("%s: switch got %T (%s)", s.p.Name, m, m)
		return
	}
	dst := fr.Destination()
	if dst < 0 || dst >= s.f.Nodes {
		ctx.Fatalf("%s: frame for node %d, but the fabric has %d nodes", s.p.Name, dst, s.f.Nodes)
		return
	}
	out := s.route(dst)
	now := ctx.Now()
	start := max(now.Add(s.p.HopLatency), s.free[out])
	s.free[out] = start.Add(fr.WireSpan()) // the tail follows the head by the frame's span
	s.Stats.Frames++
	s.Stats.Wait += start.Sub(now.Add(s.p.HopLatency))
	ctx.Send(out, fr, start.Sub(now))
	if t := actors.TracerOf(ctx); t != nil && t.Sampled(fr.TraceID()) {
		t.Span(actors.Span{Trace: fr.TraceID(), Name: "switch/hop", Actor: ctx.Self(), Start: now, End: s.free[out],
			Attrs: []actors.Attr{actors.IntAttr("port", int64(out))}})
	}
}

// Build adds the switches of a fat tree for nodes nodes to g and returns, for each
// node, the port its adapter connects to, and the shape.
func Build(g *actors.Graph, p Params, nodes int) ([]actors.PortRef, Shape, error) {
	f, err := ShapeOf(p.Radix, nodes)
	if err != nil {
		return nil, f, fmt.Errorf("%s: %w", p.Name, err)
	}
	leaves := make([]actors.Ref, f.Leaves)
	for i := range leaves {
		s := &Switch{p: p, f: f, id: i}
		s.free = make([]actors.Time, len(s.Ports()))
		leaves[i] = g.Add(fmt.Sprintf("%s.leaf[%d]", p.Name, i), s)
	}
	for j := range f.Spines {
		s := &Switch{p: p, f: f, spine: true, id: j}
		s.free = make([]actors.Time, len(s.Ports()))
		sp := g.Add(fmt.Sprintf("%s.spine[%d]", p.Name, j), s)
		for i, l := range leaves {
			g.Connect(l.Port(fmt.Sprintf("u%d", j)), sp.Port(fmt.Sprintf("d%d", i)), p.CableLatency)
		}
	}
	at := make([]actors.PortRef, nodes)
	for n := range nodes {
		at[n] = leaves[f.leaf(n)].Port(fmt.Sprintf("d%d", n%f.Down))
	}
	for n := nodes; n < f.Leaves*f.Down; n++ { // leaf ports with no node
		g.Unconnected(leaves[f.leaf(n)].Port(fmt.Sprintf("d%d", n%f.Down)))
	}
	return at, f, nil
}
