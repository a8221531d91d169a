package router

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/seastar-sim/seastar/actors"
)

// Topology is a 3-D mesh or torus of X by Y by Z nodes with per-dimension wrap links.
// Node ids are x + X*(y + Y*z). A dimension of size 1 has no links; a wrapped
// dimension of size 2 has two distinct cables between its two nodes.
type Topology struct {
	X, Y, Z             int
	WrapX, WrapY, WrapZ bool
}

// Torus returns an X by Y by Z torus (every dimension wrapped).
func Torus(x, y, z int) Topology {
	return Topology{X: x, Y: y, Z: z, WrapX: true, WrapY: true, WrapZ: true}
}

// Mesh returns an X by Y by Z mesh (no wrap links).
func Mesh(x, y, z int) Topology { return Topology{X: x, Y: y, Z: z} }

// RedStorm is the Red Storm machine: a 27 by 16 by 24 torus of 10,368 compute nodes
// (docs/design.md section 3). Some public descriptions give the real machine wrap links in z
// only; ParseTopology("27x16x24", "mesh,mesh,torus") builds that variant.
func RedStorm() Topology { return Torus(27, 16, 24) }

// maxNodes bounds the node count so that node ids fit in NodeID with room to spare.
const maxNodes = 1 << 24

// ParseTopology parses dims "XxYxZ" (e.g. "8x8x8", "27x16x24"; "8x8" and "16" leave
// the missing dimensions at 1) and wrap "torus", "mesh" or three comma-separated
// words, one per dimension, e.g. "torus,torus,mesh" (x and y wrapped).
func ParseTopology(dims, wrap string) (Topology, error) {
	var t Topology
	parts := strings.Split(dims, "x")
	if len(parts) > 3 {
		return t, fmt.Errorf("router: topology %q: want XxYxZ, e.g. 8x8x8", dims)
	}
	size := [3]int{1, 1, 1}
	for i, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return t, fmt.Errorf("router: topology %q: dimension %q is not a positive integer", dims, s)
		}
		size[i] = n
	}
	if int64(size[0])*int64(size[1])*int64(size[2]) > maxNodes {
		return t, fmt.Errorf("router: topology %q: more than %d nodes", dims, maxNodes)
	}
	w, err := parseWrap(wrap)
	if err != nil {
		return t, err
	}
	return Topology{X: size[0], Y: size[1], Z: size[2], WrapX: w[0], WrapY: w[1], WrapZ: w[2]}, nil
}

func parseWrap(s string) ([3]bool, error) {
	switch s {
	case "torus":
		return [3]bool{true, true, true}, nil
	case "mesh":
		return [3]bool{}, nil
	}
	words := strings.Split(s, ",")
	var w [3]bool
	if len(words) != 3 {
		return w, fmt.Errorf("router: wrap %q: want torus, mesh or one word per dimension (torus,torus,mesh)", s)
	}
	for i, word := range words {
		switch word {
		case "torus":
			w[i] = true
		case "mesh":
		default:
			return w, fmt.Errorf("router: wrap %q: %q is neither torus nor mesh", s, word)
		}
	}
	return w, nil
}

// String renders the topology so that ParseTopology reads it back, e.g.
// "8x8x8 torus", "4x4x2 mesh", "27x16x24 mesh,mesh,torus".
func (t Topology) String() string {
	dims := fmt.Sprintf("%dx%dx%d", t.X, t.Y, t.Z)
	switch {
	case t.WrapX && t.WrapY && t.WrapZ:
		return dims + " torus"
	case !t.WrapX && !t.WrapY && !t.WrapZ:
		return dims + " mesh"
	}
	word := func(w bool) string {
		if w {
			return "torus"
		}
		return "mesh"
	}
	return dims + " " + word(t.WrapX) + "," + word(t.WrapY) + "," + word(t.WrapZ)
}

// MarshalText implements encoding.TextMarshaler using String.
func (t Topology) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText parses "XxYxZ" (a torus) or "XxYxZ WRAP" with WRAP as in
// ParseTopology, e.g. "27x16x24", "8x8x8 mesh".
func (t *Topology) UnmarshalText(b []byte) error {
	dims, wrap, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	if !ok {
		wrap = "torus"
	}
	v, err := ParseTopology(dims, strings.TrimSpace(wrap))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Validate checks the sizes.
func (t Topology) Validate() error {
	if t.X < 1 || t.Y < 1 || t.Z < 1 || int64(t.X)*int64(t.Y)*int64(t.Z) > maxNodes {
		return fmt.Errorf("router: topology %dx%dx%d: sizes must be >= 1 and the node count <= %d", t.X, t.Y, t.Z, maxNodes)
	}
	return nil
}

// Nodes is the number of nodes.
func (t Topology) Nodes() int { return t.X * t.Y * t.Z }

// Coord returns the coordinates (x, y, z) of node id.
func (t Topology) Coord(id NodeID) [3]int {
	i := int(id)
	return [3]int{i % t.X, i / t.X % t.Y, i / (t.X * t.Y)}
}

// ID returns the node at (x, y, z).
func (t Topology) ID(x, y, z int) NodeID { return NodeID(x + t.X*(y+t.Y*z)) }

// NodeName is the top name segment of node id's actors, "node[x,y,z]": the node
// partitioner groups a node's actors by it.
func (t Topology) NodeName(id NodeID) string {
	c := t.Coord(id)
	return actors.Indexed("node", c[0], c[1], c[2])
}

// Neighbor returns the node reached from id through port d, and false if d has no
// link there (mesh edge, dimension of size 1, or d is NIC).
func (t Topology) Neighbor(id NodeID, d Dir) (NodeID, bool) {
	dim := d.Dim()
	if dim < 0 || t.size(dim) < 2 {
		return 0, false
	}
	c := t.Coord(id)
	k := t.size(dim)
	step := 1
	if !d.Plus() {
		step = k - 1
	}
	next := (c[dim] + step) % k
	if !t.wrap(dim) && ((d.Plus() && c[dim] == k-1) || (!d.Plus() && c[dim] == 0)) {
		return 0, false
	}
	c[dim] = next
	return t.ID(c[0], c[1], c[2]), true
}

// Distance is the minimal number of hops from a to b (dimension-order routing is
// minimal).
func (t Topology) Distance(a, b NodeID) int {
	ca, cb := t.Coord(a), t.Coord(b)
	n := 0
	for dim := range 3 {
		d := cb[dim] - ca[dim]
		if d < 0 {
			d = -d
		}
		if t.wrap(dim) {
			d = min(d, t.size(dim)-d)
		}
		n += d
	}
	return n
}

func (t Topology) size(dim int) int {
	switch dim {
	case 0:
		return t.X
	case 1:
		return t.Y
	}
	return t.Z
}

func (t Topology) wrap(dim int) bool {
	switch dim {
	case 0:
		return t.WrapX
	case 1:
		return t.WrapY
	}
	return t.WrapZ
}

// NICPorts are the two ports of a router's NIC port actor that the node's NIC blocks
// link to (see Network.LinkNIC):
//   - Inject receives the NIC's packets, one per credit the NIC holds for the
//     packet's virtual channel (input_buffer_packets per VC to start with; see
//     Injector); the router returns a Credit on Inject's outgoing link when a slot of
//     that input buffer frees.
//   - Eject sends the packets addressed to this node, one per credit the router holds
//     for the NIC's receive buffer (ejectCredits per VC to start with); the NIC
//     returns Credit(p.VC) on its link to Eject when it frees the slot.
type NICPorts struct {
	Inject, Eject actors.PortRef
}

// Network is the routers of a topology, added to a Graph by BuildNetwork.
type Network struct {
	Topo   Topology
	Params Params
	// NIC holds the NIC ports of every node's router, by node id.
	NIC []NICPorts

	cfg *config
}

// BuildNetwork adds the routers of every node of topo to g and links them. It returns,
// per node id, the refs of the NIC port's "inject" and "eject" ports so that a node
// builder links its NIC blocks to them (Network.LinkNIC). ejectCredits is the
// capacity of the NIC's receive buffer per virtual channel.
func BuildNetwork(g *actors.Graph, topo Topology, p Params, ejectCredits int) (*Network, error) {
	return buildNetwork(g, topo, p, ejectCredits, true)
}

func buildNetwork(g *actors.Graph, topo Topology, p Params, ejectCredits int, dateline bool) (*Network, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := topo.Validate(); err != nil {
		return nil, err
	}
	if ejectCredits < 1 || ejectCredits > 1<<15 {
		return nil, fmt.Errorf("router: eject credits must be in 1..32768 (got %d)", ejectCredits)
	}
	cfg := newConfig(topo, p, ejectCredits, dateline)
	g.SetCoordinates(NodeCoordinates)
	n := &Network{Topo: topo, Params: p, NIC: make([]NICPorts, topo.Nodes()), cfg: cfg}
	refs := make([][numDirs]actors.Ref, topo.Nodes())
	g.Each(len(refs), func(id int) { refs[id] = n.addRouter(g, NodeID(id)) })
	n.linkCables(g, refs)
	return n, nil
}

// addRouter adds the seven port actors of node id and their crossbar links.
func (n *Network) addRouter(g *actors.Graph, id NodeID) [numDirs]actors.Ref {
	var r [numDirs]actors.Ref
	prefix := n.Topo.NodeName(id) + ".router."
	for d := range numDirs {
		_, ok := n.Topo.Neighbor(id, d)
		port := newPort(n.cfg, id, d, ok || d == NIC)
		r[d] = g.Add(prefix+d.String(), port)
		g.Export(r[d].Name(), port) // statistics, for runs split across processes
	}
	for i := range numDirs {
		lat := n.Params.CrossbarLatency()
		if i == NIC { // the source router's pipeline: see doc.go
			lat = n.Params.HopLatency()
		}
		for j := range numDirs {
			if i != j {
				g.Link(r[i].Port(dirNames[j]), r[j].Port(dirNames[i]), lat)
			}
		}
	}
	n.NIC[id] = NICPorts{Inject: r[NIC].Port("inject"), Eject: r[NIC].Port("eject")}
	return r
}

// linkCables joins neighbouring routers with duplex cables and declares the torus
// ports without a neighbour unconnected.
func (n *Network) linkCables(g *actors.Graph, refs [][numDirs]actors.Ref) {
	lat := n.Params.CableLatency()
	g.Each(len(refs), func(id int) {
		for d := range NIC {
			nb, ok := n.Topo.Neighbor(NodeID(id), d)
			switch {
			case !ok:
				g.Unconnected(refs[id][d].Port("link"))
			case d.Plus():
				g.Connect(refs[id][d].Port("link"), refs[nb][d.Opposite()].Port("link"), lat)
			}
		}
	})
}

// LinkNIC links a NIC's transmit port tx and receive port rx (two different ports) to
// the router of node id, both ways, with NICLatency: tx to Inject (packets) and back
// (credits), Eject to rx (packets) and back (credits).
func (n *Network) LinkNIC(g *actors.Graph, id NodeID, tx, rx actors.PortRef) {
	g.Connect(tx, n.NIC[id].Inject, n.Params.NICLatency)
	g.Connect(n.NIC[id].Eject, rx, n.Params.NICLatency)
}

// SetStatsWindow limits the statistics of every port to [from, to), e.g. a
// measurement window after a warm-up. Call it before the model runs. By default the
// window is the whole run.
func (n *Network) SetStatsWindow(from, to actors.Time) {
	n.cfg.from, n.cfg.to = from, to
}

// Injector returns the NIC-side credit state for injecting into this network's routers.
func (n *Network) Injector() Injector { return NewInjector(n.Params) }
