package startjr

import (
	"fmt"

	"github.com/seastar-sim/seastar/fattree"
	"github.com/seastar-sim/seastar/startjr/arctic"
	"github.com/seastar-sim/seastar/startjr/i960"
	"github.com/seastar-sim/seastar/startjr/ieee1394"
	"github.com/seastar-sim/seastar/startjr/pci"
	"github.com/seastar-sim/seastar/startjr/squall"
)

// Params configures a StarT-JR cluster. Start from DefaultParams; Validate before use.
type Params struct {
	Nodes    int             `param:"nodes" help:"nodes (PCs) in the cluster" source:"Hoe & Ehrlich 1996 s.4: a two-node prototype, an eight-node system"`
	Network  string          `param:"network" enum:"1394|arctic" help:"the network between the nodes: two IEEE 1394 buses, or the Arctic fabric" source:"Hoe & Ehrlich 1996 s.2.1.2"`
	PCI      pci.Params      `param:"pci"`
	I960     i960.Params     `param:"i960"`
	Squall   squall.Params   `param:"squall"`
	IEEE1394 ieee1394.Params `param:"ieee1394"`
	Arctic   arctic.Params   `param:"arctic"`
}

// DefaultParams returns a two-node cluster on IEEE 1394.
func DefaultParams() Params {
	return Params{Nodes: 2, Network: "1394", PCI: pci.DefaultParams(), I960: i960.DefaultParams(), Squall: squall.DefaultParams(),
		IEEE1394: ieee1394.DefaultParams(), Arctic: arctic.DefaultParams()}
}

// MaxNodes1394 is the most nodes an IEEE 1394 bus addresses (physical IDs 0-62).
const MaxNodes1394 = 63

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	if p.Network != "1394" && p.Network != "arctic" {
		return fmt.Errorf("network: unknown value %q (want 1394 or arctic)", p.Network)
	}
	if p.Nodes < 2 {
		return fmt.Errorf("nodes must be >= 2 (got %d)", p.Nodes)
	}
	if p.Network == "1394" && p.Nodes > MaxNodes1394 {
		return fmt.Errorf("nodes: an IEEE 1394 bus joins at most %d nodes (got %d)", MaxNodes1394, p.Nodes)
	}
	if p.Network == "arctic" {
		if _, err := fattree.ShapeOf(p.Arctic.Radix, p.Nodes); err != nil {
			return fmt.Errorf("nodes: on Arctic %w", err)
		}
	}
	for _, b := range []struct {
		key string
		v   interface{ Validate() error }
	}{{"pci", p.PCI}, {"i960", p.I960}, {"squall", p.Squall}, {"ieee1394", p.IEEE1394}, {"arctic", p.Arctic}} {
		if err := b.v.Validate(); err != nil {
			return fmt.Errorf("%s.%w", b.key, err)
		}
	}
	return nil
}
