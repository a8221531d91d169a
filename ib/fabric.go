package ib

import (
	"fmt"
	"strconv"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/fattree"
)

// Fabric is the shape of the cluster's fat tree (package fattree).
type Fabric = fattree.Shape

// Shape returns the fat tree for nodes nodes: radix/2 nodes per leaf, radix/2 spines.
func (p Params) Shape(nodes int) (Fabric, error) {
	f, err := fattree.ShapeOf(p.Radix, nodes)
	if err != nil {
		return f, fmt.Errorf("ib: %w", err)
	}
	return f, nil
}

// BuildFabric adds the switches of nodes nodes to g and returns, for each node, the
// port its HCA's "net" port connects to.
func BuildFabric(g *actors.Graph, p Params, nodes int) ([]actors.PortRef, error) {
	if _, err := p.Shape(nodes); err != nil {
		return nil, err
	}
	g.Describe("machine", "ib")
	g.Describe("nodes", strconv.Itoa(nodes))
	at, f, err := fattree.Build(g, fattree.Params{Radix: p.Radix, HopLatency: p.HopLatency, CableLatency: p.CableLatency, Name: "ib"}, nodes)
	if err != nil {
		return nil, err
	}
	g.Describe("ib.fabric", fmt.Sprintf("%d leaf and %d spine switches", f.Leaves, f.Spines))
	return at, nil
}
