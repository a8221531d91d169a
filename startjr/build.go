package startjr

import (
	"fmt"
	"strconv"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/startjr/arctic"
	"github.com/seastar-sim/seastar/startjr/i960"
	"github.com/seastar-sim/seastar/startjr/ieee1394"
	"github.com/seastar-sim/seastar/startjr/pci"
	"github.com/seastar-sim/seastar/startjr/squall"
)

// Node is a built node.
type Node struct {
	ID   int
	Name string // node[i]
	Host *host.CPU
	PCI  *pci.Bus
	Card *i960.Card
	SIM  *squall.SIM
}

// Machine is a built cluster.
type Machine struct {
	Params Params
	Nodes  []*Node
	Buses  [2]*ieee1394.Bus // low, high priority (IEEE 1394)
}

// Build validates p and adds the nodes and the network to g; fw gives each node's
// firmware. A node's host, PCI bus, card and Squall module are colocated in one
// partition: the firmware and the host library share the FUNI queues in host memory.
func Build(g *actors.Graph, hp host.Params, p Params, fw func(node int) i960.Firmware) (*Machine, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := hp.Validate(); err != nil {
		return nil, fmt.Errorf("host.%w", err)
	}
	m := &Machine{Params: p}
	g.Describe("machine", "startjr")
	g.Describe("nodes", strconv.Itoa(p.Nodes))
	g.Describe("startjr.network", p.Network)
	var at []actors.PortRef
	var ap *arctic.Params
	var buses [2]actors.Ref
	if p.Network == "arctic" {
		var err error
		if at, err = arctic.Build(g, p.Arctic, p.Nodes); err != nil {
			return nil, err
		}
		ap = &p.Arctic
	} else {
		for prio, name := range []string{"ieee1394.low", "ieee1394.high"} {
			b := ieee1394.New(p.IEEE1394, name, p.Nodes)
			m.Buses[prio] = b
			buses[prio] = g.Add(name, b)
		}
	}
	for id := range p.Nodes {
		name := fmt.Sprintf("node[%d]", id)
		n := &Node{ID: id, Name: name, Host: host.New(hp), PCI: pci.New(p.PCI), Card: i960.New(p.I960, p.PCI, fw(id)),
			SIM: squall.New(p.Squall, id, ap)}
		hr := g.Add(name+".host", n.Host)
		br := g.Add(name+".pci", n.PCI)
		cr := g.Add(name+".i960", n.Card)
		sr := g.Add(name+".squall", n.SIM)
		g.Connect(hr.Port("bus"), br.Port("host"), p.PCI.HostLink)
		g.Connect(br.Port("card"), cr.Port("pci"), p.I960.Link)
		g.Connect(br.Port("acd"), sr.Port("acd"), p.Squall.Link)
		g.Connect(cr.Port("squall"), sr.Port("card"), p.Squall.Link)
		if ap != nil {
			g.Connect(sr.Port("net0"), at[id], p.Arctic.CableLatency)
			g.Unconnected(sr.Port("net1"))
		} else {
			port := fmt.Sprintf("n%d", id)
			g.Connect(sr.Port("net0"), buses[0].Port(port), p.IEEE1394.Propagation)
			g.Connect(sr.Port("net1"), buses[1].Port(port), p.IEEE1394.Propagation)
		}
		g.Colocate(name+".host", name+".pci", name+".i960", name+".squall")
		m.Nodes = append(m.Nodes, n)
	}
	return m, nil
}
