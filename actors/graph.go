package actors

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Graph builds a Model: actors with hierarchical names, their ports and the links
// between ports, each link with its own latency (SST's rule: latency belongs to the
// link, not to the component). Mistakes are collected and reported together by Build,
// so construction code needs no error plumbing.
type Graph struct {
	blocks    []block
	links     []linkSpec
	direct    Duration
	directSet bool
	errs      []error
	exports   []exportSpec // state results read (Export)
	coords    Coordinates  // grid positions for the slab partitioner (SetCoordinates)
	colocate  [][]string   // groups of actors that must share a partition (Colocate)
	describe  map[string]string
}

type block struct {
	name  string
	actor Actor
	ports []string
	open  []bool // ports declared intentionally unconnected (nil: none)
}

type linkSpec struct {
	from, to PortRef
	latency  Duration
}

// Ref is a handle on an actor added to a Graph.
type Ref struct {
	g *Graph
	i int32
}

// PortRef names one port of one actor in a Graph.
type PortRef struct {
	b, p int32 // block index, port index; p < 0 for an invalid reference
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{} }

// Add adds actor a under the hierarchical name (see ValidName). Its ports are the
// names returned by a.Ports() if it implements Ported.
func (g *Graph) Add(name string, a Actor) Ref {
	if err := ValidName(name); err != nil {
		g.errs = append(g.errs, err)
	}
	if a == nil {
		g.errorf("graph: actor %q is nil", name)
	}
	var ports []string
	if p, ok := a.(Ported); ok {
		ports = p.Ports() // kept as it is: Ported's contract is that the list does not change
		for i, pn := range ports {
			if pn == "" || slices.Index(ports, pn) != i {
				g.errorf("graph: actor %q declares an empty or duplicate port name %q", name, pn)
			}
		}
	}
	g.blocks = append(g.blocks, block{name: name, actor: a, ports: ports})
	return Ref{g: g, i: int32(len(g.blocks) - 1)}
}

// Name is the actor's hierarchical name.
func (r Ref) Name() string { return r.g.blocks[r.i].name }

// Port returns a reference to the named port; an unknown name is reported by Build.
func (r Ref) Port(name string) PortRef {
	b := &r.g.blocks[r.i]
	if i := slices.Index(b.ports, name); i >= 0 {
		return PortRef{b: r.i, p: int32(i)}
	}
	r.g.errorf("graph: actor %q has no port %q (ports: %s)", b.name, name, portList(b.ports))
	return PortRef{b: r.i, p: -1}
}

// Each adds n like parts to the graph, part(0) to part(n-1). After the first it makes
// room for n-1 more of the same size (actors, links and exports), so that a large
// machine's tables grow once instead of doubling their way up, copying themselves each
// time: building Red Storm's network and nodes that way allocated a quarter of its
// bytes. Parts of other sizes only make the room a guess.
func (g *Graph) Each(n int, part func(i int)) {
	for i := range n {
		b, l, x := len(g.blocks), len(g.links), len(g.exports)
		part(i)
		if i == 0 && n > 1 {
			g.blocks = growExact(g.blocks, (len(g.blocks)-b)*(n-1))
			g.links = growExact(g.links, (len(g.links)-l)*(n-1))
			g.exports = growExact(g.exports, (len(g.exports)-x)*(n-1))
		}
	}
}

// growExact returns s with room for n more elements and no more (slices.Grow, like
// append, may round a large slice up by a quarter).
func growExact[S ~[]E, E any](s S, n int) S {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make(S, len(s), len(s)+n)
	copy(t, s)
	return t
}

// Link adds a one-way link from port from to port to with the given latency (>= 0).
// A port has at most one outgoing link; it may receive from several.
func (g *Graph) Link(from, to PortRef, latency Duration) {
	g.links = append(g.links, linkSpec{from: from, to: to, latency: latency})
}

// Connect links a and b in both directions with the same latency: a duplex cable.
func (g *Graph) Connect(a, b PortRef, latency Duration) {
	g.Link(a, b, latency)
	g.Link(b, a, latency)
}

// Unconnected declares that port p is intentionally left without links (for example
// the wrap port of a mesh edge router). Build rejects any other unlinked port; a Send on
// an unconnected port fails the run.
func (g *Graph) Unconnected(p PortRef) {
	if p.p >= 0 {
		b := &g.blocks[p.b]
		if b.open == nil { // most actors have none: made on the first
			b.open = make([]bool, len(b.ports))
		}
		b.open[p.p] = true
	}
}

// SetDirectLatency enables Context.SendTo: a send to any actor without a link,
// delivered after at least d (>= 0). Under the parallel engine d bounds the lookahead
// of every partition pair, so it must be > 0 when there is more than one partition.
func (g *Graph) SetDirectLatency(d Duration) {
	g.direct, g.directSet = d, true
}

func (g *Graph) errorf(format string, args ...any) {
	g.errs = append(g.errs, configErrorf(format, args...))
}

func (g *Graph) portName(p PortRef) string {
	b := &g.blocks[p.b]
	if p.p < 0 {
		return b.name + ".?"
	}
	return b.name + "." + b.ports[p.p]
}

// Colocate requires the named actors to run in one partition whatever the
// partitioner: blocks that share memory outside messages (a host process and the NIC
// firmware that writes its buffers, as an offloaded protocol does) must not run
// concurrently. Partitioners still choose freely; the engine then merges the
// partitions each group spans. Results never depend on it.
func (g *Graph) Colocate(names ...string) {
	if len(names) > 1 {
		g.colocate = append(g.colocate, append([]string(nil), names...))
	}
}

// Describe records a fact about the model as built (the topology a benchmark chose,
// its node count) under key; the run's Report carries them in Model, so that a
// results record says what was simulated, not only what was configured. A later call
// with the same key replaces the value. Descriptions do not affect the simulation.
func (g *Graph) Describe(key, value string) {
	if g.describe == nil {
		g.describe = map[string]string{}
	}
	g.describe[key] = value
}

// Build checks the graph and returns the runnable Model. It reports every problem it
// finds: invalid or duplicate names, unknown ports, negative latencies, two outgoing
// links on one port, dangling ports. The actors are owned by the Model afterwards.
func (g *Graph) Build() (*Model, error) {
	if g.directSet && g.direct < 0 {
		g.errorf("graph: direct-send latency %s is negative", g.direct)
	}
	order := g.sortedBlocks()
	m := &Model{direct: -1, coords: g.coords, describe: maps.Clone(g.describe)}
	if g.directSet && g.direct >= 0 {
		m.direct = g.direct
	}
	idOf := make([]ActorID, len(g.blocks))
	m.names = make([]string, len(order))
	m.actors = make([]Actor, len(order))
	m.portBase = make([]int32, len(order)+1)
	ports := 0
	for i := range g.blocks {
		ports += len(g.blocks[i].ports)
	}
	m.ports = make([]string, 0, ports)
	for id, bi := range order {
		idOf[bi] = ActorID(id)
		b := &g.blocks[bi]
		m.names[id], m.actors[id] = b.name, b.actor
		m.portBase[id+1] = m.portBase[id] + int32(len(b.ports))
		m.ports = append(m.ports, b.ports...)
	}
	m.out = make([]outLink, len(m.ports))
	for i := range m.out {
		m.out[i].dst = noActor
	}
	linked := make([]bool, len(m.ports))
	g.resolveLinks(m, idOf, linked)
	g.checkDangling(m, idOf, linked)
	for _, x := range g.exports {
		if id, ok := m.ID(x.owner); ok {
			m.exports = append(m.exports, export{owner: id, s: x.s})
		} else {
			g.errorf("graph: Export for %q, which is not an actor of the graph", x.owner)
		}
	}
	for _, grp := range g.colocate {
		var ids []ActorID
		for _, n := range grp {
			if id, ok := m.ID(n); ok {
				ids = append(ids, id)
			} else {
				g.errorf("graph: Colocate names %q, which is not an actor of the graph", n)
			}
		}
		m.colocate = append(m.colocate, ids)
	}
	if len(g.errs) > 0 {
		return nil, joinErrors(g.errs)
	}
	return m, nil
}

// sortedBlocks returns block indices in name order and reports duplicate names.
func (g *Graph) sortedBlocks() []int32 {
	order := make([]int32, len(g.blocks))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(g.blocks[a].name, g.blocks[b].name) })
	for i := 1; i < len(order); i++ {
		if g.blocks[order[i]].name == g.blocks[order[i-1]].name {
			g.errorf("graph: duplicate actor name %q", g.blocks[order[i]].name)
		}
	}
	return order
}

func (g *Graph) resolveLinks(m *Model, idOf []ActorID, linked []bool) {
	n := 0 // links resolved
	for _, l := range g.links {
		if l.from.p < 0 || l.to.p < 0 {
			continue // unknown port, already reported by Ref.Port
		}
		if l.latency < 0 {
			g.errorf("graph: link %s -> %s has negative latency %s", g.portName(l.from), g.portName(l.to), l.latency)
			continue
		}
		src, dst := idOf[l.from.b], idOf[l.to.b]
		si := m.portBase[src] + l.from.p
		if m.out[si].dst != noActor {
			g.errorf("graph: port %s already has an outgoing link (to %s)", g.portName(l.from),
				m.names[m.out[si].dst]+"."+m.PortName(m.out[si].dst, m.out[si].dstPort))
			continue
		}
		m.out[si] = outLink{latency: l.latency, dst: dst, dstPort: Port(l.to.p)}
		linked[si] = true
		linked[m.portBase[dst]+l.to.p] = true
		n++
	}
	// The links by source actor and port: a port has one outgoing link at most, so the
	// ports in id order give them sorted (Red Storm: 1.1 M links, no sort, one array).
	m.links = make([]Link, 0, n)
	for src := range len(m.names) {
		for i := m.portBase[src]; i < m.portBase[src+1]; i++ {
			if o := m.out[i]; o.dst != noActor {
				m.links = append(m.links, Link{From: ActorID(src), FromPort: Port(i - m.portBase[src]), To: o.dst, ToPort: o.dstPort, Latency: o.latency})
			}
		}
	}
}

func (g *Graph) checkDangling(m *Model, idOf []ActorID, linked []bool) {
	for bi := range g.blocks {
		b := &g.blocks[bi]
		base := m.portBase[idOf[bi]]
		for p, name := range b.ports {
			if !linked[base+int32(p)] && (b.open == nil || !b.open[p]) {
				g.errorf("graph: port %s.%s is not connected (link it, or declare it with Graph.Unconnected)", b.name, name)
			}
		}
	}
}

// joinErrors joins build errors, keeping the message readable when there are many.
func joinErrors(errs []error) error {
	const show = 20
	if len(errs) <= show {
		return errors.Join(errs...)
	}
	kept := slices.Clone(errs[:show])
	kept = append(kept, configErrorf("graph: ... and %d more errors", len(errs)-show))
	return errors.Join(kept...)
}

func portList(ports []string) string {
	if len(ports) == 0 {
		return "none"
	}
	return strings.Join(ports, ", ")
}

// Indexed returns an indexed name segment: Indexed("node", 1, 2, 3) is "node[1,2,3]".
func Indexed(base string, idx ...int) string {
	var sb strings.Builder
	sb.WriteString(base)
	sb.WriteByte('[')
	for i, x := range idx {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(x))
	}
	sb.WriteByte(']')
	return sb.String()
}

// ValidName checks a hierarchical actor name: segments separated by '.', each an
// identifier ([A-Za-z_][A-Za-z0-9_-]*) optionally followed by a bracketed list of
// non-negative decimal indices, e.g. "node[1,2,3].ppc" or "router[0,0,0].port[3]".
func ValidName(name string) error {
	if name == "" {
		return configErrorf("graph: empty actor name")
	}
	for seg := range strings.SplitSeq(name, ".") {
		if err := validSegment(seg); err != "" {
			return configErrorf("graph: invalid actor name %q: segment %q %s", name, seg, err)
		}
	}
	return nil
}

func validSegment(seg string) string {
	id, idx, hasIdx := strings.Cut(seg, "[")
	if id == "" {
		return "has no identifier"
	}
	for i, c := range id {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		digit := c == '-' || (c >= '0' && c <= '9')
		if !letter && (i == 0 || !digit) {
			return fmt.Sprintf("has invalid character %q in its identifier", c)
		}
	}
	if !hasIdx {
		return ""
	}
	body, ok := strings.CutSuffix(idx, "]")
	if !ok || body == "" {
		return "has an unterminated or empty index list"
	}
	for n := range strings.SplitSeq(body, ",") {
		if n == "" || (len(n) > 1 && n[0] == '0') || strings.Trim(n, "0123456789") != "" {
			return fmt.Sprintf("has invalid index %q (want non-negative decimal integers)", n)
		}
	}
	return ""
}
