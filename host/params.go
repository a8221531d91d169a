package host

import (
	"fmt"

	"github.com/seastar-sim/seastar/actors"
)

// Params configures a CPU. Start from DefaultParams; Validate before use.
type Params struct {
	Clock           actors.Freq      `param:"clock" help:"Opteron core clock" source:"assumed: 2.0 GHz single-core Opteron (docs/design.md s.3.1, redstorm)"`
	Cores           int              `param:"cores" help:"cores per node" source:"docs/design.md s.3.1: one on Red Storm; 12 on the XT5"`
	OS              string           `param:"os" enum:"catamount|linux" help:"operating system of the compute nodes" source:"docs/design.md s.3.1"`
	TrapCost        actors.Duration  `param:"trap_cost" help:"null trap into the kernel and back" source:"Brightwell et al. 2005: about 75 ns under Catamount"`
	InterruptCost   actors.Duration  `param:"interrupt_cost" help:"taking an interrupt: entry, dispatch, return, cache damage" source:"Brightwell et al. 2005: at least 2 us"`
	CacheMiss       actors.Duration  `param:"cache_miss" help:"load that misses the caches, e.g. polling a line the NIC wrote" source:"Brightwell 2011: 70-120 ns"`
	MemcpyBandwidth actors.Bandwidth `param:"memcpy_bandwidth" help:"memory copy rate of one core" source:"assumed"`
	MMIOWriteCost   actors.Duration  `param:"mmio_write_cost" help:"core time to issue an uncached store to the SeaStar (posted)" source:"assumed"`
}

// DefaultParams returns the Red Storm compute node (Catamount, one 2.0 GHz core).
func DefaultParams() Params {
	return Params{
		Clock: 2000 * actors.Megahertz, Cores: 1, OS: "catamount",
		TrapCost: 75 * actors.Nanosecond, InterruptCost: 2 * actors.Microsecond, CacheMiss: 100 * actors.Nanosecond,
		MemcpyBandwidth: 2 * actors.GBPerSecond, MMIOWriteCost: 50 * actors.Nanosecond,
	}
}

// Validate reports the first invalid field, naming its key.
func (p Params) Validate() error {
	switch {
	case p.Clock <= 0:
		return fmt.Errorf("clock must be > 0 (got %s)", p.Clock)
	case p.Cores < 1:
		return fmt.Errorf("cores must be >= 1 (got %d)", p.Cores)
	case p.OS != "catamount" && p.OS != "linux":
		return fmt.Errorf("os must be catamount or linux (got %q)", p.OS)
	case p.TrapCost < 0 || p.InterruptCost < 0 || p.CacheMiss < 0 || p.MMIOWriteCost < 0:
		return fmt.Errorf("trap_cost, interrupt_cost, cache_miss and mmio_write_cost must be >= 0")
	case p.MemcpyBandwidth <= 0:
		return fmt.Errorf("memcpy_bandwidth must be > 0 (got %s)", p.MemcpyBandwidth)
	}
	return nil
}
