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
	MemcpyBandwidth actors.Bandwidth `param:"memcpy_bandwidth" help:"memory copy rate of one core from DRAM: a copy that does not fit in the cache, or whose source the NIC wrote by DMA" source:"assumed"`
	// CacheBytes and CachedCopyBytesPerCycle: a copy whose source and destination fit in
	// the core's cache, of data the host itself wrote (a send buffer reused every
	// iteration, a header it builds), runs from the cache, not as a DRAM stream.
	CacheBytes              actors.Bytes    `param:"cache_bytes" help:"per-core cache (L2) a copy runs in when source and destination fit" source:"AMD Opteron specifications: 1 MiB L2 on Red Storm's single-core Opteron; 512 KiB per core on the XT5's six-core Opteron"`
	CachedCopyBytesPerCycle int             `param:"cached_copy_bytes_per_cycle" help:"bytes one core copies per cycle within its cache" source:"assumed: 4 (a 16-byte load and store every 4 cycles)"`
	MMIOWriteCost           actors.Duration `param:"mmio_write_cost" help:"core time to issue an uncached store to the SeaStar (posted)" source:"assumed"`
	PinFailRate             actors.Prob     `param:"pin_fail_rate" help:"fault injection: probability that pinning one page for a memory registration fails (the registration returns an out-of-memory error)" source:"fault injection, default 0"`
}

// DefaultParams returns the Red Storm compute node (Catamount, one 2.0 GHz core).
func DefaultParams() Params {
	return Params{
		Clock: 2000 * actors.Megahertz, Cores: 1, OS: "catamount",
		TrapCost: 75 * actors.Nanosecond, InterruptCost: 2 * actors.Microsecond, CacheMiss: 100 * actors.Nanosecond,
		MemcpyBandwidth: 2 * actors.GBPerSecond, MMIOWriteCost: 50 * actors.Nanosecond,
		CacheBytes: actors.MiB, CachedCopyBytesPerCycle: 4,
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
	case p.CacheBytes < 0:
		return fmt.Errorf("cache_bytes must be >= 0 (got %s)", p.CacheBytes)
	case p.CachedCopyBytesPerCycle < 1:
		return fmt.Errorf("cached_copy_bytes_per_cycle must be >= 1 (got %d)", p.CachedCopyBytesPerCycle)
	}
	return nil
}

// CopyTime is the time one core takes to copy n bytes the host wrote itself: from its
// cache when source and destination fit in it (CacheBytes), else at MemcpyBandwidth.
func (p Params) CopyTime(n actors.Bytes) actors.Duration {
	if 2*n <= p.CacheBytes {
		cycles := (int64(n) + int64(p.CachedCopyBytesPerCycle) - 1) / int64(p.CachedCopyBytesPerCycle)
		return p.Clock.Cycles(cycles)
	}
	return p.MemcpyBandwidth.TransferTime(n)
}

// CopyFromNICTime is the time to copy n bytes that the NIC wrote into host memory by DMA
// (a landing or receive buffer, an upper pending): not in the cache, at MemcpyBandwidth.
func (p Params) CopyFromNICTime(n actors.Bytes) actors.Duration {
	return p.MemcpyBandwidth.TransferTime(n)
}
