package ib

import (
	"fmt"
	"strconv"

	"github.com/seastar-sim/seastar/actors"
)

// Fabric is the shape of a two-level fat tree: Leaves leaf switches with Down nodes
// each, and Spines spine switches, each linked once to every leaf (none with a single
// leaf).
type Fabric struct {
	Nodes, Down, Leaves, Spines int
}

// Shape returns the fat tree for nodes nodes: radix/2 nodes per leaf, radix/2 spines.
func (p Params) Shape(nodes int) (Fabric, error) {
	half := p.Radix / 2
	f := Fabric{Nodes: nodes, Down: half, Leaves: (nodes + half - 1) / half}
	if f.Leaves > 1 {
		f.Spines = half
	}
	if nodes < 1 || f.Leaves > p.Radix {
		return f, fmt.Errorf("ib: %d nodes do not fit a two-level fat tree of radix %d (at most %d)", nodes, p.Radix, half*p.Radix)
	}
	return f, nil
}

// leaf is the leaf switch of node n.
func (f Fabric) leaf(n int) int { return n / f.Down }

// Switch is a crossbar switch of the fat tree. Its ports are named d0.. (down: nodes
// on a leaf, leaves on a spine) and u0.. (up, on a leaf).
type Switch struct {
	p     Params
	f     Fabric
	spine bool
	id    int
	free  []actors.Time // each output port is busy until then
	Stats SwitchStats
}

// SwitchStats counts a switch's traffic.
type SwitchStats struct {
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
	fr, ok := m.(*Frame)
	if !ok {
		ctx.Fatalf("ib: switch got %T (%s)", m, m)
		return
	}
	out := s.route(fr.Dst)
	now := ctx.Now()
	start := max(now.Add(s.p.HopLatency), s.free[out])
	s.free[out] = start.Add(fr.Span) // the tail follows the head by the frame's span
	s.Stats.Frames++
	s.Stats.Wait += start.Sub(now.Add(s.p.HopLatency))
	ctx.Send(out, fr, start.Sub(now))
	if t := actors.TracerOf(ctx); t != nil && t.Sampled(fr.ID) {
		t.Span(actors.Span{Trace: fr.ID, Name: "switch/hop", Actor: ctx.Self(), Start: now, End: s.free[out],
			Attrs: []actors.Attr{actors.IntAttr("port", int64(out))}})
	}
}

// BuildFabric adds the switches of nodes nodes to g and returns, for each node, the
// port its HCA's "net" port connects to.
func BuildFabric(g *actors.Graph, p Params, nodes int) ([]actors.PortRef, error) {
	f, err := p.Shape(nodes)
	if err != nil {
		return nil, err
	}
	g.Describe("machine", "ib")
	g.Describe("nodes", strconv.Itoa(nodes))
	g.Describe("ib.fabric", fmt.Sprintf("%d leaf and %d spine switches", f.Leaves, f.Spines))
	leaves := make([]actors.Ref, f.Leaves)
	for i := range leaves {
		s := &Switch{p: p, f: f, id: i}
		s.free = make([]actors.Time, len(s.Ports()))
		leaves[i] = g.Add(fmt.Sprintf("ib.leaf[%d]", i), s)
	}
	for j := range f.Spines {
		s := &Switch{p: p, f: f, spine: true, id: j}
		s.free = make([]actors.Time, len(s.Ports()))
		sp := g.Add(fmt.Sprintf("ib.spine[%d]", j), s)
		for i, l := range leaves {
			g.Connect(l.Port(fmt.Sprintf("u%d", j)), sp.Port(fmt.Sprintf("d%d", i)), p.CableLatency)
		}
	}
	at := make([]actors.PortRef, nodes)
	for n := range nodes {
		l := leaves[f.leaf(n)]
		at[n] = l.Port(fmt.Sprintf("d%d", n%f.Down))
	}
	for n := nodes; n < f.Leaves*f.Down; n++ { // leaf ports with no node
		g.Unconnected(leaves[f.leaf(n)].Port(fmt.Sprintf("d%d", n%f.Down)))
	}
	return at, nil
}
