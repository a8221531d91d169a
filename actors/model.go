package actors

import (
	"slices"
	"strings"
)

// Model is a built, validated actor graph, ready to run once. Its actors carry the
// simulation state, so a Model cannot be run twice: build a new Graph for each run.
type Model struct {
	names    []string  // by id, sorted
	actors   []Actor   // by id
	portBase []int32   // ports of actor id are portBase[id]:portBase[id+1]
	ports    []string  // port names, flattened
	out      []outLink // outgoing link of each port, flattened like ports
	links    []Link    // every link, by (From, FromPort)
	direct   Duration  // latency of SendTo; < 0 if direct sends are disabled
	exports  []export  // state results read, shipped between processes (Graph.Export)
	coords   Coordinates
	colocate [][]ActorID       // groups that must share a partition (Graph.Colocate)
	describe map[string]string // Graph.Describe
	used     bool
}

type outLink struct {
	latency Duration
	dst     ActorID // noActor if the port has no outgoing link
	dstPort Port
}

const noActor = ^ActorID(0)

// Link is a one-way link between two ports, as seen by partitioners.
type Link struct {
	From     ActorID
	FromPort Port
	To       ActorID
	ToPort   Port
	Latency  Duration
}

// NumActors is the number of actors; ids run from 0 to NumActors-1.
func (m *Model) NumActors() int { return len(m.names) }

// Name returns the hierarchical name of actor id.
func (m *Model) Name(id ActorID) string { return m.names[id] }

// Actor returns actor id.
func (m *Model) Actor(id ActorID) Actor { return m.actors[id] }

// ID looks an actor up by name.
func (m *Model) ID(name string) (ActorID, bool) {
	i, ok := slices.BinarySearch(m.names, name)
	return ActorID(i), ok
}

// Ports returns the port names of actor id.
func (m *Model) Ports(id ActorID) []string { return m.ports[m.portBase[id]:m.portBase[id+1]] }

// PortName returns the name of port p of actor id, or a pseudo-port name.
func (m *Model) PortName(id ActorID, p Port) string {
	switch {
	case p == NoPort:
		return "(direct)"
	case p == SelfPort:
		return "(self)"
	case p < 0 || int(p) >= int(m.portBase[id+1]-m.portBase[id]):
		return "(invalid)"
	}
	return m.ports[m.portBase[id]+int32(p)]
}

// Links returns every link sorted by source actor and port. The slice must not be
// modified.
func (m *Model) Links() []Link { return m.links }

// DirectLatency returns the latency of Context.SendTo and whether direct sends are on.
func (m *Model) DirectLatency() (Duration, bool) { return m.direct, m.direct >= 0 }

// route resolves the link leaving port p of actor src.
func (m *Model) route(src ActorID, p Port) (outLink, bool) {
	if p < 0 || int32(p) >= m.portBase[src+1]-m.portBase[src] {
		return outLink{}, false
	}
	l := m.out[m.portBase[src]+int32(p)]
	return l, l.dst != noActor
}

// TopSegment is the default grouping of the node partitioner: the first segment of a
// hierarchical name ("node[1,2,3]" for "node[1,2,3].ppc").
func TopSegment(name string) string {
	top, _, _ := strings.Cut(name, ".")
	return top
}
