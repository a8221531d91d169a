package machine

import (
	"fmt"
	"strconv"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/cam"
	"github.com/seastar-sim/seastar/host"
	"github.com/seastar-sim/seastar/ht"
	"github.com/seastar-sim/seastar/ppc"
	"github.com/seastar-sim/seastar/router"
	"github.com/seastar-sim/seastar/rxdma"
	"github.com/seastar-sim/seastar/txdma"
)

// Node is a built node: its blocks, for setup (spawning processes) and statistics.
type Node struct {
	ID   router.NodeID
	Name string // node[x,y,z]
	Host *host.CPU
	HT   *ht.Link
	PPC  *ppc.Core
	TX   *txdma.Engine
	RX   *rxdma.Engine
	CAM  *cam.Block
	// PPCRef is the PPC's place in the graph, for blocks a protocol adds beside it (a
	// coprocessor on its "copro" port).
	PPCRef actors.Ref
}

// HostName, PPCName and CAMName are the graph names of the node's host, PPC and CAM
// actors (what Graph.Export and Graph.Colocate take).
func (n *Node) HostName() string { return n.Name + ".host" }
func (n *Node) PPCName() string  { return n.Name + ".ppc" }
func (n *Node) CAMName() string  { return n.Name + ".cam" }

// Machine is a built machine.
type Machine struct {
	Params Params
	Topo   router.Topology
	Net    *router.Network
	Nodes  []*Node

	// blocks is the parameters the nodes' HT links and DMA engines read, one copy for
	// the machine (Params may be changed after Build; this is not).
	blocks *blockParams
}

type blockParams struct {
	ht ht.Params
	tx txdma.Params
	rx rxdma.Params
}

// FirmwareFunc returns the firmware that node id's PPC runs.
type FirmwareFunc func(id router.NodeID) ppc.Firmware

// HostName is the graph name of node id's host actor.
func (m *Machine) HostName(id int) string { return m.Nodes[id].HostName() }

// ExportHost declares variables that the programs on node id's host fill in and a
// benchmark's results read, for runs split across processes (actors.Graph.Export): the
// process that ran the node sends them to the others at the end.
func (m *Machine) ExportHost(g *actors.Graph, id router.NodeID, vars ...any) {
	g.Export(m.Nodes[id].HostName(), actors.Vars(vars))
}

// Build validates p and adds every node of its topology, and the network, to g.
func Build(g *actors.Graph, p Params, fw FirmwareFunc) (*Machine, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Machine == "ib" {
		return nil, familyError("machine=ib is an InfiniBand cluster (package ib), not SeaStar nodes: only the Portals 4 " +
			"benchmarks (p4-*) and run conform portals4 run on it")
	}
	if p.IsStarTJR() {
		return nil, familyError("machine=" + p.Machine + " is a StarT-JR cluster (package startjr), not SeaStar nodes: " +
			"only the FUNI/JAM benchmarks (run bench jam, run bench funi) run on it")
	}
	topo, _ := p.Topology()
	net, err := router.BuildNetwork(g, topo, p.Router, p.RXDMA.Credits(p.Router.VCs))
	if err != nil {
		return nil, err
	}
	m := &Machine{Params: p, Topo: topo, Net: net, Nodes: make([]*Node, topo.Nodes()), blocks: &blockParams{ht: p.HT, tx: p.TXDMA, rx: p.RXDMA}}
	g.Describe("machine", p.Machine)
	g.Describe("torus", p.Torus)
	g.Describe("wrap", p.Wrap)
	g.Describe("nodes", strconv.Itoa(topo.Nodes()))
	g.Each(len(m.Nodes), func(id int) {
		if err == nil {
			m.Nodes[id], err = m.buildNode(g, router.NodeID(id), fw(router.NodeID(id)))
		}
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Machine) buildNode(g *actors.Graph, id router.NodeID, fw ppc.Firmware) (*Node, error) {
	p := m.Params
	core, err := ppc.New(p.PPC, fw)
	if err != nil {
		return nil, fmt.Errorf("node %d: %w", id, err)
	}
	if int(id) == p.PPC.StallNode && p.PPC.StallFor > 0 {
		core.Stall(p.PPC.StallAt, p.PPC.StallFor)
	}
	b := m.blocks
	n := &Node{ID: id, Name: m.Topo.NodeName(id), Host: host.New(p.Host), HT: ht.New(&b.ht), PPC: core,
		TX: txdma.New(&b.tx, id, m.Net.Injector()), RX: rxdma.New(&b.rx, p.Router.VCs), CAM: cam.NewBlock(p.CAM)}
	hostR := g.Add(n.HostName(), n.Host)
	htR := g.Add(n.Name+".ht", n.HT)
	ppcR := g.Add(n.PPCName(), n.PPC)
	n.PPCRef = ppcR
	txR := g.Add(n.Name+".txdma", n.TX)
	rxR := g.Add(n.Name+".rxdma", n.RX)
	camR := g.Add(n.CAMName(), n.CAM)
	l := p.OnChipLatency
	g.Connect(hostR.Port("bus"), htR.Port("host"), l)
	g.Connect(htR.Port("ppc"), ppcR.Port("ht"), l)
	g.Connect(htR.Port("txdma"), txR.Port("ht"), l)
	g.Connect(htR.Port("rxdma"), rxR.Port("ht"), l)
	g.Connect(ppcR.Port("txdma"), txR.Port("ppc"), l)
	g.Connect(ppcR.Port("rxdma"), rxR.Port("ppc"), l)
	g.Connect(ppcR.Port("cam"), camR.Port("ppc"), l)
	g.Connect(camR.Port("rxdma"), rxR.Port("cam"), l)
	m.Net.LinkNIC(g, id, txR.Port("router"), rxR.Port("router"))
	return n, nil
}

// familyError refuses a machine of another NIC family: a configuration error
// (actors.ErrConfig), not a failure of the run.
type familyError string

func (e familyError) Error() string        { return string(e) }
func (e familyError) Is(target error) bool { return target == actors.ErrConfig }
